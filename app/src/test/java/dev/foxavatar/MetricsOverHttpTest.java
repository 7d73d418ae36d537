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
    private static final String DURATION = "fox_avatar_request_duration_seconds_count";

    private URI avatar;
    private URI metrics;

    @BeforeEach
    void startWithMetrics() throws Exception {
        TestImages.create(dir, FOXES);
        ImageManifest manifest = ImageManifest.load(dir);
        Settings settings = new Settings(0, "127.0.0.1", dir, "", 2, 0, "127.0.0.1");
        RequestMetrics counted = new RequestMetrics(manifest, ManifestDigest.of(dir));
        server = new AvatarServer(settings, Routes.avatarPort(settings.locationPrefix(), manifest, counted),
                Routes.metricsPort(counted));
        server.start();
        avatar = URI.create("http://127.0.0.1:" + server.port());
        metrics = URI.create("http://127.0.0.1:" + server.metricsPort());
    }

    private Scrape scrape() throws Exception {
        HttpResponse<String> r = send("GET", metrics.resolve("/metrics"));
        assertEquals(200, r.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", header(r, "Content-Type"));
        return new Scrape(r.body());
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
    void requests_are_counted_by_exactly_what_was_sent_per_route_status_and_format() throws Exception {
        Scrape before = scrape();
        sendTimes(3, "GET", "/?s=64", "Accept", CHROMIUM);
        sendTimes(2, "GET", "/?s=64&u=" + KEY, "Accept", OLD_SAFARI);
        sendTimes(4, "HEAD", "/avatar/" + KEY + "?s=80", "Accept", "*/*");
        sendTimes(5, "GET", "/healthz");
        sendTimes(6, "GET", "/nothing-here");
        sendTimes(7, "POST", "/");
        Scrape after = scrape();
        assertEquals(3, after.delta(before, REQUESTS, labels("random", 302, "avif")));
        assertEquals(2, after.delta(before, REQUESTS, labels("keyed", 302, "webp")));
        assertEquals(4, after.delta(before, REQUESTS, labels("gravatar", 302, "png")));
        assertEquals(5, after.delta(before, REQUESTS, labels("health", 200, "none")));
        assertEquals(6, after.delta(before, REQUESTS, labels("other", 404, "none")));
        assertEquals(7, after.delta(before, REQUESTS, labels("random", 405, "none")));
        double total = after.body.lines().filter(l -> l.startsWith(REQUESTS + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        assertEquals(3 + 2 + 4 + 5 + 6 + 7, total, "nothing else counted: " + after.body);
    }

    @Test
    void the_latency_histogram_counts_the_same_requests_by_route() throws Exception {
        Scrape before = scrape();
        sendTimes(3, "GET", "/");
        sendTimes(2, "GET", "/?u=" + KEY);
        sendTimes(4, "GET", "/healthz");
        sendTimes(1, "GET", "/metrics");
        Scrape after = scrape();
        assertEquals(3, after.delta(before, DURATION, "route=\"random\""));
        assertEquals(2, after.delta(before, DURATION, "route=\"keyed\""));
        assertEquals(4, after.delta(before, DURATION, "route=\"health\""));
        assertEquals(1, after.delta(before, DURATION, "route=\"other\""));
        assertEquals(0, after.delta(before, DURATION, "route=\"gravatar\""));
        String bucket = "fox_avatar_request_duration_seconds_bucket";
        assertEquals(3, after.delta(before, bucket, "route=\"random\"", "le=\"+Inf\""));
        assertTrue(after.has(bucket, "route=\"random\"", "le=\"2.5E-5\""), "a 25 µs bucket: " + after.body);
        assertTrue(after.value("fox_avatar_request_duration_seconds_sum", "route=\"random\"") > 0);
    }

    @Test
    void the_size_rung_of_each_redirect_is_counted() throws Exception {
        Scrape before = scrape();
        sendTimes(2, "GET", "/?s=64");
        sendTimes(3, "GET", "/?s=40&u=" + KEY); // 40 px: the 48 px rung
        sendTimes(1, "GET", "/avatar/" + KEY + "?s=512");
        sendTimes(4, "GET", "/healthz"); // no image, no rung
        Scrape after = scrape();
        assertEquals(2, after.delta(before, "fox_avatar_responses_by_size_total", "size=\"64\""));
        assertEquals(3, after.delta(before, "fox_avatar_responses_by_size_total", "size=\"48\""));
        assertEquals(1, after.delta(before, "fox_avatar_responses_by_size_total", "size=\"512\""));
        double total = after.body.lines().filter(l -> l.startsWith("fox_avatar_responses_by_size_total{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        assertEquals(6, total);
    }

    @Test
    void the_image_set_and_the_build_are_told_by_info_metrics() throws Exception {
        byte[] manifest = Files.readAllBytes(dir.resolve(ManifestReader.FILE));
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(manifest)).substring(0, 12);
        Scrape s = scrape();
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
        String body = scrape().body.toLowerCase(Locale.ROOT);
        for (String secret : new String[] {KEY, md5, "fox@", "fox%40", "/avatar/", "junk", "example.org"}) {
            assertFalse(body.contains(secret), secret + " in /metrics");
        }
        assertTrue(body.contains("route=\"gravatar\""));
    }

    @Test
    void metrics_are_only_on_their_own_listener() throws Exception {
        assertEquals(404, send("GET", avatar.resolve("/metrics")).statusCode());
        assertEquals(404, send("GET", metrics.resolve("/")).statusCode());
        assertEquals(404, send("GET", metrics.resolve("/healthz")).statusCode());
        assertEquals(404, send("GET", metrics.resolve("/metrics/")).statusCode());
        assertEquals(405, send("POST", metrics.resolve("/metrics")).statusCode());
        assertEquals(200, send("HEAD", metrics.resolve("/metrics")).statusCode());
    }
}
