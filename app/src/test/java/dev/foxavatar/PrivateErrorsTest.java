package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.undertow.server.HttpHandler;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A failing handler, in a real server: the failure's answer, and one log line with the route, never the request. */
class PrivateErrorsTest extends ServerOverHttp {
    private static final String HASH = "8f14e45fceea167a5a36dedd4bea2543";

    private String logWhile(ThrowingRunnable requests) throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            requests.run();
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private void startGuarding(HttpHandler next) {
        start(new Settings(0, "127.0.0.1", dir, "", 1),
                new PrivateErrors("/avatar/", next, EmptyAnswer.INTERNAL_SERVER_ERROR));
    }

    @Test
    void a_failure_gets_the_failed_answer_and_a_line_naming_the_route_and_the_exception_never_the_request() throws Exception {
        startGuarding(exchange -> {
            throw new IllegalArgumentException("no picture for " + exchange.getRequestPath());
        });
        String[] answer = new String[1];
        String log = logWhile(() -> answer[0] = answer("GET", "/avatar/" + HASH + "?u=" + HASH));
        assertEquals("HTTP/1.1 500 Internal Server Error\nConnection: close\nContent-Length: 0\n\n", answer[0]);
        assertEquals(1, log.lines().count(), log);
        assertTrue(log.contains("request to /avatar/ failed: java.lang.IllegalArgumentException at dev.foxavatar."
                + "PrivateErrorsTest."), log);
        assertFalse(log.contains(HASH), log);
        assertFalse(log.contains("no picture"), log);
    }

    @Test
    void a_linkage_error_is_caught_as_well() throws Exception {
        startGuarding(exchange -> {
            throw new NoClassDefFoundError(HASH);
        });
        String[] answer = new String[1];
        String log = logWhile(() -> answer[0] = answer("GET", "/avatar/" + HASH));
        assertTrue(answer[0].startsWith("HTTP/1.1 500 "), answer[0]);
        assertTrue(log.contains("request to /avatar/ failed: java.lang.NoClassDefFoundError at "), log);
        assertFalse(log.contains(HASH), log);
    }

    @Test
    void an_answer_that_does_not_fail_passes_untouched_and_logs_nothing() throws Exception {
        startGuarding(exchange -> exchange.getResponseSender().send("fine"));
        String[] answer = new String[1];
        String log = logWhile(() -> answer[0] = answer("GET", "/avatar/" + HASH));
        assertEquals("HTTP/1.1 200 OK\nConnection: close\nContent-Length: 4\n\nfine", answer[0]);
        assertEquals("", log);
    }
}
