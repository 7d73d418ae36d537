package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A handler that fails after its answer started: the answer is only ended. The failure's {@code 500} and its
 * log line, on every path of the avatar port, are {@link RoutesTest}'s.
 */
class PrivateErrorsTest extends ServerOverHttp {
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
