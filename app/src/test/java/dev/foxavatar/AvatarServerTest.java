package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.undertow.server.HttpHandler;
import io.undertow.util.Headers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The real server on an ephemeral port, spoken to over real HTTP. */
class AvatarServerTest {
    private static final int FOXES = 21;
    static final String CHROMIUM = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
    static final String OLD_SAFARI = "image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5";

    @TempDir
    Path dir;

    private AvatarServer server;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private URI start(String baseUrl) throws Exception {
        TestImages.create(dir, FOXES);
        return startOnExistingImages(baseUrl);
    }

    /** A fresh server (its own manifest read, handler, table and Undertow) on the images already in dir. */
    private URI startOnExistingImages(String baseUrl) throws Exception {
        Settings settings = new Settings(0, "127.0.0.1", dir, baseUrl, 2);
        ImageManifest manifest = ImageManifest.load(dir);
        return start(settings, new Routes(
                new AvatarRedirectHandler(settings.locationPrefix(), manifest), new HealthHandler()));
    }

    private URI start(Settings settings, HttpHandler routes) {
        server = new AvatarServer(settings, routes);
        server.start();
        return URI.create("http://127.0.0.1:" + server.port());
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.stopGracefully(1000);
        }
    }

    private HttpResponse<String> send(String method, URI uri, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(10));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElseThrow(() -> new AssertionError("no " + name));
    }

    /** The Location, checked to be one of the fixture's image paths: groups fox, size, format. */
    private static Matcher location(HttpResponse<?> response, String prefix) {
        String location = header(response, "Location");
        Matcher m = Pattern.compile(Pattern.quote(prefix) + TestImages.LOCATION).matcher(location);
        assertTrue(m.matches(), location);
        return m;
    }

    private static Matcher location(HttpResponse<?> response) {
        return location(response, "/");
    }

    private static int fox(HttpResponse<?> response) {
        return Integer.parseInt(location(response).group(1));
    }

    @Test
    void avatar_path_redirects_to_a_256_px_png_with_no_store_and_vary_accept() throws Exception {
        HttpResponse<String> r = send("GET", start("").resolve("/"));
        assertEquals(302, r.statusCode());
        Matcher m = location(r);
        assertEquals("256", m.group(2));
        assertEquals("png", m.group(3), "no Accept header: png");
        assertTrue(dir.resolve(header(r, "Location").substring(1)).toFile().isFile(), "names a file of the set");
        assertEquals("no-store", header(r, "Cache-Control"));
        assertEquals("Accept", header(r, "Vary"));
        assertEquals("", r.body());
        assertEquals("0", header(r, "Content-Length"));
    }

    @Test
    void head_answers_like_get_without_a_body() throws Exception {
        URI base = start("");
        HttpResponse<String> keyed = send("HEAD", base.resolve("/?u=abc&s=64"), "Accept", CHROMIUM);
        HttpResponse<String> keyedGet = send("GET", base.resolve("/?u=abc&s=64"), "Accept", CHROMIUM);
        assertEquals(302, keyed.statusCode());
        assertEquals(header(keyedGet, "Location"), header(keyed, "Location"));
        assertEquals("public, max-age=3600", header(keyed, "Cache-Control"));
        assertEquals("Accept", header(keyed, "Vary"));
        assertEquals("", keyed.body());
        HttpResponse<String> r = send("HEAD", base.resolve("/"));
        assertEquals(302, r.statusCode());
        location(r);
        assertEquals("no-store", header(r, "Cache-Control"));
        assertEquals("", r.body());
    }

    @ParameterizedTest(name = "{0} -> {1} px")
    @CsvSource({
        "/, 256",
        "/?s=64, 64",
        "/?size=64, 64",
        "/?S=64, 64",
        "/?SIZE=96, 96",
        "/?s=&size=64, 64",
        "/?s=64&s=128, 64",
        "/?s=64px, 256",
        "/?s=6.4, 256",
        "/?s=-5, 256",
        "/?s=0, 32",
        "/?s=1, 32",
        "/?s=0064, 64",
        "/?s=40, 48",
        "/?s=129, 192",
        "/?s=300, 256",
        "/?s=99999999999999999999, 256",
        "/?s=%36%34, 256",
        "/?s, 256",
        "/?s&size=64, 64",
        "/?v=2&foo=bar&s=64&x, 64",
        "/?s=32;u=x, 256",
    })
    void the_size_parameter_picks_the_rung(String target, int px) throws Exception {
        HttpResponse<String> r = send("GET", start("").resolve(target));
        assertEquals(302, r.statusCode());
        assertEquals(String.valueOf(px), location(r).group(2), target);
        assertEquals("no-store", header(r, "Cache-Control"), "no key in " + target);
    }

    @ParameterizedTest(name = "Accept {0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8|avif",
        "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5|avif",
        "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,"
                + "image/*;q=0.8,*/*;q=0.5|avif",
        "image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5|webp",
        "*/*|png",
        "image/avif;q=0,image/webp|webp",
    })
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
    void a_key_picks_the_fox_nginx_split_clients_picks() throws Exception {
        URI base = start("");
        int checked = 0;
        for (String[] row : AvatarQueryTest.vectors("murmur2-nginx.tsv")) {
            String key = row[0];
            if (!key.matches("[A-Za-z0-9._~@=!$'()*+,;:-]{1,128}")) {
                continue; // kept to what HttpClient's URI accepts raw; the pure tests cover the rest
            }
            HttpResponse<String> r = send("GET", base.resolve("/?u=" + key));
            assertEquals(Integer.parseInt(row[2]), fox(r), "key " + key);
            assertEquals("public, max-age=3600", header(r, "Cache-Control"));
            checked++;
        }
        assertTrue(checked > 40, "keys checked: " + checked);
    }

    @Test
    void the_same_key_gets_the_same_location_from_two_separately_started_servers() throws Exception {
        URI first = start("");
        List<String> targets = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            targets.add("/?u=user" + i + "%40example.org&s=" + (16 + 4 * i));
        }
        Map<String, String> before = new LinkedHashMap<>();
        for (String t : targets) {
            before.put(t, header(send("GET", first.resolve(t), "Accept", CHROMIUM), "Location"));
        }
        server.stopGracefully(1000);
        server = null;
        URI second = startOnExistingImages("");
        assertNotEquals(first.getPort(), second.getPort(), "a second listener, not the first one again");
        for (String t : targets) {
            assertEquals(before.get(t), header(send("GET", second.resolve(t), "Accept", CHROMIUM), "Location"), t);
        }
        assertTrue(before.values().stream().distinct().count() > 30, "different keys spread over foxes and sizes");
    }

    @Test
    void the_key_is_the_raw_query_text_not_percent_decoded() throws Exception {
        URI base = start("");
        // nginx's own vectors: hello@example.com is fox 19 of 21, hello%40example.com fox 20.
        assertEquals(19, fox(send("GET", base.resolve("/?u=hello@example.com"))));
        assertEquals(20, fox(send("GET", base.resolve("/?u=hello%40example.com"))));
        int decoded = new KeyedFox(FOXES).index(Murmur2.hash("a@b", 0, 3)) + 1;
        int raw = new KeyedFox(FOXES).index(Murmur2.hash("a%40b", 0, 5)) + 1;
        assertEquals(decoded, fox(send("GET", base.resolve("/?u=a@b"))));
        assertEquals(raw, fox(send("GET", base.resolve("/?u=a%40b"))));
    }

    @Test
    void the_size_is_read_from_the_raw_query_so_encoded_digits_are_not_a_size() throws Exception {
        HttpResponse<String> r = send("GET", start("").resolve("/?s=%36%34"));
        assertEquals("256", location(r).group(2));
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

    /** The answer's head to a request sent byte for byte (for what HttpClient would encode first). */
    private String rawHead(String target) throws IOException {
        byte[] request = ("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        return raw(server.port(), request, 4096);
    }

    @Test
    void a_key_with_raw_non_ascii_bytes_or_control_characters_is_no_key() throws Exception {
        start("");
        // UTF-8 and Latin-1 bytes, and a control character: nginx reads all as no key (or refuses the last).
        for (String target : List.of("/?u=caf\u00c3\u00a9", "/?u=caf\u00e9", "/?u=a\u0001b")) {
            String head = rawHead(target);
            assertTrue(head.startsWith("HTTP/1.1 302 "), target + " -> " + head);
            assertTrue(head.contains("Cache-Control: no-store\r\n"), target + " -> " + head);
        }
    }

    @Test
    void characters_browsers_send_raw_in_a_query_make_a_key_not_a_400() throws Exception {
        start("");
        // WHATWG URL leaves { | } ^ \ ` unencoded in a query (Chromium sends them as they are); nginx's
        // $arg_u takes them, so the sidecar must too.
        String key = "{a|b}^\\c`";
        String head = rawHead("/?s=64&u=" + key);
        assertTrue(head.startsWith("HTTP/1.1 302 "), head);
        assertTrue(head.contains("Cache-Control: public, max-age=3600\r\n"), head);
        int fox = new KeyedFox(FOXES).index(Murmur2.hash(key, 0, key.length())) + 1;
        assertTrue(head.contains("Location: /a/Renard-" + fox + "-64."), fox + ": " + head);
    }

    @Test
    void location_is_absolute_when_a_base_url_is_set() throws Exception {
        URI base = start("https://cdn.example/foxes");
        HttpResponse<String> r = send("GET", base.resolve("/?s=64&u=abc"), "Accept", CHROMIUM);
        assertEquals(302, r.statusCode());
        Matcher m = location(r, "https://cdn.example/foxes/");
        assertEquals("64", m.group(2));
        assertEquals("avif", m.group(3));
    }

    @Test
    void other_methods_get_405_with_allow() throws Exception {
        URI base = start("");
        for (String method : List.of("POST", "PUT", "DELETE", "OPTIONS", "PATCH")) {
            HttpResponse<String> r = send(method, base.resolve("/"));
            assertEquals(405, r.statusCode(), method);
            assertEquals("GET, HEAD", r.headers().firstValue("Allow").orElseThrow(), method);
        }
    }

    @Test
    void health_path_answers_200_ok_every_time() throws Exception {
        URI base = start("");
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = send("GET", base.resolve("/healthz"));
            assertEquals(200, r.statusCode());
            assertEquals("ok\n", r.body());
        }
    }

    @Test
    void other_paths_get_404() throws Exception {
        URI base = start("");
        for (String path : List.of("/Renard-1.png", "/index.html", "/healthz/", "/a/b", "/favicon.ico", "/a/")) {
            assertEquals(404, send("GET", base.resolve(path)).statusCode(), path);
        }
    }

    @Test
    void every_fox_is_reached_without_a_key_and_the_choice_is_plausibly_uniform() throws Exception {
        URI avatar = start("").resolve("/");
        int draws = FOXES * 300;
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < draws; i++) {
            counts.merge(fox(send("GET", avatar)), 1, Integer::sum);
        }
        assertEquals(FOXES, counts.size(), "every fox reached: " + counts.keySet());
        double expected = (double) draws / FOXES;
        double chiSquare = counts.values().stream().mapToDouble(c -> (c - expected) * (c - expected) / expected).sum();
        // 20 degrees of freedom: P(chi2 > 80) is about 1e-8 for a uniform choice, so this never flakes,
        // while a choice skewed towards a few foxes (or stuck on one) lands far above it.
        assertTrue(chiSquare < 80, "chi-square " + chiSquare + " for " + counts);
    }

    @Test
    void keys_spread_over_every_fox() throws Exception {
        URI base = start("");
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < FOXES * 30; i++) {
            counts.merge(fox(send("GET", base.resolve("/?u=key-" + i))), 1, Integer::sum);
        }
        assertEquals(FOXES, counts.size(), "every fox reached by some key: " + counts);
    }

    @Test
    void many_concurrent_clients_all_get_redirects() throws Exception {
        URI avatar = start("").resolve("/");
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int c = 0; c < 32; c++) {
                results.add(pool.submit(() -> {
                    HttpClient own = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                    int ok = 0;
                    for (int i = 0; i < 100; i++) {
                        HttpResponse<Void> r = own.send(HttpRequest.newBuilder(avatar).build(),
                                HttpResponse.BodyHandlers.discarding());
                        ok += r.statusCode() == 302 ? 1 : 0;
                    }
                    return ok;
                }));
            }
            for (Future<Integer> f : results) {
                assertEquals(100, f.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static String raw(int port, byte[] request) throws IOException {
        return raw(port, request, 12);
    }

    /** Sends bytes as they are and returns up to {@code limit} bytes of the answer. */
    private static String raw(int port, byte[] request, int limit) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] head = in.readNBytes(limit);
            return new String(head, StandardCharsets.US_ASCII);
        }
    }

    @Test
    void oversized_request_headers_get_a_4xx() throws Exception {
        start("");
        String big = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(AvatarServer.MAX_HEADER_SIZE + 100)
                + "\r\n\r\n";
        String status = raw(server.port(), big.getBytes(StandardCharsets.US_ASCII));
        assertTrue(status.matches("HTTP/1\\.1 4\\d\\d"), status);
    }

    @Test
    void too_many_headers_get_a_4xx() throws Exception {
        start("");
        StringBuilder req = new StringBuilder("GET / HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < AvatarServer.MAX_HEADERS + 10; i++) {
            req.append("X-H").append(i).append(": v\r\n");
        }
        String status = raw(server.port(), req.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
        assertTrue(status.matches("HTTP/1\\.1 4\\d\\d"), status);
    }

    @Test
    void malformed_request_lines_get_a_400_and_the_server_keeps_serving() throws Exception {
        URI base = start("");
        for (String bad : List.of("GARBAGE\r\n\r\n", "GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET / HTTP/1.1\r\nBad Header\r\n\r\n")) {
            String status = raw(server.port(), bad.getBytes(StandardCharsets.ISO_8859_1));
            assertTrue(status.matches("HTTP/1\\.1 4\\d\\d") || status.isEmpty(), bad + " -> " + status);
        }
        assertEquals(302, send("GET", base.resolve("/")).statusCode());
    }

    @Test
    void a_graceful_stop_finishes_the_request_in_flight_then_refuses_connections() throws Exception {
        TestImages.create(dir, 1);
        CountDownLatch inFlight = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // A slow request, dispatched off the IO thread, stands for any request caught by the stop.
        HttpHandler slow = exchange -> exchange.dispatch(() -> {
            inFlight.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/plain");
            exchange.getResponseSender().send("done");
        });
        URI base = start(new Settings(0, "127.0.0.1", dir, "", 1), slow);
        int port = server.port();
        var pending = client.sendAsync(HttpRequest.newBuilder(base.resolve("/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(inFlight.await(10, TimeUnit.SECONDS));

        ExecutorService stopper = Executors.newSingleThreadExecutor();
        Future<Boolean> stopped = stopper.submit(() -> server.stopGracefully(10_000));
        Thread.sleep(200);
        assertFalse(stopped.isDone(), "the stop waits for the request in flight");
        release.countDown();

        HttpResponse<String> r = pending.get(10, TimeUnit.SECONDS);
        assertEquals(200, r.statusCode());
        assertEquals("done", r.body());
        assertTrue(stopped.get(10, TimeUnit.SECONDS), "drained in time");
        stopper.shutdown();
        server = null;
        boolean refused;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            refused = false;
        } catch (ConnectException e) {
            refused = true;
        }
        assertTrue(refused, "no longer accepting");
    }
}
