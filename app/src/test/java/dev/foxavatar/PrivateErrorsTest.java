package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A failing handler, in a real server: the failure's answer ({@link EmptyAnswer}'s 500, or the end of an answer
 * already started), and one log line with the route, never the request.
 */
class PrivateErrorsTest extends ServerOverHttp {
    private static final String HASH = "8f14e45fceea167a5a36dedd4bea2543";

    @Test
    void an_exception_or_a_linkage_error_gets_the_failed_answer_and_one_line_naming_the_route_never_the_request()
            throws Exception {
        for (Throwable failure : List.of(new IllegalArgumentException("no picture for " + HASH), new NoClassDefFoundError(HASH))) {
            start(new PrivateErrors("/avatar/", exchange -> {
                if (failure instanceof Error error) {
                    throw error;
                }
                throw (Exception) failure;
            }, EmptyAnswer.INTERNAL_SERVER_ERROR));
            PrintStream err = System.err;
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            String answer;
            try {
                answer = answer("GET", "/avatar/" + HASH + "?u=" + HASH);
            } finally {
                System.setErr(err);
                server.stopGracefully(1000);
                server = null;
            }
            String log = captured.toString(StandardCharsets.UTF_8);
            assertEquals("HTTP/1.1 500 Internal Server Error\nConnection: close\nContent-Length: 0\n\n", answer);
            assertEquals(1, log.lines().count(), log);
            assertTrue(log.contains("request to /avatar/ failed: " + failure.getClass().getName() + " at dev.foxavatar."
                    + "PrivateErrorsTest."), log);
            assertFalse(log.contains(HASH), log);
        }
    }

    @Test
    void a_failure_after_the_answer_started_only_ends_what_was_sent() throws Exception {
        // A handler that failed half-way through its answer: its status and first bytes have gone.
        CompletableFuture<String> after = new CompletableFuture<>();
        start(new PrivateErrors("/", exchange -> {
            exchange.setStatusCode(200);
            exchange.getResponseChannel().write(ByteBuffer.wrap("half".getBytes(StandardCharsets.US_ASCII)));
            throw new IllegalStateException("half-way");
        }, exchange -> {
            EmptyAnswer.INTERNAL_SERVER_ERROR.handleRequest(exchange);
            after.complete(exchange.isResponseComplete() ? "ended" : "left open");
        }));
        // Connection: close, so the body ends with the connection: "half", and no 500 after it.
        assertEquals("HTTP/1.1 200 OK\nConnection: close\n\nhalf", answer("GET", "/"));
        assertEquals("ended", after.get(5, TimeUnit.SECONDS), "set on the IO thread, maybe after the client read the end");
    }
}
