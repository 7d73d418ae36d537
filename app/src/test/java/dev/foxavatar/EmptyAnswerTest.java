package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.undertow.server.HttpHandler;
import io.undertow.util.HttpString;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The answers without a body (404, 405, 500), in a real server: status, Content-Length: 0, nothing else. */
class EmptyAnswerTest extends ServerOverHttp {
    private void startWith(HttpHandler handler) {
        start(new Settings(0, "127.0.0.1", dir, "", 1), handler);
    }

    @Test
    void the_answer_is_its_status_and_content_length_0_for_get_and_head() throws Exception {
        startWith(EmptyAnswer.NOT_FOUND);
        assertEquals("HTTP/1.1 404 Not Found\nConnection: close\nContent-Length: 0\n\n", answer("GET", "/x"));
        assertEquals("HTTP/1.1 404 Not Found\nConnection: close\nContent-Length: 0\n\n", answer("HEAD", "/x"));
    }

    @Test
    void the_500_is_as_empty() throws Exception {
        startWith(EmptyAnswer.INTERNAL_SERVER_ERROR);
        assertEquals("HTTP/1.1 500 Internal Server Error\nConnection: close\nContent-Length: 0\n\n", answer("GET", "/"));
    }

    @Test
    void one_more_header_is_sent_as_given() throws Exception {
        startWith(new EmptyAnswer(503, new HttpString("Retry-After"), "120"));
        assertEquals("HTTP/1.1 503 Service Unavailable\nConnection: close\nContent-Length: 0\nRetry-After: 120\n\n",
                answer("GET", "/"));
    }

    @Test
    void a_response_already_started_is_only_ended_with_what_it_sent() throws Exception {
        // A handler that failed half-way through its answer: its status and first bytes have gone.
        CompletableFuture<String> after = new CompletableFuture<>();
        startWith(exchange -> {
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
