package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The service's own metrics, read from its real metrics listener after real requests to its avatar port. */
class MetricsOverHttpTest extends ServerOverHttp {
    private static final String KEY = "0bc83cb571cd1c50ba6f3e8a78ef1346";
    private static final String REQUESTS = "fox_avatar_requests_total";
    private static final String DURATION = "fox_avatar_request_duration_seconds";
    private static final String SIZES = "fox_avatar_responses_by_size_total";

    private URI avatar;
    private URI metrics;

    @BeforeEach
    void startWithMetrics() throws Exception {
        avatar = start("");
        metrics = URI.create("http://127.0.0.1:" + server.metricsPort());
    }

    private Scrape scrape(double requests) throws Exception {
        return Scrape.whenCounted(() -> send("GET", metrics.resolve("/metrics")).body(), requests);
    }

    private void sendTimes(int n, String method, String path, String... headers) throws Exception {
        for (int i = 0; i < n; i++) {
            send(method, avatar.resolve(path), headers);
        }
    }

    private static String[] labels(String route, int status, String format) {
        return new String[] {"route=\"" + route + "\"", "status=\"" + status + "\"", "format=\"" + format + "\""};
    }

    @Test
    void each_answer_is_counted_by_route_status_and_format_timed_by_route_and_each_redirect_by_size_rung() throws Exception {
        // The router's own answers (404, 405, 500) are counted in RoutesTest.
        sendTimes(3, "GET", "/?s=64", "Accept", CHROMIUM);
        sendTimes(2, "GET", "/?s=40&u=" + KEY, "Accept", OLD_SAFARI); // 40 px: the 48 px rung
        sendTimes(4, "HEAD", "/avatar/" + KEY + "?s=512", "Accept", "*/*");
        sendTimes(5, "GET", "/healthz");
        Scrape s = scrape(14);
        assertEquals(3, s.value(REQUESTS, labels("random", 302, "avif")));
        assertEquals(2, s.value(REQUESTS, labels("keyed", 302, "webp")));
        assertEquals(4, s.value(REQUESTS, labels("gravatar", 302, "png")));
        assertEquals(5, s.value(REQUESTS, labels("health", 200, "none")));
        assertEquals(14, s.sum(REQUESTS), "nothing else counted: " + s.body);
        for (String[] routeCount : new String[][] {{"random", "3"}, {"keyed", "2"}, {"gravatar", "4"}, {"health", "5"}}) {
            String route = "route=\"" + routeCount[0] + "\"";
            assertEquals(Double.parseDouble(routeCount[1]), s.value(DURATION + "_count", route), route);
            assertEquals(Double.parseDouble(routeCount[1]), s.value(DURATION + "_bucket", route, "le=\"+Inf\""), route);
        }
        assertTrue(s.body.contains("le=\"2.5E-5\""), "a 25 µs bucket: " + s.body);
        assertTrue(s.value(DURATION + "_sum", "route=\"random\"") > 0);
        assertEquals(3, s.value(SIZES, "size=\"64\""));
        assertEquals(2, s.value(SIZES, "size=\"48\""));
        assertEquals(4, s.value(SIZES, "size=\"512\""));
        assertEquals(9, s.sum(SIZES), "a rung for each redirect, none for the other answers");
    }

    @Test
    void the_image_set_and_the_build_are_told_by_info_metrics() throws Exception {
        byte[] manifest = Files.readAllBytes(dir.resolve(ManifestReader.FILE));
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(manifest)).substring(0, 12);
        Scrape s = scrape(0);
        assertEquals(1, s.value("fox_avatar_image_set_info", "pictures=\"" + FOXES + "\"", "rungs=\"9\"",
                "manifest_digest=\"" + digest + "\""), s.body);
        assertTrue(s.body.lines().anyMatch(l -> l.startsWith("fox_avatar_build_info{")
                && l.contains("java_version=\"" + System.getProperty("java.version") + "\"") && l.endsWith(" 1")), s.body);
    }

    @Test
    void no_key_hash_or_path_reaches_the_metrics_after_keyed_requests() throws Exception {
        String mail = "fox@example.org";
        String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(mail.getBytes()));
        sendTimes(1, "GET", "/?s=64&u=" + KEY);
        sendTimes(1, "GET", "/?u=" + mail.replace("@", "%40"));
        sendTimes(1, "GET", "/avatar/" + md5 + ".png?s=80");
        sendTimes(1, "GET", "/avatar/" + md5.toUpperCase(Locale.ROOT) + "/junk");
        String body = scrape(4).body.toLowerCase(Locale.ROOT);
        for (String secret : new String[] {KEY, md5, "fox@", "fox%40", "/avatar/", "junk", "example.org"}) {
            assertFalse(body.contains(secret), secret + " in /metrics");
        }
        assertTrue(body.contains("route=\"gravatar\""));
    }

    @Test
    void the_metrics_listener_answers_get_and_head_of_metrics_alone() throws Exception {
        for (String path : new String[] {"/", "/healthz", "/metrics/"}) {
            assertEquals(404, send("GET", metrics.resolve(path)).statusCode(), path);
        }
        assertEquals(405, send("POST", metrics.resolve("/metrics")).statusCode());
        for (String method : new String[] {"GET", "HEAD"}) {
            HttpResponse<String> r = send(method, metrics.resolve("/metrics"));
            assertEquals(200, r.statusCode(), method);
            assertEquals("text/plain; version=0.0.4; charset=utf-8", header(r, "Content-Type"), method);
        }
    }
}
