package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The list of people and Gravatar's {@code d}/{@code f} over real HTTP: a listed hash gets its picture in
 * both modes; with the defaults on, a hash not listed gets d=404's 404, d=mp's silhouette and d=blank's
 * transparent picture; any other d keeps the identity, and no d is ever a Location.
 */
class GravatarDefaultsTest extends ServerOverHttp {
    /** alice@example.org's hashes (lower-cased, trimmed), and a stranger's. */
    static final String ALICE_MD5 = "fbf7c6aec1d4280b7c2704c1c0478bd6";
    static final String ALICE_SHA256 = "7a64adf28737ea90719cbdf0b1a87a5effff3753b79c91d717f4f4153ead0498";
    static final String STRANGER = "0bc83cb571cd1c50ba6f3e8a78ef1346";
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
        String own = location(base, "/?u=" + STRANGER + "&s=64", CHROMIUM);
        for (String d : List.of("404", "mp", "blank", "404&f=y", OTHER_D.get(3), OTHER_D.get(4))) {
            assertEquals(own, location(base, "/avatar/" + STRANGER + "?s=64&d=" + d, CHROMIUM), d);
        }
    }

    @Test
    void when_on_d_404_mp_and_blank_answer_for_an_address_not_listed_f_y_skips_the_list_and_other_d_change_nothing()
            throws Exception {
        URI base = start(true, true);
        for (String target : List.of("/avatar/" + STRANGER + "?d=404", "/avatar/" + STRANGER + ".png?s=120&default=404",
                "/?u=" + STRANGER + "&d=404", "/?u=alice&d=404", "/avatar/" + ALICE_MD5 + "?d=404&f=y",
                "/avatar/" + ALICE_MD5 + "?d=404&forcedefault=y")) {
            assertNotListed(base, target);
        }
        assertEquals(302, send("GET", base.resolve("/?d=404")).statusCode(), "no key: a random picture");
        assertEquals(IDENTITIES + "mp.svg", location(base, "/avatar/" + STRANGER + "?d=mp", CHROMIUM));
        assertEquals(IDENTITIES + "mp-64.png", location(base, "/avatar/" + STRANGER + "?s=48&d=mm", "*/*"));
        assertEquals(IDENTITIES + "blank-256.png", location(base, "/?u=" + STRANGER + "&default=blank&s=200", "*/*"));
        assertEquals(ALICE + ".svg", location(base, "/avatar/" + ALICE_MD5 + "?d=mp", CHROMIUM), "listed");
        assertEquals(ALICE + ".svg", location(base, "/avatar/" + ALICE_MD5 + "?f=n", CHROMIUM));
        String own = location(base, "/avatar/" + ALICE_MD5 + "?f=y", CHROMIUM);
        assertFalse(own.contains("Renard-7-v23"), "f=y alone: the hash's own identity, not the listed one: " + own);
        String stranger = location(base, "/?u=" + STRANGER + "&s=64", CHROMIUM);
        for (String d : OTHER_D) {
            assertEquals(stranger, location(base, "/avatar/" + STRANGER + "?s=64&d=" + d, CHROMIUM), d);
        }
    }

    @Test
    void without_a_drawn_set_d_mp_gets_the_keys_own_picture() throws Exception {
        URI base = start(false, true);
        assertEquals(location(base, "/avatar/" + STRANGER, CHROMIUM), location(base, "/avatar/" + STRANGER + "?d=mp", CHROMIUM));
        assertNotListed(base, "/avatar/" + STRANGER + "?d=404");
    }
}
