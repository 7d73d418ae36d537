package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.undertow.server.HttpHandler;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The real server over real HTTP: the redirect's and health's heads, limits, concurrency, the graceful stop. */
class AvatarServerTest extends ServerOverHttp {
    @Test
    void a_redirect_is_four_headers_head_answers_as_get_the_connection_stays_open_and_health_is_ok() throws Exception {
        // The requests as Nginx sends them over its keep-alive pool (nginx/fox-avatar/proxy.conf): HTTP/1.1, no
        // Connection header. No Connection, Date, CORS or security header comes back: HTTP/1.1 keeps the
        // connection open without one, and Nginx writes its own Date and adds the rest (nginx/README.md).
        start("");
        String redirect = "Cache-Control: public, max-age=3600\nContent-Length: 0\nLocation: /a/Renard-\\d+-64\\.[0-9a-f]{10}"
                + "\\.avif\nVary: Accept";
        List<String> heads = new ArrayList<>();
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(5000);
            for (String method : List.of("GET", "HEAD", "GET")) {
                socket.getOutputStream().write((method + " /?s=64&u=abc HTTP/1.1\r\nHost: avatar_app\r\nAccept: image/avif\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                String head = sorted(readHead(socket.getInputStream()));
                assertTrue(head.matches("HTTP/1\\.1 302 Found\n" + redirect), method + ": " + head);
                heads.add(head);
            }
        }
        assertEquals(1, heads.stream().distinct().count(), "the same answer each time: " + heads);
        assertEquals("HTTP/1.1 200 OK\nCache-Control: no-store\nConnection: close\nContent-Length: 3\n"
                + "Content-Type: text/plain; charset=utf-8\n\nok\n", answer("GET", "/healthz"));
    }

    private static String readHead(InputStream in) throws Exception {
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            assertTrue(b >= 0, "closed after: " + head);
            head.append((char) b);
        }
        return head.substring(0, head.length() - 4);
    }

    @Test
    void many_concurrent_clients_all_get_redirects_to_every_fox_plausibly_uniformly_without_a_key() throws Exception {
        URI avatar = start("").resolve("/");
        ExecutorService pool = Executors.newFixedThreadPool(32);
        Map<Integer, Integer> counts = new ConcurrentHashMap<>();
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int c = 0; c < 32; c++) {
                clients.add(pool.submit(() -> {
                    HttpClient own = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                    for (int i = 0; i < 200; i++) {
                        HttpResponse<Void> r = own.send(HttpRequest.newBuilder(avatar).build(),
                                HttpResponse.BodyHandlers.discarding());
                        assertEquals(302, r.statusCode());
                        counts.merge(Integer.parseInt(location(r).group(1)), 1, Integer::sum);
                    }
                    return null;
                }));
            }
            for (Future<?> client : clients) {
                client.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(FOXES, counts.size(), "every fox reached: " + counts.keySet());
        double expected = 32 * 200.0 / FOXES;
        double chiSquare = counts.values().stream().mapToDouble(c -> (c - expected) * (c - expected) / expected).sum();
        // 20 degrees of freedom: P(chi2 > 80) is about 1e-8 for a uniform choice, so this never flakes,
        // while a choice skewed towards a few foxes (or stuck on one) lands far above it.
        assertTrue(chiSquare < 80, "chi-square " + chiSquare + " for " + counts);
    }

    @Test
    void oversized_too_many_or_malformed_request_heads_get_a_4xx_and_the_server_keeps_serving() throws Exception {
        URI base = start("");
        StringBuilder many = new StringBuilder("GET / HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < AvatarServer.MAX_HEADERS + 10; i++) {
            many.append("X-H").append(i).append(": v\r\n");
        }
        for (String bad : List.of("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(AvatarServer.MAX_HEADER_SIZE + 100)
                + "\r\n\r\n", many + "\r\n", "GARBAGE\r\n\r\n", "GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET / HTTP/1.1\r\nBad Header\r\n\r\n")) {
            String status = raw(server.port(), bad.getBytes(StandardCharsets.ISO_8859_1), 12);
            assertTrue(status.matches("HTTP/1\\.1 4\\d\\d") || status.isEmpty(), bad.lines().findFirst().orElse("") + " -> " + status);
        }
        assertEquals(302, send("GET", base.resolve("/")).statusCode());
    }

    @Test
    void a_graceful_stop_answers_new_requests_503_finishes_the_one_in_flight_then_refuses_connections() throws Exception {
        CountDownLatch inFlight = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // A slow request, dispatched off the IO thread, stands for any request caught by the stop.
        HttpHandler slowOrQuick = exchange -> {
            if (!exchange.getRequestPath().equals("/slow")) {
                exchange.getResponseSender().send("quick");
                return;
            }
            exchange.dispatch(() -> {
                inFlight.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                exchange.getResponseSender().send("done");
            });
        };
        URI base = start(slowOrQuick);
        int port = server.port();
        var pending = client.sendAsync(HttpRequest.newBuilder(base.resolve("/slow")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(inFlight.await(10, TimeUnit.SECONDS));

        ExecutorService stopper = Executors.newSingleThreadExecutor();
        Future<Boolean> stopped = stopper.submit(() -> server.stopGracefully(10_000));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (send("GET", base.resolve("/quick")).statusCode() != 503) {
            assertTrue(System.nanoTime() < deadline, "new requests still answered 10 s into the stop");
        }
        assertFalse(stopped.isDone(), "the stop waits for the request in flight");
        release.countDown();

        HttpResponse<String> r = pending.get(10, TimeUnit.SECONDS);
        assertEquals(200, r.statusCode());
        assertEquals("done", r.body());
        assertTrue(stopped.get(10, TimeUnit.SECONDS), "drained in time");
        stopper.shutdown();
        server = null;
        assertThrows(ConnectException.class, () -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            }
        }, "no longer accepting");
    }
}
