package dev.foxavatar;

import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the avatar port counts, for {@code /metrics}: requests by route, status and format, their latency by
 * route, and the size rung of each redirect, plus the image set's and the build's info. Every label value
 * is one of a fixed set known at start (the routes, the manifest's formats and rungs, HTTP statuses), never
 * a key, hash, path or client: the series are bounded. The counts are slots of arrays sized at start, so
 * {@link #record} allocates nothing; a scrape reads them ({@link #write}). {@link #OFF} records nothing.
 */
public class RequestMetrics {
    public static final int RANDOM = 0;
    public static final int KEYED = 1;
    public static final int GRAVATAR = 2;
    public static final int HEALTH = 3;
    public static final int OTHER = 4;
    /** The {@code route} label's values, by the constants above. */
    static final List<String> ROUTES = List.of("random", "keyed", "gravatar", "health", "other");
    /** A request answered without an image: {@code format="none"}, and no size rung. */
    public static final int NO_FORMAT = -1;
    public static final int NO_SIZE = -1;
    /** Latency buckets, upper bounds in seconds: 25 µs to 100 ms (the service answers in tens of microseconds). */
    static final double[] LATENCY_BUCKETS = {
        0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
    };
    private static final int MIN_STATUS = 100;
    private static final int STATUSES = 500;

    /** Records nothing: the avatar port when {@code --metrics-port off}. */
    public static final RequestMetrics OFF = new RequestMetrics();

    private final String[] formatNames;
    private final String[] bucketNames;
    private final long[] bucketNanos;
    private final int[] rungs;
    private final String infoLines;
    /** [route][format + 1][status - 100], one slot each. */
    private final AtomicLongArray requests;
    /** [route][bucket], per bucket (not cumulative: the scrape adds them up); the last one is +Inf. */
    private final AtomicLongArray buckets;
    private final AtomicLongArray nanosByRoute;
    private final AtomicLongArray bySize;

    private RequestMetrics() {
        formatNames = bucketNames = null;
        bucketNanos = null;
        rungs = null;
        infoLines = null;
        requests = buckets = nanosByRoute = bySize = null;
    }

    /** The counts for this image set; {@code manifestDigest} names it in {@code fox_avatar_image_set_info}. */
    public RequestMetrics(ImageManifest images, String manifestDigest) {
        List<ImageManifest.Format> formats = images.formats();
        // A drawn set's identities add "svg" (AvatarRedirectHandler counts their SVG answers under it).
        formatNames = new String[formats.size() + (images.variants() == null ? 1 : 2)];
        formatNames[0] = "none";
        for (int f = 0; f < formats.size(); f++) {
            formatNames[f + 1] = formats.get(f).extension();
        }
        if (images.variants() != null) {
            formatNames[formats.size() + 1] = "svg";
        }
        bucketNanos = new long[LATENCY_BUCKETS.length];
        bucketNames = new String[LATENCY_BUCKETS.length + 1];
        for (int b = 0; b < LATENCY_BUCKETS.length; b++) {
            bucketNanos[b] = Math.round(LATENCY_BUCKETS[b] * 1e9);
            bucketNames[b] = Double.toString(LATENCY_BUCKETS[b]);
        }
        bucketNames[LATENCY_BUCKETS.length] = "+Inf";
        rungs = images.sizes();
        requests = new AtomicLongArray(ROUTES.size() * formatNames.length * STATUSES);
        buckets = new AtomicLongArray(ROUTES.size() * bucketNames.length);
        nanosByRoute = new AtomicLongArray(ROUTES.size());
        bySize = new AtomicLongArray(rungs.length);
        String version = RequestMetrics.class.getPackage().getImplementationVersion();
        StringBuilder info = new StringBuilder();
        TextFormat.family(info, "fox_avatar_image_set_info", "gauge",
                "The image set served: pictures, size rungs, the first 12 hex digits of manifest.tsv's SHA-256.");
        info.append("fox_avatar_image_set_info{pictures=\"").append(images.foxes().length).append("\",rungs=\"")
                .append(rungs.length).append("\",manifest_digest=\"").append(TextFormat.escape(manifestDigest))
                .append("\"} 1\n");
        TextFormat.family(info, "fox_avatar_build_info", "gauge", "The sidecar's version and the Java runtime it runs on.");
        info.append("fox_avatar_build_info{version=\"").append(TextFormat.escape(version == null ? "unknown" : version))
                .append("\",java_version=\"").append(TextFormat.escape(System.getProperty("java.version"))).append("\"} 1\n");
        infoLines = info.toString();
    }

    /**
     * One answered request.
     *
     * @param route one of {@link #RANDOM} .. {@link #OTHER}
     * @param format the manifest's format index, or {@link #NO_FORMAT}
     * @param size the size rung's index, or {@link #NO_SIZE}
     * @param startNanos {@link System#nanoTime()} when the request began (Undertow's request start time;
     *     -1 when Undertow did not record it: counted, with no duration)
     */
    public void record(int route, int status, int format, int size, long startNanos) {
        if (requests == null) {
            return;
        }
        long elapsed = startNanos == -1 ? 0 : System.nanoTime() - startNanos;
        int s = status < MIN_STATUS || status >= MIN_STATUS + STATUSES ? 500 - MIN_STATUS : status - MIN_STATUS;
        requests.incrementAndGet((route * formatNames.length + format + 1) * STATUSES + s);
        int b = 0;
        while (b < bucketNanos.length && elapsed > bucketNanos[b]) {
            b++;
        }
        buckets.incrementAndGet(route * bucketNames.length + b);
        nanosByRoute.addAndGet(route, elapsed);
        if (size != NO_SIZE) {
            bySize.incrementAndGet(size);
        }
    }

    /**
     * The families in text format. A request counter appears from its first count, except the answers every
     * deployment gives (each route's 302 in each format, health's 200, other's 404): present at 0 from the
     * first scrape, so that rate() sees them start.
     */
    void write(StringBuilder out) {
        TextFormat.family(out, "fox_avatar_requests_total", "counter",
                "Requests answered by the sidecar, by route, HTTP status and image format chosen.");
        for (int r = 0; r < ROUTES.size(); r++) {
            for (int f = 0; f < formatNames.length; f++) {
                for (int s = 0; s < STATUSES; s++) {
                    long n = requests.get((r * formatNames.length + f) * STATUSES + s);
                    if (n > 0 || usual(r, f, s + MIN_STATUS)) {
                        out.append("fox_avatar_requests_total{route=\"").append(ROUTES.get(r)).append("\",status=\"")
                                .append(s + MIN_STATUS).append("\",format=\"").append(formatNames[f]).append("\"} ")
                                .append(n).append('\n');
                    }
                }
            }
        }
        String histogram = "fox_avatar_request_duration_seconds";
        TextFormat.family(out, histogram, "histogram", "Time from the request's start to its answer, by route.");
        for (int r = 0; r < ROUTES.size(); r++) {
            long cumulative = 0;
            for (int b = 0; b < bucketNames.length; b++) {
                cumulative += buckets.get(r * bucketNames.length + b);
                out.append(histogram).append("_bucket{route=\"").append(ROUTES.get(r)).append("\",le=\"")
                        .append(bucketNames[b]).append("\"} ").append(cumulative).append('\n');
            }
            out.append(histogram).append("_count{route=\"").append(ROUTES.get(r)).append("\"} ").append(cumulative).append('\n');
            TextFormat.sample(out, histogram + "_sum", "route", ROUTES.get(r), nanosByRoute.get(r) / 1e9);
        }
        TextFormat.family(out, "fox_avatar_responses_by_size_total", "counter",
                "Redirects to an image, by the size rung served (pixels).");
        for (int s = 0; s < rungs.length; s++) {
            TextFormat.sample(out, "fox_avatar_responses_by_size_total", "size", Integer.toString(rungs[s]), bySize.get(s));
        }
        out.append(infoLines);
    }

    private boolean usual(int route, int format, int status) {
        return route <= GRAVATAR ? status == 302 && format > 0
                : format == 0 && status == (route == HEALTH ? 200 : 404);
    }
}
