package dev.foxavatar;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One /metrics body in Prometheus text format 0.0.4, read as series -> value (labels in name order). */
final class Scrape {
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? (\\S+)");
    private final Map<String, Double> values = new HashMap<>();
    final String body;

    Scrape(String body) {
        this.body = body;
        for (String line : body.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                throw new AssertionError("not a sample line: " + line);
            }
            values.put(series(m.group(1), m.group(2) == null ? new String[0] : m.group(2).split(",")),
                    Double.parseDouble(m.group(3)));
        }
    }

    /**
     * The scrape {@code body} gives once it holds {@code requests} counted requests in all (at most 5 s): an
     * answer is counted just after it is sent, so a client can read it before the count is made.
     */
    static Scrape whenCounted(Callable<String> body, double requests) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            Scrape s = new Scrape(body.call());
            if (s.sum("fox_avatar_requests_total") >= requests || System.nanoTime() > deadline) {
                return s;
            }
            Thread.sleep(10); // between polls
        }
    }

    /** {@link #whenCounted(Callable, double)} of what {@code metrics} writes. */
    static Scrape whenCounted(RequestMetrics metrics, double requests) throws Exception {
        return whenCounted(() -> {
            StringBuilder text = new StringBuilder();
            metrics.write(text);
            return text.toString();
        }, requests);
    }

    double sum(String name) {
        return body.lines().filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /** The series' key: {@code name{a="1",b="2"}} with the labels sorted, whatever order they came in. */
    static String series(String name, String... labels) {
        String[] sorted = labels.clone();
        Arrays.sort(sorted);
        return sorted.length == 0 ? name : name + "{" + String.join(",", sorted) + "}";
    }

    /** The sample's value, 0 when the series is absent (a counter not yet touched). */
    double value(String name, String... labels) {
        return values.getOrDefault(series(name, labels), 0.0);
    }
}
