package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fox for a key: nginx's split_clients over equal shares. murmur2-nginx.tsv holds the foxes a running
 * nginx 1.22.1 picked with split_clients "$arg_u" over 21 and 3 foxes (see app/src/test/tools/nginx-vectors.py).
 */
class KeyedFoxTest {
    @Test
    void picks_the_fox_nginx_split_clients_picks_among_21_and_among_3() throws Exception {
        KeyedFox of21 = new KeyedFox(21);
        KeyedFox of3 = new KeyedFox(3);
        List<String[]> rows = AvatarQueryTest.vectors("murmur2-nginx.tsv");
        int[] seen = new int[22];
        for (String[] row : rows) {
            String key = row[0];
            int hash = Murmur2.hash(key, 0, key.length());
            assertEquals(Integer.parseInt(row[2]), of21.index(hash) + 1, "21 foxes, key '" + key + "'");
            assertEquals(Integer.parseInt(row[3]), of3.index(hash) + 1, "3 foxes, key '" + key + "'");
            seen[of21.index(hash) + 1]++;
        }
        for (int fox = 1; fox <= 21; fox++) {
            assertTrue(seen[fox] > 0, "the vectors reach fox " + fox);
        }
    }

    @Test
    void the_boundaries_are_nginx_integer_arithmetic() {
        // 21 foxes: 4.76% each for the first 20 (476 hundredths), the last takes the rest.
        KeyedFox fox = new KeyedFox(21);
        long step = 476L * 0xffffffffL / 10_000;
        assertEquals(0, fox.index(0));
        assertEquals(0, fox.index((int) (step - 1)));
        assertEquals(1, fox.index((int) step));
        assertEquals(19, fox.index((int) (20 * step - 1)));
        assertEquals(20, fox.index((int) (20 * step)));
        assertEquals(20, fox.index(0xffffffff), "unsigned: the largest hash is the last fox");
        assertEquals(10, fox.index(Integer.MIN_VALUE), "unsigned: 2^31 is in the 11th share");
    }

    @Test
    void one_fox_takes_every_hash() {
        KeyedFox one = new KeyedFox(1);
        assertEquals(0, one.index(0));
        assertEquals(0, one.index(-1));
    }
}
