package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.undertow.server.HttpHandler;
import io.undertow.util.Headers;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
/** The real server over real HTTP: methods, paths, limits, concurrency, the graceful stop. */
class AvatarServerTest extends ServerOverHttp {
    @Test
    void a_failing_handler_gives_500_and_logs_the_route_never_the_path_or_the_message() throws Exception {
        String hash = "8f14e45fceea167a5a36dedd4bea2543";
        HttpHandler failing = exchange -> {
            throw new IllegalStateException("broken for " + hash);
        };
        Settings settings = new Settings(0, "127.0.0.1", dir, "", 2);
        URI base = start(settings, Routes.avatarPort(failing, failing, failing, RequestMetrics.OFF));
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            for (String path : List.of("/?u=" + hash, "/avatar/" + hash)) {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(base.resolve(path)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(500, r.statusCode(), path);
            }
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertTrue(log.contains("request to / failed: java.lang.IllegalStateException at "), log);
        assertTrue(log.contains("request to /avatar/ failed: java.lang.IllegalStateException at "), log);
        assertFalse(log.contains(hash), log);
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
    void no_answer_carries_cors_or_security_headers_nginx_sends_them_once() throws Exception {
        // nginx/README.md "Headers on every answer": Nginx adds these to every answer, this service's too.
        URI base = start("");
        List<HttpResponse<String>> answers = List.of(send("GET", base.resolve("/?u=abc")),
                send("GET", base.resolve("/avatar/" + "0".repeat(32) + "?s=64")), send("POST", base.resolve("/")),
                send("OPTIONS", base.resolve("/avatar/x")), send("GET", base.resolve("/nope")));
        for (HttpResponse<String> r : answers) {
            for (String name : List.of("Access-Control-Allow-Origin", "Timing-Allow-Origin",
                    "Strict-Transport-Security", "X-Content-Type-Options")) {
                assertTrue(r.headers().firstValue(name).isEmpty(), r.statusCode() + ": " + name);
            }
        }
        assertEquals(List.of(302, 302, 405, 405, 404), answers.stream().map(HttpResponse::statusCode).toList());
    }

    @Test
    void a_redirect_on_a_kept_alive_connection_carries_no_connection_header() throws Exception {
        // The request as Nginx sends it over its keep-alive pool (nginx/fox-avatar/proxy.conf): HTTP/1.1,
        // no Connection header. HTTP/1.1 keeps the connection open without one, and Nginx drops it.
        start("");
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
            socket.setSoTimeout(5000);
            for (int i = 0; i < 2; i++) {   // the second answer proves the connection stayed open
                socket.getOutputStream().write("GET /?s=64 HTTP/1.1\r\nHost: avatar_app\r\nAccept: image/avif\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                StringBuilder head = new StringBuilder();
                while (head.indexOf("\r\n\r\n") < 0) {
                    int b = socket.getInputStream().read();
                    assertTrue(b >= 0, "closed after: " + head);
                    head.append((char) b);
                }
                assertTrue(head.toString().startsWith("HTTP/1.1 302 "), head.toString());
                assertFalse(head.toString().toLowerCase(java.util.Locale.ROOT).contains("\r\nconnection:"), head.toString());
            }
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
