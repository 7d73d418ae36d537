package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An answer without a body on a response already started, in a real server. Its whole answers (404, 405 with
 * {@code Allow}, 500) are checked where they are given: {@link PathsTest}, {@link GetOrHeadOnlyTest},
 * {@link PrivateErrorsTest}.
 */
class EmptyAnswerTest extends ServerOverHttp {
    @Test
    void a_response_already_started_is_only_ended_with_what_it_sent() throws Exception {
        // A handler that failed half-way through its answer: its status and first bytes have gone.
        CompletableFuture<String> after = new CompletableFuture<>();
        start(exchange -> {
            exchange.setStatusCode(200);
            exchange.getResponseChannel().write(ByteBuffer.wrap("half".getBytes(StandardCharsets.US_ASCII)));
            try {
                EmptyAnswer.INTERNAL_SERVER_ERROR.handleRequest(exchange);
                after.complete(exchange.isResponseComplete() ? "ended" : "left open");
            } catch (RuntimeException tooLate) {
                after.complete(tooLate.toString());
                throw tooLate;
            }
        });
        // Connection: close, so the body ends with the connection: "half", and no 500 after it.
        assertEquals("HTTP/1.1 200 OK\nConnection: close\n\nhalf", answer("GET", "/"));
        assertEquals("ended", after.get(5, TimeUnit.SECONDS), "set on the IO thread, maybe after the client read the end");
    }
}
