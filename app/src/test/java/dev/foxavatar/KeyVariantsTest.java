package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A key's variant is the part nginx's {@code split_clients "${key}#v"} picks among 80 parts of 1.25 % (Murmur2Test's vectors). */
class KeyVariantsTest {
    @Test
    void the_variant_is_the_one_nginx_split_clients_picks_over_the_key_and_its_suffix() {
        KeyVariants variants = new KeyVariants(80);
        for (Object[] v : Murmur2Test.VECTORS) {
            String query = "u=" + Murmur2Test.key(v);
            assertEquals((int) v[3], variants.variant(query, 2, query.length()), "key '" + v[0] + "'");
        }
    }
}
