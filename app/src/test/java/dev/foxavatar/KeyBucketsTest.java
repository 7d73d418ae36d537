package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The picture for a key: the bucket nginx's split_clients picks among 10,000 parts of 0.01 % (9,999
 * lines "0.01% B;" and "* 9999;"), then the manifest's table; Murmur2Test's vectors hold the buckets
 * nginx 1.22.1 picked, part boundaries and the last part's overhang included.
 */
class KeyBucketsTest {
    @Test
    void the_bucket_is_the_one_nginx_split_clients_picks_among_10000_parts() {
        for (Object[] v : Murmur2Test.VECTORS) {
            assertEquals((int) v[2], KeyBuckets.bucket((int) v[1]), "key '" + v[0] + "'");
        }
    }

    @Test
    void a_keys_picture_is_its_buckets_entry_in_the_table() {
        int[] table = IntStream.range(0, KeyBuckets.BUCKETS).map(b -> (b * 7) % 21).toArray();
        KeyBuckets buckets = new KeyBuckets(table);
        for (Object[] v : Murmur2Test.VECTORS) {
            assertEquals(table[(int) v[2]], buckets.picture((int) v[1]), Murmur2Test.key(v));
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
}
