package dev.foxavatar;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;

/**
 * What the avatar port counts, for {@code /metrics}: requests by route, status and format, their latency by
 * route, and the size rung of each redirect. Every label value is one of a fixed set known at start (the
 * routes, the manifest's formats and rungs, HTTP statuses), never a key, hash, path or client: the series
 * are bounded. Every data point a request can touch is looked up here once (at start, or the first time an
 * unusual status appears), so {@link #record} allocates nothing. {@link #OFF} records nothing.
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
    /** Latency buckets in seconds: 25 µs to 100 ms (the service answers in tens of microseconds). */
    static final double[] LATENCY_BUCKETS = {
        0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
    };
    private static final int MIN_STATUS = 100;
    private static final int STATUSES = 500;

    /** Records nothing: the avatar port when {@code --metrics-port off}. */
    public static final RequestMetrics OFF = new RequestMetrics();

    private final Counter requests;
    private final String[] formatNames;
    private final String[] statusNames;
    /** [route][format + 1][status - 100], filled at start for the usual answers and on first use otherwise. */
    private final CounterDataPoint[][][] counted;
    private final DistributionDataPoint[] latency;
    private final CounterDataPoint[] bySize;

    private RequestMetrics() {
        requests = null;
        formatNames = null;
        statusNames = null;
        counted = null;
        latency = null;
        bySize = null;
    }

    /** Registers the service's own metrics for this image set in {@code registry}. */
    public RequestMetrics(PrometheusRegistry registry, ImageManifest images, String manifestDigest) {
        List<ImageManifest.Format> formats = images.formats();
        formatNames = new String[formats.size() + 1];
        formatNames[0] = "none";
        for (int f = 0; f < formats.size(); f++) {
            formatNames[f + 1] = formats.get(f).extension();
        }
        statusNames = new String[STATUSES];
        for (int s = 0; s < STATUSES; s++) {
            statusNames[s] = Integer.toString(MIN_STATUS + s);
        }
        requests = Counter.builder().name("fox_avatar_requests_total")
                .help("Requests answered by the sidecar, by route, HTTP status and image format chosen")
                .labelNames("route", "status", "format").withoutExemplars().register(registry);
        counted = new CounterDataPoint[ROUTES.size()][formatNames.length][];
        for (int r = 0; r < ROUTES.size(); r++) {
            for (int f = 0; f < formatNames.length; f++) {
                counted[r][f] = new CounterDataPoint[STATUSES];
            }
        }
        // The answers every deployment gives, present (at 0) from the first scrape, so that rate() sees them start.
        for (int r = RANDOM; r <= GRAVATAR; r++) {
            for (int f = 0; f < formats.size(); f++) {
                point(r, 302, f);
            }
        }
        point(HEALTH, 200, NO_FORMAT);
        point(OTHER, 404, NO_FORMAT);

        Histogram duration = Histogram.builder().name("fox_avatar_request_duration_seconds")
                .help("Time from the request's first byte to the answer, by route")
                .labelNames("route").classicOnly().classicUpperBounds(LATENCY_BUCKETS).withoutExemplars()
                .register(registry);
        latency = new DistributionDataPoint[ROUTES.size()];
        for (int r = 0; r < ROUTES.size(); r++) {
            latency[r] = duration.labelValues(ROUTES.get(r));
        }
        Counter sizes = Counter.builder().name("fox_avatar_responses_by_size_total")
                .help("Redirects to an image, by the size rung served (pixels)")
                .labelNames("size").withoutExemplars().register(registry);
        int[] rungs = images.sizes();
        bySize = new CounterDataPoint[rungs.length];
        for (int s = 0; s < rungs.length; s++) {
            bySize[s] = sizes.labelValues(Integer.toString(rungs[s]));
        }
        Info imageSet = Info.builder().name("fox_avatar_image_set_info")
                .help("The image set served: pictures, size rungs, and the first 12 hex digits of manifest.tsv's SHA-256")
                .labelNames("pictures", "rungs", "manifest_digest").register(registry);
        imageSet.setLabelValues(Integer.toString(images.foxes().length), Integer.toString(rungs.length), manifestDigest);
        Info build = Info.builder().name("fox_avatar_build_info")
                .help("The sidecar's version and the Java runtime it runs on")
                .labelNames("version", "java_version").register(registry);
        String version = RequestMetrics.class.getPackage().getImplementationVersion();
        build.setLabelValues(version == null ? "unknown" : version, System.getProperty("java.version"));
    }

    private CounterDataPoint point(int route, int status, int format) {
        CounterDataPoint[] byStatus = counted[route][format + 1];
        CounterDataPoint point = byStatus[status - MIN_STATUS];
        if (point == null) {
            // A race here only looks the same data point up twice: the counter keeps one per label set.
            point = requests.labelValues(ROUTES.get(route), statusNames[status - MIN_STATUS], formatNames[format + 1]);
            byStatus[status - MIN_STATUS] = point;
        }
        return point;
    }

    /**
     * One answered request.
     *
     * @param route one of {@link #RANDOM} .. {@link #OTHER}
     * @param format the manifest's format index, or {@link #NO_FORMAT}
     * @param size the size rung's index, or {@link #NO_SIZE}
     * @param startNanos {@link System#nanoTime()} when the request began (Undertow's request start time)
     */
    public void record(int route, int status, int format, int size, long startNanos) {
        if (counted == null) {
            return;
        }
        // -1: Undertow did not record the start (RECORD_REQUEST_START_TIME off): counted, with no duration.
        long elapsed = startNanos == -1 ? 0 : System.nanoTime() - startNanos;
        int clamped = status < MIN_STATUS || status >= MIN_STATUS + STATUSES ? 500 : status;
        point(route, clamped, format).inc();
        latency[route].observe(elapsed / 1e9);
        if (size != NO_SIZE) {
            bySize[size].inc();
        }
    }

    /** True when {@link #record} counts (the metrics listener is on). */
    public boolean on() {
        return counted != null;
    }
}
