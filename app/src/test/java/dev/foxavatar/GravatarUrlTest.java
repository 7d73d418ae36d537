package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Gravatar/Libravatar URL over real HTTP: the redirect of /?u=HASH with Gravatar's size rule; the list
 * of people and Gravatar's {@code d}/{@code f}: a listed hash gets its picture in both modes; with the
 * defaults on, a hash not listed gets d=404's 404, d=mp's silhouette and d=blank's transparent picture; any
 * other d keeps the identity, and no d is ever a Location. Which paths are a hash is {@link GravatarPathTest}'s,
 * the size rule {@link SizeLadderTest}'s.
 */
class GravatarUrlTest extends ServerOverHttp {
    private static final String MD5 = "0bc83cb571cd1c50ba6f3e8a78ef1346";
    private static final String SHA256 = "a6e5d7f7a1a5e1b5f0e1e0d7a6c0e3f5b4a3d2c1e0f9a8b7c6d5e4f3a2b1c0d9";

    @Test
    void a_hash_gets_the_redirect_of_the_same_key_in_u_its_format_from_accept_never_from_the_extension() throws Exception {
        URI base = start("");
        // %30 and %2E: Undertow decodes the path as Nginx does before either reads the hash.
        for (String path : List.of(MD5, MD5 + ".png", MD5 + ".jpg", SHA256, SHA256 + ".png", MD5.toUpperCase(),
                "%30bc83cb571cd1c50ba6f3e8a78ef1346%2Epng")) {
            String hash = URI.create("/" + path).getPath().substring(1).replaceFirst("\\.[a-z]+$", "");
            HttpResponse<String> gravatar = send("GET", base.resolve("/avatar/" + path + "?s=64"), "Accept", CHROMIUM);
            HttpResponse<String> keyed = send("GET", base.resolve("/?u=" + hash + "&s=64"), "Accept", CHROMIUM);
            assertEquals(302, gravatar.statusCode(), path);
            assertEquals(header(keyed, "Location"), header(gravatar, "Location"), path);
            assertEquals("avif", location(gravatar).group(3), path);
            assertEquals("public, max-age=" + TestImages.KEYED_MAX_AGE, header(gravatar, "Cache-Control"), path);
            assertEquals("Accept", header(gravatar, "Vary"), path);
        }
        assertEquals("96", location(send("GET", base.resolve("/avatar/" + MD5))).group(2), "Gravatar's 80 px, snapped up");
    }

    @Test
    void any_other_string_under_avatar_gets_a_random_fox_never_cached() throws Exception {
        start("");
        // The paths as Undertow decodes them before GravatarPath reads them (GravatarPathTest: the strings).
        for (String target : List.of("/avatar/", "/avatar/user@example.com", "/avatar/" + MD5 + "%00", "/avatar/%C3%A9",
                "/avatar/%2e%2e/%2e%2e/etc/passwd", "/avatar/..%2f..%2fmanifest.tsv", "/avatar/" + MD5 + "/../../images/manifest.tsv")) {
            String head = answer("GET", target + "?s=64&u=" + MD5);
            assertTrue(head.startsWith("HTTP/1.1 302 "), head);
            assertTrue(head.contains("\nCache-Control: no-store\n"), head);
            Matcher m = Pattern.compile("\nLocation: /(" + TestImages.LOCATION + ")\n").matcher(head);
            assertTrue(m.find(), head);
            assertEquals("64", m.group(3), "the size still counts");
            assertTrue(dir.resolve(m.group(1)).toFile().isFile(), head);
        }
    }

    /** alice@example.org's hashes (lower-cased, trimmed), on the list of people. */
    static final String ALICE_MD5 = "fbf7c6aec1d4280b7c2704c1c0478bd6";
    static final String ALICE_SHA256 = "7a64adf28737ea90719cbdf0b1a87a5effff3753b79c91d717f4f4153ead0498";
    static final String IDENTITIES = "/i/0123456789/";
    static final String ALICE = IDENTITIES + "Renard-7-v23";
    /** Values of d that are no default of Gravatar's, URLs among them. */
    static final List<String> OTHER_D = List.of("identicon", "retro", "MP", "https%3A%2F%2Fevil.example%2Fx.png",
            "//evil.example/x.png", "https://evil.example/404");

