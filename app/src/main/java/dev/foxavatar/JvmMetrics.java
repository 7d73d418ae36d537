package dev.foxavatar;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * The JVM and process metrics, read from the JVM's MXBeans and /proc at each scrape, under the names,
 * types, labels and units of the Prometheus Java client (1.x, {@code prometheus-metrics-instrumentation-jvm}),
 * so the stock JVM dashboards work unchanged. Left out (app/README.md): the per-pool allocation counters
 * (they need GC notification listeners), thread states and deadlock detection (thread dumps per scrape).
 * Needs the module java.management (app/jvm.options), not jdk.management: the process's figures come from
 * /proc/self and {@link ProcessHandle} (the JDK's OperatingSystemMXBean would load its cgroup code, about
 * 60 classes, for the same numbers), and the MXBeans are read directly, with no MBean server
 * ({@link NoMBeanServer}).
 */
final class JvmMetrics {
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans();
    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private final List<BufferPoolMXBean> buffers = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class);
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();
    private final CompilationMXBean compilation = ManagementFactory.getCompilationMXBean();
    private final RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();
    private final String runtimeInfo = "jvm_runtime_info{runtime=\"" + TextFormat.escape(System.getProperty("java.runtime.name", ""))
            + "\",vendor=\"" + TextFormat.escape(System.getProperty("java.vm.vendor", "")) + "\",version=\""
            + TextFormat.escape(System.getProperty("java.runtime.version", "")) + "\"} 1\n";

    void write(StringBuilder out) throws IOException {
        memoryAreas(out);
        memoryPools(out);
        TextFormat.family(out, "jvm_memory_objects_pending_finalization", "gauge",
                "The number of objects waiting in the finalizer queue.");
        TextFormat.sample(out, "jvm_memory_objects_pending_finalization", memory.getObjectPendingFinalizationCount());
        TextFormat.family(out, "jvm_gc_collection_seconds", "summary", "Time spent in a given JVM garbage collector in seconds.");
        for (GarbageCollectorMXBean gc : collectors) {
            TextFormat.sample(out, "jvm_gc_collection_seconds_count", "gc", gc.getName(), gc.getCollectionCount());
            TextFormat.sample(out, "jvm_gc_collection_seconds_sum", "gc", gc.getName(), gc.getCollectionTime() / 1e3);
        }
        pool(out, "jvm_buffer_pool_used_bytes", "Used bytes of a given JVM buffer pool.", BufferPoolMXBean::getMemoryUsed);
        pool(out, "jvm_buffer_pool_capacity_bytes", "Bytes capacity of a given JVM buffer pool.", BufferPoolMXBean::getTotalCapacity);
        pool(out, "jvm_buffer_pool_used_buffers", "Used buffers of a given JVM buffer pool.", BufferPoolMXBean::getCount);
        gauge(out, "jvm_threads_current", "Current thread count of a JVM", threads.getThreadCount());
        gauge(out, "jvm_threads_daemon", "Daemon thread count of a JVM", threads.getDaemonThreadCount());
        gauge(out, "jvm_threads_peak", "Peak thread count of a JVM", threads.getPeakThreadCount());
        counter(out, "jvm_threads_started_total", "Started thread count of a JVM", threads.getTotalStartedThreadCount());
        gauge(out, "jvm_classes_currently_loaded", "The number of classes that are currently loaded in the JVM",
                classes.getLoadedClassCount());
        counter(out, "jvm_classes_loaded_total",
                "The total number of classes that have been loaded since the JVM has started execution",
                classes.getTotalLoadedClassCount());
        counter(out, "jvm_classes_unloaded_total",
                "The total number of classes that have been unloaded since the JVM has started execution",
                classes.getUnloadedClassCount());
        if (compilation != null && compilation.isCompilationTimeMonitoringSupported()) {
            counter(out, "jvm_compilation_time_seconds_total", "The total time in seconds taken for HotSpot class compilation",
                    compilation.getTotalCompilationTime() / 1e3);
        }
        TextFormat.family(out, "jvm_runtime_info", "gauge", "JVM runtime info").append(runtimeInfo);
        process(out);
    }

    private void memoryAreas(StringBuilder out) {
        MemoryUsage heap = memory.getHeapMemoryUsage();
        MemoryUsage nonHeap = memory.getNonHeapMemoryUsage();
        String[][] families = {
            {"jvm_memory_used_bytes", "Used bytes of a given JVM memory area."},
            {"jvm_memory_committed_bytes", "Committed (bytes) of a given JVM memory area."},
            {"jvm_memory_max_bytes", "Max (bytes) of a given JVM memory area."},
            {"jvm_memory_init_bytes", "Initial bytes of a given JVM memory area."},
        };
        for (int i = 0; i < families.length; i++) {
            TextFormat.family(out, families[i][0], "gauge", families[i][1]);
            TextFormat.sample(out, families[i][0], "area", "heap", usage(heap, i));
            TextFormat.sample(out, families[i][0], "area", "nonheap", usage(nonHeap, i));
        }
    }

    private void memoryPools(StringBuilder out) {
        String[][] families = {
            {"jvm_memory_pool_used_bytes", "Used bytes of a given JVM memory pool."},
            {"jvm_memory_pool_committed_bytes", "Committed bytes of a given JVM memory pool."},
            {"jvm_memory_pool_max_bytes", "Max bytes of a given JVM memory pool."},
            {"jvm_memory_pool_init_bytes", "Initial bytes of a given JVM memory pool."},
            {"jvm_memory_pool_collection_used_bytes", "Used bytes after last collection of a given JVM memory pool."},
            {"jvm_memory_pool_collection_committed_bytes", "Committed after last collection bytes of a given JVM memory pool."},
            {"jvm_memory_pool_collection_max_bytes", "Max bytes after last collection of a given JVM memory pool."},
            {"jvm_memory_pool_collection_init_bytes", "Initial after last collection bytes of a given JVM memory pool."},
        };
        for (int i = 0; i < families.length; i++) {
            TextFormat.family(out, families[i][0], "gauge", families[i][1]);
            for (MemoryPoolMXBean pool : pools) {
                MemoryUsage u = i < 4 ? pool.getUsage() : pool.getCollectionUsage();
                if (u != null) {
                    TextFormat.sample(out, families[i][0], "pool", pool.getName(), usage(u, i % 4));
                }
            }
        }
    }

    /** used, committed, max, init: the order of the families above. */
    private static double usage(MemoryUsage u, int which) {
        return switch (which) {
            case 0 -> u.getUsed();
            case 1 -> u.getCommitted();
            case 2 -> u.getMax();
            default -> u.getInit();
        };
    }

    private void pool(StringBuilder out, String name, String help, ToLongFunction<BufferPoolMXBean> value) {
        TextFormat.family(out, name, "gauge", help);
        for (BufferPoolMXBean b : buffers) {
            TextFormat.sample(out, name, "pool", b.getName(), value.applyAsLong(b));
        }
    }

    private void process(StringBuilder out) throws IOException {
        Optional<Duration> cpu = ProcessHandle.current().info().totalCpuDuration();
        if (cpu.isPresent()) {
            counter(out, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                    cpu.get().toNanos() / 1e9);
        }
        gauge(out, "process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                runtime.getStartTime() / 1e3);
        Path fds = Path.of("/proc/self/fd");
        if (Files.isDirectory(fds)) {
            long open = -1; // the listing's own descriptor is one of them
            try (DirectoryStream<Path> all = Files.newDirectoryStream(fds)) {
                for (Path ignored : all) {
                    open++;
                }
            }
            gauge(out, "process_open_fds", "Number of open file descriptors.", open);
        }
        for (String line : lines("/proc/self/limits")) {
            if (line.startsWith("Max open files")) { // Max open files   1024   524288   files
                String limits = line.substring("Max open files".length()).trim();
                String soft = limits.substring(0, limits.indexOf(' '));
                gauge(out, "process_max_fds", "Maximum number of open file descriptors.",
                        "unlimited".equals(soft) ? Double.POSITIVE_INFINITY : Double.parseDouble(soft));
            }
        }
        for (String line : lines("/proc/self/status")) {
            if (line.startsWith("VmSize:")) {
                gauge(out, "process_virtual_memory_bytes", "Virtual memory size in bytes.", kilobytes(line) * 1024);
            } else if (line.startsWith("VmRSS:")) {
                gauge(out, "process_resident_memory_bytes", "Resident memory size in bytes.", kilobytes(line) * 1024);
            }
        }
    }

    /** A /proc file's lines; none where there is no /proc (the families are then left out). */
    private static List<String> lines(String file) throws IOException {
        Path path = Path.of(file);
        return Files.isReadable(path) ? Files.readAllLines(path) : List.of();
    }

    /** {@code VmRSS:     52000 kB} -> 52000. */
    private static long kilobytes(String line) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).replace("kB", "").trim());
    }

    private static void gauge(StringBuilder out, String name, String help, double value) {
        TextFormat.family(out, name, "gauge", help);
        TextFormat.sample(out, name, value);
    }

    private static void counter(StringBuilder out, String name, String help, double value) {
        TextFormat.family(out, name, "counter", help);
        TextFormat.sample(out, name, value);
    }
}
