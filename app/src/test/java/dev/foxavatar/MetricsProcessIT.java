package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metrics listener of the packaged jar, started as the deployments start it (java @jvm.options -jar). */
class MetricsProcessIT {
    private static final Path JAR = Path.of(System.getProperty("avatar.jar", "target/avatar.jar"));
    private static final Path JVM_OPTIONS = Path.of(System.getProperty("avatar.jvm.options", "jvm.options"));

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        started.forEach(Process::destroyForcibly);
    }

    private Process launch(Map<String, String> env, String... args) throws IOException {
        Path images = Files.createDirectories(dir.resolve("images"));
        TestImages.create(images, 3);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + JVM_OPTIONS.toAbsolutePath(), "-jar", JAR.toAbsolutePath().toString(),
                "--images", images.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("AVATAR_"));
        pb.environment().putAll(env);
        pb.redirectOutput(dir.resolve("stdout.log").toFile());
        pb.redirectError(dir.resolve("stderr.log").toFile());
        Process p = pb.start();
        started.add(p);
        return p;
    }

    private String stderr() throws IOException {
        return Files.readString(dir.resolve("stderr.log"), StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitHealthy(Process p, int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            assertTrue(p.isAlive(), "process died during start-up");
            try {
                if (get(port, "/healthz").statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("not healthy within 30 s");
    }

    /** The TCP ports the process listens on, from /proc (its socket inodes in LISTEN state). */
    private static Set<Integer> listeningPorts(Process p) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", String.valueOf(p.pid()), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String link = Files.readSymbolicLink(fd).toString();
                    if (link.startsWith("socket:[")) {
                        inodes.add(link.substring(8, link.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // not a socket any more
                }
            }
        }
        Set<Integer> ports = new HashSet<>();
        for (String table : new String[] {"tcp", "tcp6"}) {
            Path file = Path.of("/proc", String.valueOf(p.pid()), "net", table);
            List<String> lines = Files.readAllLines(file); // read once: the table changes under a busy machine
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f[3].equals("0A") && inodes.contains(f[9])) { // 0A: LISTEN
                    ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }

    /** The jar as deployed, its metrics listener on a port of its own, answering. */
    private record Running(Process process, int port, int metrics) {
    }

    private Running runningWithMetrics() throws Exception {
        int port = freePort();
        int metrics = freePort();
        Process p = launch(Map.of(), "--port", String.valueOf(port), "--metrics-port", String.valueOf(metrics));
        awaitHealthy(p, port);
        return new Running(p, port, metrics);
    }

    @Test
    void the_jar_as_deployed_exports_jvm_and_process_metrics_under_the_client_s_standard_names() throws Exception {
        Running running = runningWithMetrics();
        Process p = running.process();
        int port = running.port();
        int metrics = running.metrics();
        HttpResponse<String> r = get(metrics, "/metrics");
        assertEquals(200, r.statusCode(), stderr());
        Scrape s = new Scrape(r.body());
        for (String name : new String[] {"jvm_memory_used_bytes{area=\"heap\"}", "jvm_gc_collection_seconds_count{",
            "jvm_threads_current ", "jvm_classes_currently_loaded ", "process_resident_memory_bytes ",
            "process_cpu_seconds_total ", "process_start_time_seconds ", "fox_avatar_build_info{",
            "fox_avatar_requests_total{"}) {
            assertTrue(s.body.lines().anyMatch(l -> l.startsWith(name)), name + " missing:\n" + s.body);
        }
        assertTrue(s.value("process_resident_memory_bytes") > 10e6, "RSS read from /proc");
        assertEquals(Set.of(port, metrics), listeningPorts(p));
        assertTrue(stderr().contains("metrics on http://127.0.0.1:" + metrics + "/metrics"), stderr());
    }

    /**
     * Issue 36: XNIO registers its MBeans at start with no switch of its own; NoMBeanServer refuses it the
     * platform MBean server, so the JMX machinery (about 260 classes, 3 MB) never loads, while the JVM
     * metrics, read from the MXBeans directly, are all there. The loaded classes come from jcmd.
     */
    @Test
    void the_jar_as_deployed_builds_no_mbean_server_yet_exports_the_jvm_metrics() throws Exception {
        Running running = runningWithMetrics();
        Process p = running.process();
        Scrape s = new Scrape(get(running.metrics(), "/metrics").body());
        assertTrue(s.value("jvm_memory_pool_used_bytes", "pool=\"Metaspace\"") > 0, s.body);
        assertTrue(s.value("process_open_fds") > 0 && s.value("process_max_fds") > 0, s.body);
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(p.pid()), "VM.class_hierarchy").redirectErrorStream(true).start();
        String classes = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(jcmd.waitFor(60, TimeUnit.SECONDS) && classes.contains("org.xnio.nio.NioXnioWorker"), classes);
        assertTrue(classes.contains("sun.management.MemoryPoolImpl"), "the metrics read the MXBeans");
        assertFalse(classes.contains("com.sun.jmx.mbeanserver.MXBeanIntrospector"), "an MBean server was built");
        assertFalse(classes.contains("com.sun.management.internal"), "jdk.management's beans were loaded");
    }

    @Test
    void metrics_port_off_leaves_the_avatar_listener_alone() throws Exception {
        int port = freePort();
        Process p = launch(Map.of("AVATAR_METRICS_PORT", "off"), "--port", String.valueOf(port));
        awaitHealthy(p, port);
        assertEquals(Set.of(port), listeningPorts(p));
        assertEquals(404, get(port, "/metrics").statusCode());
        assertTrue(stderr().contains(", metrics off"), stderr());
    }

    private void assertExitsWithOneLine(int expectedExit, String naming, Process p) throws Exception {
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "exits");
        assertEquals(expectedExit, p.exitValue(), stderr());
        String err = stderr().strip();
        String last = err.lines().reduce((a, b) -> b).orElse("");
        assertTrue(last.contains(naming), err);
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
    }

    @Test
    void a_wrong_metrics_setting_exits_2_naming_it() throws Exception {
        assertExitsWithOneLine(2, "avatar: --metrics-port: 'none' is not a whole number from 1 to 65535 (or off)",
                launch(Map.of(), "--metrics-port", "none"));
        assertEquals(1, stderr().strip().lines().count(), stderr());
        assertExitsWithOneLine(2, "avatar: AVATAR_METRICS_BIND: 'metrics.local' is not an IP address",
                launch(Map.of("AVATAR_METRICS_BIND", "metrics.local")));
        assertEquals(1, stderr().strip().lines().count(), stderr());
    }

    @Test
    void a_metrics_port_in_use_exits_1_naming_the_metrics_setting() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Process p = launch(Map.of(), "--port", String.valueOf(freePort()),
                    "--metrics-port", String.valueOf(taken.getLocalPort()));
            assertExitsWithOneLine(1, "avatar: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                    + " (--metrics-port): Address already in use", p);
        }
    }

    /** Issue 35: the free avatar port was named when the metrics one (set in the environment) was taken. */
    @Test
    void a_metrics_port_in_use_given_in_the_environment_names_that_variable_not_the_free_avatar_port()
            throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = freePort();
            Process p = launch(Map.of("AVATAR_PORT", String.valueOf(port),
                    "AVATAR_METRICS_PORT", String.valueOf(taken.getLocalPort())));
            assertExitsWithOneLine(1, "avatar: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                    + " (AVATAR_METRICS_PORT): Address already in use", p);
            assertEquals(1, stderr().lines().filter(l -> l.startsWith("avatar:")).count(), stderr());
            assertFalse(stderr().contains(":" + port), "the free avatar port is not named: " + stderr());
        }
    }

    @Test
    void an_avatar_port_in_use_names_the_avatar_setting_even_with_the_metrics_listener_on() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Process p = launch(Map.of("AVATAR_PORT", String.valueOf(taken.getLocalPort())),
                    "--metrics-port", String.valueOf(freePort()));
            assertExitsWithOneLine(1, "avatar: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                    + " (AVATAR_PORT): Address already in use", p);
        }
    }

    @Test
    void the_metrics_port_equal_to_the_avatar_port_names_both_settings() throws Exception {
        assertExitsWithOneLine(2, "avatar: AVATAR_METRICS_PORT: '9999' is the avatar port (--port) too: the metrics"
                + " listener needs a port of its own", launch(Map.of("AVATAR_METRICS_PORT", "9999"), "--port", "9999"));
    }
}
