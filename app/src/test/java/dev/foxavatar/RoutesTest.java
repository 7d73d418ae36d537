package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.undertow.server.HttpHandler;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The avatar port's chain, in a real server with handlers that all fail: GET and HEAD reach them, any other
 * method gets the 405 with {@code Allow}; every answer the router gives itself (404, 405, 500) is empty,
 * counted once under the route of its path, and each failure is logged under that path, never the request's.
 */
class RoutesTest extends ServerOverHttp {
    private static final String REQUESTS = "fox_avatar_requests_total";
    private static final String HASH = "8f14e45fceea167a5a36dedd4bea2543";

    @Test
    void each_path_counts_and_logs_its_405_and_its_500_under_its_route_and_every_other_path_its_404() throws Exception {
        TestImages.create(dir, 3);
        RequestMetrics metrics = new RequestMetrics(ManifestReader.read(dir), "0123456789ab");
        HttpHandler failing = exchange -> {
            if (exchange.getRequestPath().equals(Routes.HEALTH_PATH)) {
                throw new NoClassDefFoundError(HASH); // a linkage error is caught as well
            }
            throw new IllegalStateException("broken for " + exchange.getRequestPath());
        };
        start(Routes.avatarPort(failing, failing, failing, metrics));
        String[][] expected = {
            {"GET", "/?u=" + HASH, "500", "random"}, {"POST", "/", "405", "random"}, {"OPTIONS", "/", "405", "random"},
            {"GET", "/avatar/" + HASH, "500", "gravatar"}, {"DELETE", "/avatar/x", "405", "gravatar"},
            {"PATCH", "/avatar/x", "405", "gravatar"}, {"BREW", "/avatar/", "405", "gravatar"},
            {"HEAD", "/healthz", "500", "health"}, {"PUT", "/healthz", "405", "health"}, {"TRACE", "/healthz", "405", "health"},
            {"GET", "/metrics", "404", "other"}, {"POST", "/nope", "404", "other"},
        };
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            for (String[] request : expected) {
                String head = switch (request[2]) {
                    case "404" -> "404 Not Found\n";
                    case "405" -> "405 Method Not Allowed\nAllow: GET, HEAD\n";
                    default -> "500 Internal Server Error\n";
                };
                assertEquals("HTTP/1.1 " + head + "Connection: close\nContent-Length: 0\n\n", answer(request[0], request[1]),
                        request[0] + " " + request[1]);
            }
        } finally {
            System.setErr(err);
        }
        Scrape after = Scrape.whenCounted(metrics, expected.length);
        for (String[] request : expected) {
            String[] labels = {"route=\"" + request[3] + "\"", "status=\"" + request[2] + "\"", "format=\"none\""};
            long same = Arrays.stream(expected).filter(r -> r[2].equals(request[2]) && r[3].equals(request[3])).count();
            assertEquals(same, after.value(REQUESTS, labels), String.join(" ", request) + "\n" + after.body);
        }
        // A failure inside CountedAnswers (/healthz) is counted once, as its 500.
        assertEquals(expected.length, after.sum(REQUESTS), "nothing else counted: " + after.body);
        String log = captured.toString(StandardCharsets.UTF_8);
        assertEquals(3, log.lines().count(), "a line for each 500: " + log);
        assertTrue(log.contains("request to / failed: java.lang.IllegalStateException at dev.foxavatar.RoutesTest."), log);
        assertTrue(log.contains("request to /avatar/ failed: java.lang.IllegalStateException at "), log);
        assertTrue(log.contains("request to /healthz failed: java.lang.NoClassDefFoundError at "), log);
        assertFalse(log.contains(HASH) || log.contains("broken"), log);
    }
}
