package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The avatar URL over real HTTP: size, format and key (README "The avatar URL"). */
class AvatarUrlTest extends ServerOverHttp {
    /** The fixture's bucket table (TestImages: rendezvous over Renard-1..21), as the sidecar reads it. */
    private static final int[] BUCKETS = TestImages.buckets(
            java.util.stream.IntStream.rangeClosed(1, FOXES).mapToObj(n -> "Renard-" + n).toList());

    private static int foxOf(String key) {
        return BUCKETS[KeyBuckets.bucket(Murmur2.hash(key, 0, key.length()))];
    }

    /** The wiring only: AvatarQueryTest reads the size, SizeLadderTest snaps it. */
    @ParameterizedTest(name = "{0} -> {1} px")
    @CsvSource({"/, 256", "/?s=64, 64", "/?SIZE=96, 96", "/?s=64px, 256", "/?s=0, 32", "/?s=40, 48", "/?s=2048, 512"})
    void the_size_parameter_picks_the_rung(String target, int px) throws Exception {
        HttpResponse<String> r = send("GET", start("").resolve(target));
        assertEquals(302, r.statusCode());
        assertEquals(String.valueOf(px), location(r).group(2), target);
        assertEquals("no-store", header(r, "Cache-Control"), "no key in " + target);
    }

    /** The wiring only: FormatChooserTest reads every client's Accept. */
    @ParameterizedTest(name = "Accept {0} -> {1}")
    @CsvSource(delimiter = '|', value = {"image/avif,image/webp,*/*;q=0.8|avif", "image/webp,*/*|webp", "*/*|png"})
    void the_accept_header_picks_the_format(String accept, String format) throws Exception {
        HttpResponse<String> r = send("GET", start("").resolve("/?s=64"), "Accept", accept);
        assertEquals(format, location(r).group(3));
        assertEquals("Accept", header(r, "Vary"));
    }

    @Test
    void the_first_accept_header_counts() throws Exception {
        HttpResponse<String> r = send("GET", start("").resolve("/"), "Accept", "image/webp", "Accept", "image/avif");
        assertEquals("webp", location(r).group(3));
    }

    @Test
    void a_keyed_answer_is_cacheable_and_the_same_every_time() throws Exception {
        URI base = start("");
        HttpResponse<String> first = send("GET", base.resolve("/?u=0bc83cb571cd1c50ba6f3e8a78ef1346&s=48"),
                "Accept", OLD_SAFARI);
        assertEquals(302, first.statusCode());
        assertEquals("public, max-age=3600", header(first, "Cache-Control"));
        assertEquals("Accept", header(first, "Vary"));
        assertEquals("0", header(first, "Content-Length"));
        assertEquals("48", location(first).group(2));
        assertEquals("webp", location(first).group(3));
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> again = send("GET", base.resolve("/?u=0bc83cb571cd1c50ba6f3e8a78ef1346&s=48"),
                    "Accept", OLD_SAFARI);
            assertEquals(header(first, "Location"), header(again, "Location"));
        }
    }

    @Test
    void a_key_picks_the_fox_of_its_bucket() throws Exception {
        URI base = start("");
        for (Object[] v : Murmur2Test.VECTORS) {
            if (Murmur2Test.key(v).isEmpty()) {
                continue;
            }
            HttpResponse<String> r = send("GET", base.resolve("/?u=" + v[0]));
            assertEquals(BUCKETS[(int) v[2]], fox(r), "key " + v[0] + ", bucket " + v[2]);
            assertEquals("public, max-age=3600", header(r, "Cache-Control"));
        }
    }

    @ParameterizedTest(name = "{0} is not a key")
    @CsvSource({"u=", "u", "x=abc", "U", "u=&u=abc"})
    void without_a_key_the_answer_is_random_and_no_store(String query) throws Exception {
        HttpResponse<String> r = send("GET", start("").resolve("/?" + query));
        assertEquals(302, r.statusCode());
        assertEquals("no-store", header(r, "Cache-Control"));
        assertEquals("Accept", header(r, "Vary"));
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
            String head = rawHead(target);
            assertTrue(head.startsWith("HTTP/1.1 302 "), target + " -> " + head);
            assertTrue(head.contains("Cache-Control: no-store\r\n"), target + " -> " + head);
        }
    }

    @Test
    void characters_browsers_send_raw_in_a_query_make_a_key_not_a_400() throws Exception {
        start("");
        // WHATWG URL leaves { | } ^ \ ` unencoded in a query (Chromium sends them as they are).
        String key = "{a|b}^\\c`";
        String head = rawHead("/?s=64&u=" + key);
        assertTrue(head.startsWith("HTTP/1.1 302 "), head);
        assertTrue(head.contains("Cache-Control: public, max-age=3600\r\n"), head);
        int fox = foxOf(key);
        assertTrue(head.contains("Location: /a/Renard-" + fox + "-64."), fox + ": " + head);
    }
}
