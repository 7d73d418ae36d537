package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The picture for a key: the bucket nginx's split_clients picks among 10,000 parts of 0.01 %, then the
 * manifest's table. murmur2-nginx.tsv holds the buckets a running nginx 1.22.1 picked with 9,999 lines
 * "0.01% B;" and "* 9999;", including keys on both sides of part boundaries and in the last part's
 * overhang (see app/src/test/tools/nginx-vectors.py).
 */
class KeyBucketsTest {
    @Test
    void the_bucket_is_the_one_nginx_split_clients_picks_among_10000_parts() throws Exception {
        List<String[]> rows = AvatarQueryTest.vectors("murmur2-nginx.tsv");
        int edges = 0;
        for (String[] row : rows) {
            String key = row[0];
            assertEquals(Integer.parseInt(row[2]), KeyBuckets.bucket(Murmur2.hash(key, 0, key.length())), "key '" + key + "'");
            edges += key.startsWith("edge-") ? 1 : 0;
        }
        assertEquals(9, edges, "3 keys at the start of a part, 3 at the end, 3 in the overhang");
    }

    @Test
    void a_keys_picture_is_its_buckets_entry_in_the_table() throws Exception {
        int[] table = IntStream.range(0, KeyBuckets.BUCKETS).map(b -> (b * 7) % 21).toArray();
        KeyBuckets buckets = new KeyBuckets(table);
        for (String[] row : AvatarQueryTest.vectors("murmur2-nginx.tsv")) {
            String key = row[0];
            assertEquals(table[Integer.parseInt(row[2])], buckets.picture(Murmur2.hash(key, 0, key.length())), key);
        }
    }

    @Test
    void the_part_boundaries_are_nginx_integer_arithmetic_read_unsigned() {
        assertEquals(429_496, KeyBuckets.PART);
        assertEquals(0, KeyBuckets.bucket(0));
        assertEquals(0, KeyBuckets.bucket(429_495));
        assertEquals(1, KeyBuckets.bucket(429_496));
        assertEquals(4999, KeyBuckets.bucket((int) (5000L * 429_496 - 1)));
        assertEquals(5000, KeyBuckets.bucket(Integer.MIN_VALUE), "unsigned: 2^31 is bucket 5000");
        assertEquals(9998, KeyBuckets.bucket((int) (9999L * 429_496 - 1)));
        assertEquals(9999, KeyBuckets.bucket((int) (9999L * 429_496)));
        assertEquals(9999, KeyBuckets.bucket(0xffffffff), "the last part takes the rest up to 2^32 - 1");
    }

    @Test
    void the_table_must_have_10000_buckets() {
        assertThrows(IllegalArgumentException.class, () -> new KeyBuckets(new int[9999]));
        assertTrue(new KeyBuckets(new int[10_000]).picture(-1) == 0);
    }
}
