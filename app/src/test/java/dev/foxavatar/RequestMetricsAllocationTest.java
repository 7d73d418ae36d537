package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        RequestMetrics metrics = new RequestMetrics(ImageManifest.load(dir), "0123456789ab");
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        rounds(metrics, 200_000);
        long before = threads.getThreadAllocatedBytes(id);
        rounds(metrics, 200_000);
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertTrue(allocated < 4096, allocated + " bytes allocated for 200,000 counted requests");
        StringBuilder text = new StringBuilder();
        metrics.write(text);
        assertEquals(400_000, text.toString().lines().filter(l -> l.startsWith("fox_avatar_requests_total{"))
                .mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum());
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
