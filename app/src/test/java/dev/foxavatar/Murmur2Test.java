package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * MurmurHash2 as nginx's split_clients computes it: a key keeps its picture from one version to the
 * next only while these values hold. Each vector: key, ngx_murmur_hash2 (what Debian 12's nginx 1.22.1
 * computed), the bucket of 10,000 its split_clients picked, the variant of 80 it picked over the key
 * and "#v". Every tail length (0 to 3 bytes after the 4-byte blocks), MD5 and SHA-256 hashes, a
 * percent-escape, the first hash of a part, the last hash of one, and the last part's overhang.
 */
class Murmur2Test {
    static final Object[][] VECTORS = {
        {"", 0x00000000, 0, 75},
        {"a", 0x92685f5e, 5719, 0},
        {"ab", 0x1aa14063, 1040, 33},
        {"abc", 0x13577c9b, 755, 36},
        {"abcdefgh", 0x042287e6, 161, 68},
        {"hello@example.com", 0xe664055c, 8999, 23},
        {"hello%40example.com", 0xeed409c1, 9329, 27},
        {"0123456789abcdef0123456789abcdef", 0x733233f1, 4499, 48},
        {"6ed8c4b4a95db3ea22dfe9029629fa947bab3ae8e9ea7c72bb0bcc6bc4552e90", 0x9a940c4f, 6038, 6},
        {"edge-16365", 0x55182120, 3324, 12},
        {"edge-534204", 0x15d63617, 852, 22},
        {"edge-947", 0xfffad870, 9999, 59},
    };

    static String key(Object[] vector) {
        return (String) vector[0];
    }

    @Test
    void equals_nginx_for_every_vector() {
        for (Object[] v : VECTORS) {
            assertEquals((int) v[1], Murmur2.hash(key(v), 0, key(v).length()), "key '" + key(v) + "'");
        }
    }

    @Test
    void hashes_a_region_and_a_suffix_as_one_string() {
        for (Object[] v : VECTORS) {
            String query = "u=" + key(v) + "&s=64";
            String joined = key(v) + "#v";
            assertEquals(Murmur2.hash(joined, 0, joined.length()), Murmur2.hash(query, 2, 2 + key(v).length(), "#v"), key(v));
        }
    }

    @Test
    void hashes_a_region_in_place() {
        String query = "s=64&u=hello@example.com&v=1";
        assertEquals(0xe664055c, Murmur2.hash(query, query.indexOf("hello"), query.indexOf("&v")));
    }
}
