package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Gravatar/Libravatar URL over real HTTP: the redirect of /?u=HASH, Gravatar's size rule. Which paths
 * are a hash is {@link GravatarPathTest}'s, the size rule {@link GravatarSizeTest}'s.
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
        for (String target : List.of("/avatar/", "/avatar/abc", "/avatar/" + MD5 + "/", "/avatar/" + MD5 + "junk",
                "/avatar/" + MD5 + ".png.png", "/avatar/user@example.com", "/avatar/" + MD5 + "%00",
                "/avatar/%2e%2e/%2e%2e/etc/passwd", "/avatar/..%2f..%2fmanifest.tsv",
                "/avatar/" + MD5 + "/../../images/manifest.tsv", "/avatar/%C3%A9")) {
            String head = rawHead(target + "?s=64&u=" + MD5);
            assertTrue(head.startsWith("HTTP/1.1 302 "), head);
            assertTrue(head.contains("\r\nCache-Control: no-store\r\n"), head);
            Matcher m = Pattern.compile("\r\nLocation: /(" + TestImages.LOCATION + ")\r\n").matcher(head);
            assertTrue(m.find(), head);
            assertEquals("64", m.group(3), "the size still counts");
            assertTrue(dir.resolve(m.group(1)).toFile().isFile(), head);
        }
    }
}
