package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The avatar URL over real HTTP, where the units (AvatarQueryTest, FormatChooserTest, SizeLadderTest) cannot
 * reach: the first Accept, the key's picture and length limit from the manifest, raw characters in the query.
 */
class AvatarUrlTest extends ServerOverHttp {
    private static final int[] BUCKETS = TestImages.buckets(FOXES);

    private static int foxOf(String key) {
        return BUCKETS[KeyBuckets.bucket(Murmur2.hash(key, 0, key.length()))];
    }

    @Test
    void the_first_accept_header_counts() throws Exception {
        HttpResponse<String> r = send("GET", start("").resolve("/"), "Accept", "image/webp", "Accept", "image/avif");
        assertEquals("webp", location(r).group(3));
    }

    @Test
    void a_key_picks_the_fox_of_its_bucket() throws Exception {
        URI base = start("");
        for (Object[] v : Murmur2Test.VECTORS) {
            if (Murmur2Test.key(v).isEmpty()) {
                continue;
            }
            HttpResponse<String> r = send("GET", base.resolve("/?u=" + v[0]));
            assertEquals(BUCKETS[(int) v[2]], Integer.parseInt(location(r).group(1)), "key " + v[0] + ", bucket " + v[2]);
            assertEquals("public, max-age=3600", header(r, "Cache-Control"));
        }
    }

    @Test
    void a_key_of_128_characters_is_one_and_129_is_not() throws Exception {
        URI base = start("");
        assertEquals("public, max-age=3600", header(send("GET", base.resolve("/?u=" + "k".repeat(128))), "Cache-Control"));
        assertEquals("no-store", header(send("GET", base.resolve("/?u=" + "k".repeat(129))), "Cache-Control"));
    }

    @Test
    void a_key_with_raw_non_ascii_bytes_or_control_characters_is_no_key() throws Exception {
        start("");
        // UTF-8 and Latin-1 bytes, and a control character (Nginx refuses the last before the sidecar).
        for (String target : List.of("/?u=caf\u00c3\u00a9", "/?u=caf\u00e9", "/?u=a\u0001b")) {
            String head = answer("GET", target);
            assertTrue(head.startsWith("HTTP/1.1 302 "), target + " -> " + head);
            assertTrue(head.contains("Cache-Control: no-store\n"), target + " -> " + head);
        }
    }

    @Test
    void characters_browsers_send_raw_in_a_query_make_a_key_not_a_400() throws Exception {
        start("");
        // WHATWG URL leaves { | } ^ \ ` unencoded in a query (Chromium sends them as they are).
        String key = "{a|b}^\\c`";
        String head = answer("GET", "/?s=64&u=" + key);
        assertTrue(head.startsWith("HTTP/1.1 302 "), head);
        assertTrue(head.contains("Cache-Control: public, max-age=3600\n"), head);
        int fox = foxOf(key);
        assertTrue(head.contains("Location: /a/Renard-" + fox + "-64."), fox + ": " + head);
    }
}
