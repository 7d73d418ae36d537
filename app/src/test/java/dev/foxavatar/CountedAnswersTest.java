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

    private Scrape scrape() {
        StringBuilder text = new StringBuilder();
        metrics.write(text);
        return new Scrape(text.toString());
    }

    private double requestsCounted(Scrape s) {
        return s.body.lines().filter(l -> l.startsWith(REQUESTS + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void the_status_next_answered_is_counted_under_the_route_with_no_format_nor_size() throws Exception {
        start(new Settings(0, "127.0.0.1", dir, "", 1), new CountedAnswers(metrics, RequestMetrics.HEALTH,
                new GetOrHeadOnly(exchange -> exchange.getResponseSender().send("ok"))));
        Scrape before = scrape();
        answer("GET", "/");
        answer("GET", "/");
        answer("POST", "/");
        Scrape after = scrape();
        assertEquals(2, after.delta(before, REQUESTS, "route=\"health\"", "status=\"200\"", "format=\"none\""));
        assertEquals(1, after.delta(before, REQUESTS, "route=\"health\"", "status=\"405\"", "format=\"none\""));
        assertEquals(3, after.delta(before, "fox_avatar_request_duration_seconds_count", "route=\"health\""));
        assertEquals(3, requestsCounted(after) - requestsCounted(before), "nothing else counted: " + after.body);
        assertEquals(0, after.body.lines().filter(l -> l.startsWith("fox_avatar_responses_by_size_total{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum(), "no size rung");
    }

    @Test
    void a_handler_that_throws_is_not_counted() throws Exception {
        start(new Settings(0, "127.0.0.1", dir, "", 1), new CountedAnswers(metrics, RequestMetrics.OTHER, exchange -> {
            throw new IllegalStateException("broken");
        }));
        Scrape before = scrape();
        assertEquals(500, Integer.parseInt(answer("GET", "/").substring(9, 12)), "Undertow's own 500");
        assertEquals(0, requestsCounted(scrape()) - requestsCounted(before));
    }
}
