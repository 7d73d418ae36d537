package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A drawn set's keyed answers over real HTTP: the key's identity, an SVG for browsers, else a PNG. */
class IdentitiesTest extends ServerOverHttp {
    private static final int[] BUCKETS = TestImages.buckets(FOXES);

    URI startDrawn() throws Exception {
        TestImages.create(dir, FOXES);
        TestImages.addVariants(dir);
        return startOnExistingImages("");
    }

    /** The identity's Location without its ending: {@code /i/0123456789/Renard-FOX-vV}, from Murmur2Test's vectors. */
    static String identity(Object[] vector) {
        return "/i/0123456789/Renard-" + BUCKETS[(int) vector[2]] + "-v" + vector[3];
    }

    static List<Object[]> hashVectors() {
        return Arrays.stream(Murmur2Test.VECTORS).filter(v -> Murmur2Test.key(v).matches("[0-9a-f]{32}|[0-9a-f]{64}")).toList();
    }

    @Test
    void a_key_gets_its_identity_as_svg_when_accept_lists_svg_and_as_png_otherwise() throws Exception {
        URI base = startDrawn();
        for (Object[] vector : hashVectors()) {
            String want = identity(vector);
            for (String accept : List.of(CHROMIUM, OLD_SAFARI, "image/svg+xml")) {
                HttpResponse<String> r = send("GET", base.resolve("/?s=64&u=" + vector[0]), "Accept", accept);
                assertEquals(want + ".svg", header(r, "Location"), accept);
                assertEquals("public, max-age=3600", header(r, "Cache-Control"));
                assertEquals("Accept", header(r, "Vary"));
                assertEquals(want + ".svg", header(send("GET", base.resolve("/avatar/" + vector[0]), "Accept", accept), "Location"));
            }
            for (String accept : List.of("*/*", "image/avif,image/webp,*/*", "image/svg+xml;q=0,*/*")) {
                assertEquals(want + "-64.png", header(send("GET", base.resolve("/?s=64&u=" + vector[0]), "Accept", accept), "Location"));
            }
        }
    }

    @Test
    void the_png_is_the_next_drawn_size_up_from_the_rung_and_the_largest_above_them_so_never_smaller_than_asked_up_to_512() throws Exception {
        URI base = startDrawn();
        Object[] vector = hashVectors().get(0);
        String want = identity(vector);
        for (String[] sizePng : new String[][] {{"1", "64"}, {"64", "64"}, {"65", "256"}, {"256", "256"}, {"257", "512"}, {"360", "512"}, {"2048", "512"}}) {
            HttpResponse<String> r = send("GET", base.resolve("/?u=" + vector[0] + "&s=" + sizePng[0]));
            assertEquals(want + "-" + sizePng[1] + ".png", header(r, "Location"), "s=" + sizePng[0]);
        }
        assertEquals(want + "-256.png", header(send("GET", base.resolve("/avatar/" + vector[0])), "Location"), "Gravatar's 80 px");
        assertEquals(want + "-512.png", header(send("GET", base.resolve("/avatar/" + vector[0] + ".png?s=360&d=404"), "Accept", "*/*"),
                "Location"), "Discourse's download: at least the 360 px it asks for");
    }

    @Test
    void identities_are_counted_as_svg_or_png() throws Exception {
        URI base = startDrawn();
        send("GET", base.resolve("/?u=a"), "Accept", CHROMIUM);
        send("GET", base.resolve("/avatar/" + "ab".repeat(16)), "Accept", "*/*");
        URI metrics = URI.create("http://127.0.0.1:" + server.metricsPort() + "/metrics");
        Scrape s = Scrape.whenCounted(() -> send("GET", metrics).body(), 2);
        assertEquals(1, s.value("fox_avatar_requests_total", "route=\"keyed\"", "status=\"302\"", "format=\"svg\""));
        assertEquals(1, s.value("fox_avatar_requests_total", "route=\"gravatar\"", "status=\"302\"", "format=\"png\""));
    }

    @Test
    void the_random_avatar_stays_one_of_the_pictures() throws Exception {
        URI base = startDrawn();
        HttpResponse<String> r = send("GET", base.resolve("/?s=64"), "Accept", CHROMIUM);
        assertEquals("avif", location(r).group(3));
        assertEquals("no-store", header(r, "Cache-Control"));
        assertTrue(header(send("GET", base.resolve("/avatar/junk")), "Location").startsWith("/a/"));
    }
}
