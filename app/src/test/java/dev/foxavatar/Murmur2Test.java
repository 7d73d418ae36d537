package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MurmurHash2 against nginx's own: murmur2-nginx.tsv holds ngx_murmur_hash2 values computed by the
 * machine code of Debian 12's /usr/sbin/nginx 1.22.1 (see app/src/test/tools/nginx-vectors.py).
 */
class Murmur2Test {
    @Test
    void equals_nginx_for_every_vector() throws Exception {
        List<String[]> rows = AvatarQueryTest.vectors("murmur2-nginx.tsv");
        assertTrue(rows.size() > 200, "vectors: " + rows.size());
        for (String[] row : rows) {
            String key = row[0];
            assertEquals(row[1], String.format("%08x", Murmur2.hash(key, 0, key.length())), "key '" + key + "'");
        }
    }

    @Test
    void every_tail_length_is_covered() throws Exception {
        // 0, 1, 2 and 3 bytes after the 4-byte blocks, and keys shorter than a block.
        long[] tails = new long[4];
        for (String[] row : AvatarQueryTest.vectors("murmur2-nginx.tsv")) {
            tails[row[0].length() % 4]++;
        }
        for (long count : tails) {
            assertTrue(count >= 5, java.util.Arrays.toString(tails));
        }
    }

    @Test
    void hashes_a_region_and_a_suffix_as_one_string() throws Exception {
        for (String[] row : AvatarQueryTest.vectors("murmur2-nginx.tsv")) {
            String query = "u=" + row[0] + "&s=64";
            String joined = row[0] + "#v";
            assertEquals(Murmur2.hash(joined, 0, joined.length()), Murmur2.hash(query, 2, 2 + row[0].length(), "#v"), row[0]);
        }
    }

    @Test
    void hashes_a_region_in_place() {
        String query = "s=64&u=hello@example.com&v=1";
        int start = query.indexOf("hello");
        int end = query.indexOf("&v");
        assertEquals(Murmur2.hash("hello@example.com", 0, 17), Murmur2.hash(query, start, end));
        assertEquals(0xe664055c, Murmur2.hash(query, start, end));
    }
}
