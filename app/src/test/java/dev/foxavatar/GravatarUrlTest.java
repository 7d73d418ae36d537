package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Gravatar/Libravatar URL over real HTTP: the fox of /?u=HASH, Gravatar's sizes, Accept's format. */
class GravatarUrlTest extends ServerOverHttp {
    private static final String MD5 = "0bc83cb571cd1c50ba6f3e8a78ef1346";
    private static final String SHA256 = "a6e5d7f7a1a5e1b5f0e1e0d7a6c0e3f5b4a3d2c1e0f9a8b7c6d5e4f3a2b1c0d9";

    private HttpResponse<String> get(URI base, String target, String accept) throws Exception {
        HttpResponse<String> r = accept == null ? send("GET", base.resolve(target))
                : send("GET", base.resolve(target), "Accept", accept);
        assertEquals(302, r.statusCode(), target);
        assertEquals("Accept", header(r, "Vary"), target);
        assertEquals("0", header(r, "Content-Length"), target);
        return r;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "/avatar/" + MD5, "/avatar/" + MD5 + ".png", "/avatar/" + MD5 + ".jpg", "/avatar/" + SHA256,
        "/avatar/" + SHA256 + ".png", "/avatar/0BC83CB571CD1C50BA6F3E8A78EF1346",
    })
    void a_hash_gets_the_same_redirect_as_the_same_key_in_u(String path) throws Exception {
        URI base = start("");
        String hash = path.substring("/avatar/".length()).replaceFirst("\\.[a-z]+$", "");
        for (String accept : new String[] {CHROMIUM, OLD_SAFARI, "*/*", null}) {
            for (String size : new String[] {"80", "1", "64", "200", "2048"}) {
                HttpResponse<String> gravatar = get(base, path + "?s=" + size, accept);
                HttpResponse<String> keyed = get(base, "/?u=" + hash + "&s=" + size, accept);
                assertEquals(header(keyed, "Location"), header(gravatar, "Location"), path + " " + accept);
                assertEquals("public, max-age=" + TestImages.KEYED_MAX_AGE, header(gravatar, "Cache-Control"));
            }
        }
    }

    @Test
    void upper_and_lower_case_hashes_are_two_keys_as_in_u() throws Exception {
        URI base = start("");
        // Case is kept (Nginx's fallback cannot lower-case): the upper-case form is /?u=UPPER's fox.
        Set<Integer> foxes = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            String lower = String.format("%032x", i * 7919L + 0xabcdefL);
            foxes.add(fox(get(base, "/avatar/" + lower, null)) * 100 + fox(get(base, "/avatar/" + lower.toUpperCase(), null)));
        }
        assertTrue(foxes.stream().anyMatch(f -> f / 100 != f % 100), "some hash should differ by case: " + foxes);
    }

    @Test
    void without_a_size_the_answer_is_gravatars_80_px_snapped_up_and_the_top_rung_above_it() throws Exception {
        URI base = start("");
        assertEquals("96", location(get(base, "/avatar/" + MD5, null)).group(2));
        assertEquals("96", location(get(base, "/avatar/" + MD5 + "?s=0", null)).group(2));
        assertEquals("96", location(get(base, "/avatar/" + MD5 + "?s=2049", null)).group(2));
        assertEquals("512", location(get(base, "/avatar/" + MD5 + "?s=2048", null)).group(2));
        assertEquals("384", location(get(base, "/avatar/" + MD5 + "?s=290", null)).group(2));
        assertEquals("32", location(get(base, "/avatar/" + MD5 + "?size=24", null)).group(2));
    }

    @Test
    void a_picture_whose_ladder_stops_lower_answers_its_largest_as_for_u() throws Exception {
        int[] tops = new int[2 * (FOXES - 1)];   // every fox but the first stops at 192 px
        for (int f = 2; f <= FOXES; f++) {
            tops[2 * (f - 2)] = f;
            tops[2 * (f - 2) + 1] = 192;
        }
        TestImages.create(dir, FOXES, tops);
        URI base = startOnExistingImages("");
        Set<String> sizes = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            String hash = String.format("%032x", i * 104729L + 0x5eedL);
            HttpResponse<String> r = get(base, "/avatar/" + hash + "?s=2048", CHROMIUM);
            Matcher m = location(r);
            assertEquals(m.group(1).equals("1") ? "512" : "192", m.group(2), hash);
            assertEquals(header(get(base, "/?u=" + hash + "&s=2048", CHROMIUM), "Location"), header(r, "Location"));
            sizes.add(m.group(2));
        }
        assertTrue(sizes.contains("192"), "the fill rule was exercised: " + sizes);
    }

    @Test
    void the_format_comes_from_accept_never_from_the_extension() throws Exception {
        URI base = start("");
        // Discourse's server-side download: .png with */* -> png. SonarQube's .jpg in Chromium -> avif.
        assertEquals("png", location(get(base, "/avatar/" + MD5 + ".png?s=120&d=404&reset_cache=1", "*/*")).group(3));
        assertEquals("avif", location(get(base, "/avatar/" + MD5 + ".jpg?s=40&d=identicon", CHROMIUM)).group(3));
        assertEquals("webp", location(get(base, "/avatar/" + MD5 + ".png", OLD_SAFARI)).group(3));
        assertEquals("png", location(get(base, "/avatar/" + MD5 + ".webp", "image/jpeg,image/*;q=0.8")).group(3));
    }

    @Test
    void d_never_becomes_the_location_and_d_404_still_gets_the_fox() throws Exception {
        URI base = start("");
        String plain = header(get(base, "/avatar/" + MD5 + "?s=64", CHROMIUM), "Location");
        for (String d : List.of("404", "mp", "identicon", "https%3A%2F%2Fevil.example%2Fx.png", "//evil.example/x.png",
                "blank&f=y", "retro&forcedefault=y&r=x", "404&default=https://evil.example/")) {
            assertEquals(plain, header(get(base, "/avatar/" + MD5 + "?s=64&d=" + d, CHROMIUM), "Location"), d);
        }
    }

    @Test
    void head_answers_like_get_and_other_methods_get_405() throws Exception {
        URI base = start("");
        HttpResponse<String> head = send("HEAD", base.resolve("/avatar/" + MD5 + "?s=64"), "Accept", CHROMIUM);
        assertEquals(302, head.statusCode());
        assertEquals(header(get(base, "/avatar/" + MD5 + "?s=64", CHROMIUM), "Location"), header(head, "Location"));
        assertEquals(405, send("POST", base.resolve("/avatar/" + MD5)).statusCode());
        assertEquals(404, send("GET", base.resolve("/avatar")).statusCode(), "only the folder is the Gravatar URL");
    }

    @Test
    void a_percent_encoded_hash_is_decoded_as_nginx_decodes_it() throws Exception {
        URI base = start("");
        assertEquals(header(get(base, "/avatar/" + MD5, null), "Location"),
                header(get(base, "/avatar/%30bc83cb571cd1c50ba6f3e8a78ef1346%2Epng", null), "Location"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "/avatar/", "/avatar/abc", "/avatar/" + MD5 + "/", "/avatar/" + MD5 + "junk", "/avatar/" + MD5 + ".png.png",
        "/avatar/user@example.com", "/avatar/" + MD5 + "%00", "/avatar/%2e%2e/%2e%2e/etc/passwd",
        "/avatar/..%2f..%2fmanifest.tsv", "/avatar/" + MD5 + "/../../images/manifest.tsv", "/avatar/%C3%A9",
    })
    void any_other_string_under_avatar_gets_a_random_fox_never_cached(String target) throws Exception {
        URI base = start("");
        String head = rawHead(target + "?s=64&u=" + MD5);
        assertTrue(head.startsWith("HTTP/1.1 302 "), head);
        assertTrue(head.contains("\r\nCache-Control: no-store\r\n"), head);
        Matcher m = java.util.regex.Pattern.compile("\r\nLocation: /" + TestImages.LOCATION + "\r\n").matcher(head);
        assertTrue(m.find(), head);
        assertEquals("64", m.group(2), "the size still counts");
        assertTrue(dir.resolve(head.substring(head.indexOf("Location: /") + 11, m.end() - 2)).toFile().isFile());
    }

    @Test
    void junk_is_random_over_the_foxes() throws Exception {
        URI base = start("");
        Set<Integer> foxes = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            foxes.add(fox(get(base, "/avatar/junk", null)));
        }
        assertTrue(foxes.size() > 5, "60 answers, foxes " + foxes);
    }
}
