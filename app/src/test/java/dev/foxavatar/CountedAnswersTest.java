package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Counting the answers that carry no image, in a real server: the status the next handler gave, under one route. */
class CountedAnswersTest extends ServerOverHttp {
    private static final String REQUESTS = "fox_avatar_requests_total";

    private RequestMetrics metrics;

    @BeforeEach
    void metrics() throws Exception {
        TestImages.create(dir, 3);
        metrics = new RequestMetrics(ImageManifest.load(dir), "0123456789ab");
    }

    @Test
    void the_status_next_answered_is_counted_under_the_route_with_no_format_nor_size() throws Exception {
        start(new Settings(0, "127.0.0.1", dir, "", 1), new CountedAnswers(metrics, RequestMetrics.HEALTH,
                new GetOrHeadOnly(exchange -> exchange.getResponseSender().send("ok"))));
        answer("GET", "/");
        answer("GET", "/");
        answer("POST", "/");
        Scrape after = Scrape.whenCounted(metrics, 3);
        assertEquals(2, after.value(REQUESTS, "route=\"health\"", "status=\"200\"", "format=\"none\""));
        assertEquals(1, after.value(REQUESTS, "route=\"health\"", "status=\"405\"", "format=\"none\""));
        assertEquals(3, after.value("fox_avatar_request_duration_seconds_count", "route=\"health\""));
        assertEquals(3, after.sum(REQUESTS), "nothing else counted: " + after.body);
        assertEquals(0, after.sum("fox_avatar_responses_by_size_total"), "no size rung");
    }

    @Test
    void a_handler_that_throws_is_not_counted() throws Exception {
        start(new Settings(0, "127.0.0.1", dir, "", 1), new CountedAnswers(metrics, RequestMetrics.OTHER, exchange -> {
            throw new IllegalStateException("broken");
        }));
        assertEquals("500", answer("GET", "/").substring(9, 12), "Undertow's own 500");
        // Undertow answers the exception once it has left every handler: a count would have been made by then.
        assertEquals(0, Scrape.of(metrics).sum(REQUESTS));
    }
}