    URI start(boolean drawn, boolean gravatarDefaults) throws Exception {
        TestImages.create(dir, FOXES);
        if (drawn) {
            TestImages.addVariants(dir);
        }
        String picture = drawn ? "7-v23" : "7";
        Path people = Files.writeString(dir.resolve("people.tsv"), ALICE_MD5 + "\t" + picture + "\n" + ALICE_SHA256 + "\t" + picture + "\n");
        return startOnExistingImages("--people " + people + " --gravatar-defaults " + (gravatarDefaults ? "on" : "off"));
    }

    private String location(URI base, String target, String accept) throws Exception {
        HttpResponse<String> r = send("GET", base.resolve(target), "Accept", accept);
        assertEquals(302, r.statusCode(), target);
        return header(r, "Location");
    }

    private void assertNotListed(URI base, String target) throws Exception {
        HttpResponse<String> r = send("GET", base.resolve(target), "Accept", "*/*");
        assertEquals(404, r.statusCode(), target);
        assertEquals("max-age=300", header(r, "Cache-Control"));
        assertEquals("0", header(r, "Content-Length"));
        assertFalse(r.headers().firstValue("Location").isPresent());
    }

    @Test
    void a_listed_address_gets_its_picture_by_either_hash_in_any_case_on_both_urls_in_both_modes() throws Exception {
        for (boolean on : List.of(false, true)) {
            URI base = start(true, on);
            for (String hash : List.of(ALICE_MD5, ALICE_SHA256, ALICE_MD5.toUpperCase())) {
                assertEquals(ALICE + ".svg", location(base, "/avatar/" + hash + "?d=404", CHROMIUM));
                assertEquals(ALICE + "-64.png", location(base, "/?u=" + hash + "&s=64", "*/*"));
            }
            server.stopGracefully(1000);
        }
    }

    @Test
    void d_and_f_are_ignored_when_off() throws Exception {
        URI base = start(true, false);
        String own = location(base, "/?u=" + MD5 + "&s=64", CHROMIUM);
        for (String d : List.of("404", "mp", "blank", "404&f=y", OTHER_D.get(3), OTHER_D.get(4))) {
            assertEquals(own, location(base, "/avatar/" + MD5 + "?s=64&d=" + d, CHROMIUM), d);
        }
    }

    @Test
    void when_on_d_404_mp_and_blank_answer_for_an_address_not_listed_f_y_skips_the_list_and_other_d_change_nothing()
            throws Exception {
        URI base = start(true, true);
        for (String target : List.of("/avatar/" + MD5 + "?d=404", "/avatar/" + MD5 + ".png?s=120&default=404",
                "/?u=" + MD5 + "&d=404", "/?u=alice&d=404", "/avatar/" + ALICE_MD5 + "?d=404&f=y",
                "/avatar/" + ALICE_MD5 + "?d=404&forcedefault=y")) {
            assertNotListed(base, target);
        }
        assertEquals(302, send("GET", base.resolve("/?d=404")).statusCode(), "no key: a random picture");
        assertEquals(IDENTITIES + "mp.svg", location(base, "/avatar/" + MD5 + "?d=mp", CHROMIUM));
        assertEquals(IDENTITIES + "mp-64.png", location(base, "/avatar/" + MD5 + "?s=48&d=mm", "*/*"));
        assertEquals(IDENTITIES + "blank-256.png", location(base, "/?u=" + MD5 + "&default=blank&s=200", "*/*"));
        assertEquals(ALICE + ".svg", location(base, "/avatar/" + ALICE_MD5 + "?d=mp", CHROMIUM), "listed");
        assertEquals(ALICE + ".svg", location(base, "/avatar/" + ALICE_MD5 + "?f=n", CHROMIUM));
        String own = location(base, "/avatar/" + ALICE_MD5 + "?f=y", CHROMIUM);
        assertFalse(own.contains("Renard-7-v23"), "f=y alone: the hash's own identity, not the listed one: " + own);
        String stranger = location(base, "/?u=" + MD5 + "&s=64", CHROMIUM);
        for (String d : OTHER_D) {
            assertEquals(stranger, location(base, "/avatar/" + MD5 + "?s=64&d=" + d, CHROMIUM), d);
        }
    }

    @Test
    void without_a_drawn_set_d_mp_gets_the_keys_own_picture() throws Exception {
        URI base = start(false, true);
        assertEquals(location(base, "/avatar/" + MD5, CHROMIUM), location(base, "/avatar/" + MD5 + "?d=mp", CHROMIUM));
        assertNotListed(base, "/avatar/" + MD5 + "?d=404");
    }
}
