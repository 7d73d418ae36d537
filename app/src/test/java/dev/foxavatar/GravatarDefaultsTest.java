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

    URI start(boolean drawn, boolean gravatarDefaults) throws Exception {
        TestImages.create(dir, FOXES);
        if (drawn) {
            TestImages.addVariants(dir);
        }
        String picture = drawn ? "7-v23" : "7";
        Path people = Files.writeString(dir.resolve("people.tsv"), ALICE_MD5 + "\t" + picture + "\n" + ALICE_SHA256 + "\t" + picture + "\n");
        ImageManifest manifest = ImageManifest.load(dir);
        Settings settings = new Settings(0, "127.0.0.1", dir, "", 2);
        return start(settings, Routes.avatarPort(settings.locationPrefix(), manifest,
                PeopleList.read(people, "--people", manifest), gravatarDefaults, RequestMetrics.OFF));
    }

    private String location(URI base, String target, String accept) throws Exception {
        HttpResponse<String> r = send("GET", base.resolve(target), "Accept", accept);
        assertEquals(302, r.statusCode(), target);
        return header(r, "Location");
    }

    private String identity(URI base, String hash, String accept) throws Exception {
        return location(base, "/?u=" + hash + "&s=64", accept);
    }

    @Test
    void a_listed_address_gets_its_picture_by_either_hash_in_any_case_on_both_urls_in_both_modes() throws Exception {
        for (boolean on : List.of(false, true)) {
            URI base = start(true, on);
            for (String hash : List.of(ALICE_MD5, ALICE_SHA256, ALICE_MD5.toUpperCase())) {
                assertEquals(IDENTITIES + "Renard-7-v23.svg", location(base, "/avatar/" + hash + "?d=404", CHROMIUM));
                assertEquals(IDENTITIES + "Renard-7-v23-64.png", location(base, "/?u=" + hash + "&s=64", "*/*"));
            }
            server.stopGracefully(1000);
        }
    }

    @Test
    void d_is_ignored_when_off() throws Exception {
        URI base = start(true, false);
        String own = identity(base, STRANGER, CHROMIUM);
        for (String d : List.of("404", "mp", "blank", "404&f=y")) {
            assertEquals(own, location(base, "/avatar/" + STRANGER + "?s=64&d=" + d, CHROMIUM), d);
        }
    }

    @Test
    void d_404_answers_404_for_an_unlisted_address_when_on() throws Exception {
        URI base = start(true, true);
        for (String target : List.of("/avatar/" + STRANGER + "?d=404", "/avatar/" + STRANGER + ".png?s=120&default=404",
                "/?u=" + STRANGER + "&d=404", "/?u=alice&d=404")) {
            HttpResponse<String> r = send("GET", base.resolve(target), "Accept", "*/*");
            assertEquals(404, r.statusCode(), target);
            assertEquals("max-age=300", header(r, "Cache-Control"));
            assertEquals("0", header(r, "Content-Length"));
            assertFalse(r.headers().firstValue("Location").isPresent());
        }
        assertEquals(302, send("GET", base.resolve("/?d=404")).statusCode(), "no key: a random picture");
    }

    @Test
    void f_y_skips_the_list_when_on() throws Exception {
        URI base = start(true, true);
        assertEquals(404, send("GET", base.resolve("/avatar/" + ALICE_MD5 + "?d=404&f=y")).statusCode());
        assertEquals(404, send("GET", base.resolve("/avatar/" + ALICE_MD5 + "?d=404&forcedefault=y")).statusCode());
        assertEquals(IDENTITIES + "Renard-7-v23.svg", location(base, "/avatar/" + ALICE_MD5 + "?f=n", CHROMIUM));
        String own = location(base, "/avatar/" + ALICE_MD5 + "?f=y", CHROMIUM);
        assertFalse(own.contains("Renard-7-v23"), "f=y alone: the hash's own identity, not the listed one: " + own);
    }

    @Test
    void d_mp_and_d_blank_get_the_silhouette_and_the_transparent_picture_when_on() throws Exception {
        URI base = start(true, true);
        assertEquals(IDENTITIES + "mp.svg", location(base, "/avatar/" + STRANGER + "?d=mp", CHROMIUM));
        assertEquals(IDENTITIES + "mp-64.png", location(base, "/avatar/" + STRANGER + "?s=48&d=mm", "*/*"));
        assertEquals(IDENTITIES + "blank-256.png", location(base, "/?u=" + STRANGER + "&default=blank&s=200", "*/*"));
        assertEquals(IDENTITIES + "Renard-7-v23.svg", location(base, "/avatar/" + ALICE_MD5 + "?d=mp", CHROMIUM), "listed");
    }

    @Test
    void any_other_d_keeps_the_identity_and_never_becomes_the_location_when_on() throws Exception {
        URI base = start(true, true);
        String own = identity(base, STRANGER, CHROMIUM);
        for (String d : List.of("identicon", "retro", "robohash", "MP", "https%3A%2F%2Fevil.example%2Fx.png",
                "//evil.example/x.png", "https://evil.example/404")) {
            assertEquals(own, location(base, "/avatar/" + STRANGER + "?s=64&d=" + d, CHROMIUM), d);
        }
    }

    @Test
    void without_a_drawn_set_d_mp_gets_the_keys_own_picture() throws Exception {
        URI base = start(false, true);
        assertEquals(location(base, "/avatar/" + STRANGER, CHROMIUM), location(base, "/avatar/" + STRANGER + "?d=mp", CHROMIUM));
        assertEquals(404, send("GET", base.resolve("/avatar/" + STRANGER + "?d=404")).statusCode());
    }
}
