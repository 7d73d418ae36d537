package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Counting a request (counter, histogram, size rung) allocates nothing: every data point is looked up at start. */
class RequestMetricsAllocationTest {
    @TempDir
    Path dir;

    private static final int[] STATUSES = {302, 200, 404, 405, 302, 500};

    @Test
    void counting_a_request_allocates_nothing() throws Exception {
        TestImages.create(dir, 3);
        PrometheusRegistry registry = new PrometheusRegistry();
        RequestMetrics metrics = new RequestMetrics(registry, ImageManifest.load(dir), "0123456789ab");
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        rounds(metrics, 200_000);
        long before = threads.getThreadAllocatedBytes(id);
        rounds(metrics, 200_000);
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertTrue(allocated < 4096, allocated + " bytes allocated for 200,000 counted requests");
        assertEquals(400_000, registry.scrape().stream()
                .filter(s -> s.getMetadata().getPrometheusName().equals("fox_avatar_requests"))
                .flatMap(s -> s.getDataPoints().stream())
                .mapToDouble(p -> ((io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot) p)
                        .getValue()).sum());
    }

    private static void rounds(RequestMetrics metrics, int n) {
        for (int i = 0; i < n; i++) {
            int status = STATUSES[i % STATUSES.length];
            boolean image = status == 302;
            metrics.record(i % 5, status, image ? i % 3 : RequestMetrics.NO_FORMAT,
                    image ? i % 9 : RequestMetrics.NO_SIZE, System.nanoTime());
        }
    }
}
