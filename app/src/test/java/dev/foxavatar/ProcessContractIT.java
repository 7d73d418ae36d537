package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar as a child process, started as the deployments start it (java @jvm.options -jar): what
 * only a process shows (exit statuses, its one-line faults, its log, signals, the JVM flags' effects).
 */
class ProcessContractIT {
    private static final Path JAR = Path.of(System.getProperty("avatar.jar", "target/avatar.jar"));
    private static final Path JVM_OPTIONS = Path.of(System.getProperty("avatar.jvm.options", "jvm.options"));
    private static final HttpClient CLIENT = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        started.forEach(Process::destroyForcibly);
    }

    /** The jar with {@code jvmFlags} after jvm.options, on a set of 3 pictures unless {@code args} name others. */
    private Process launch(List<String> jvmFlags, Map<String, String> env, String... args) throws IOException {
        Path images = dir.resolve("images");
        if (!Files.isDirectory(images)) {
            TestImages.create(Files.createDirectories(images), 3);
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + JVM_OPTIONS.toAbsolutePath()));
        command.addAll(jvmFlags);
        command.addAll(List.of("-jar", JAR.toAbsolutePath().toString(), "--images", images.toString()));
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

    private static HttpResponse<String> get(int port, String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Polls the health path until the process answers (bounded). */
    private static void awaitHealthy(Process p, int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            assertTrue(p.isAlive(), "process died during start-up");
            try {
                if (get(port, "/healthz").statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                assertTrue(System.nanoTime() < deadline, "not healthy within 30 s");
                Thread.sleep(50); // between polls
            }
        }
    }

    /** The process exits {@code status} with one line, no stack trace, that starts naming what is wrong. */
    private void assertExitsWithOneLine(int status, String start, Process p) throws Exception {
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "exits");
        assertEquals(status, p.exitValue(), stderr());
        assertEquals(1, stderr().strip().lines().count(), stderr());
        assertTrue(stderr().startsWith(start), stderr());
    }

    /** A faulty image set exits the same way (one catch in Main); its line is {@code ImageManifestTest}'s. */
    @Test
    void a_wrong_setting_exits_2_a_port_in_use_1_each_with_one_line_naming_the_setting_as_set_and_help_exits_0()
            throws Exception {
        assertExitsWithOneLine(2, "avatar: AVATAR_METRICS_BIND: 'metrics.local' is not an IP address",
                launch(List.of(), Map.of("AVATAR_METRICS_BIND", "metrics.local")));
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Process p = launch(List.of(), Map.of("AVATAR_PORT", String.valueOf(freePort()),
                    "AVATAR_METRICS_PORT", String.valueOf(taken.getLocalPort())));
            assertExitsWithOneLine(1, "avatar: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                    + " (AVATAR_METRICS_PORT): Address already in use", p);
        }
        Process p = launch(List.of(), Map.of(), "--help");
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertTrue(Files.readString(dir.resolve("stdout.log")).startsWith(Settings.usage()));
    }

    @Test
    void serves_with_settings_from_the_environment_logs_one_startup_line_and_stops_on_sigterm_with_exit_0()
            throws Exception {
        int port = freePort();
        Process p = launch(List.of(), Map.of("AVATAR_PORT", String.valueOf(port), "AVATAR_METRICS_PORT", "off"));
        awaitHealthy(p, port);
        HttpResponse<String> r = get(port, "/");
        assertEquals(302, r.statusCode());
        assertTrue(r.headers().firstValue("Location").orElseThrow()
                .matches("/a/Renard-[123]-256\\.[0-9a-f]{10}\\.png"), r.headers().toString());
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "exits within the grace period");
        assertEquals(0, p.exitValue(), stderr());
        String log = stderr();
        // slf4j-simple's format (simplelogger.properties), for our lines and for Undertow's own: no date
        // (journald and docker stamp each line), the level, the logger's name.
        assertTrue(log.lines().anyMatch(l -> l.matches("\\[INFO\\] io\\.undertow - starting server: Undertow.*")), log);
        List<String> ours = log.lines().filter(l -> l.contains("] fox-avatar - ")).toList();
        assertEquals(3, ours.size(), log);
        assertTrue(ours.get(0).matches("\\[INFO\\] fox-avatar - listening on http://127\\.0\\.0\\.1:" + port
                + " with 81 images \\(3 foxes, sizes 32 48 64 96 128 192 256 384 512, formats avif webp png\\) from .*"
                + ", metrics off, 0 listed hashes, gravatar defaults off"), ours.get(0));
        assertTrue(ours.get(1).startsWith("[INFO] fox-avatar - stopping: finishing requests in flight"), log);
        assertEquals("[INFO] fox-avatar - stopped", ours.get(2));
    }

    /**
     * XNIO registers its MBeans at start with no switch of its own; NoMBeanServer refuses it the platform
     * MBean server, so the JMX machinery (about 260 classes, 3 MB) never loads, while the JVM metrics, read
     * from the MXBeans directly, are all there under the Prometheus client's names. The loaded classes come
     * from jcmd.
     */
    @Test
    void the_jar_as_deployed_exports_the_jvm_and_process_metrics_without_an_mbean_server() throws Exception {
        int port = freePort();
        int metrics = freePort();
        Process p = launch(List.of(), Map.of(), "--port", String.valueOf(port), "--metrics-port", String.valueOf(metrics));
        awaitHealthy(p, port);
        HttpResponse<String> r = get(metrics, "/metrics");
        assertEquals(200, r.statusCode(), stderr());
        Scrape s = new Scrape(r.body());
        for (String name : new String[] {"jvm_memory_used_bytes{area=\"heap\"}", "jvm_gc_collection_seconds_count{",
            "jvm_threads_current ", "jvm_classes_currently_loaded ", "process_resident_memory_bytes ",
            "process_cpu_seconds_total ", "process_start_time_seconds ", "fox_avatar_build_info{"}) {
            assertTrue(s.body.lines().anyMatch(l -> l.startsWith(name)), name + " missing:\n" + s.body);
        }
        assertTrue(s.value("process_resident_memory_bytes") > 10e6, "RSS read from /proc");
        assertTrue(s.value("jvm_memory_pool_used_bytes", "pool=\"Metaspace\"") > 0, s.body);
        assertTrue(s.value("process_open_fds") > 0 && s.value("process_max_fds") > 0, s.body);
        assertTrue(stderr().contains("metrics on http://127.0.0.1:" + metrics + "/metrics"), stderr());
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(p.pid()), "VM.class_hierarchy").redirectErrorStream(true).start();
        String classes = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(jcmd.waitFor(60, TimeUnit.SECONDS) && classes.contains("org.xnio.nio.NioXnioWorker"), classes);
        assertTrue(classes.contains("sun.management.MemoryPoolImpl"), "the metrics read the MXBeans");
        assertFalse(classes.contains("com.sun.jmx.mbeanserver.MXBeanIntrospector"), "an MBean server was built");
        assertFalse(classes.contains("com.sun.management.internal"), "jdk.management's beans were loaded");
    }

    /**
     * The sidecar never logs a key, an e-mail hash, a Referer or a client address, at any log level: at
     * slf4j-simple's most verbose level (trace, Undertow's and XNIO's loggers included) it gets keyed and
     * hashed requests with a Referer, X-Forwarded-For and X-Real-IP (what Nginx passes on,
     * nginx/fox-avatar/proxy.conf), well-formed and not, and none of those values is in its output.
     */
    @Test
    void at_trace_level_no_key_hash_referer_or_client_address_reaches_the_output() throws Exception {
        String key = "fox.private.key@example.org";
        String md5 = "8f14e45fceea167a5a36dedd4bea2543";
        String sha256 = "c2f8a1d7e3b94f60a5d2e7c1b8f09a3d4e6c2b1a0f9e8d7c6b5a4f3e2d1c0b9a";
        String[] headers = {"Referer", "https://forge.example/profile/private-referer-page",
            "X-Forwarded-For", "203.0.113.77", "X-Real-IP", "198.51.100.23", "User-Agent", "PrivateAgent/7.7"};
        int port = freePort();
        Process p = launch(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=trace", "-Dorg.slf4j.simpleLogger.log.io.undertow=trace"),
                Map.of(), "--port", String.valueOf(port), "--metrics-port", String.valueOf(freePort()));
        awaitHealthy(p, port);
        String encodedKey = URLEncoder.encode(key, StandardCharsets.UTF_8);
        for (String path : List.of("/?u=" + encodedKey + "&s=80", "/?u=" + md5, "/?size=64&u=" + sha256,
                "/avatar/" + md5, "/avatar/" + md5.toUpperCase(Locale.ROOT) + ".png?s=40",
                "/avatar/" + sha256 + ".jpg", "/avatar/" + sha256 + "?u=" + encodedKey, "/avatar/" + sha256 + "x",
                "/?u=" + encodedKey + "&u=" + md5, "/" + md5, "/healthz?u=" + md5)) {
            int status = get(port, path, headers).statusCode();
            assertTrue(status == 302 || status == 404 || status == 200, path + ": " + status);
        }
        StringBuilder head = new StringBuilder("Host: avatar.test\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        // Requests the service refuses, or Undertow itself (its error paths log at debug): another method, too
        // many headers, a body above the limit, a malformed request line, one cut short.
        raw(port, "POST /?u=" + md5 + " HTTP/1.1\r\n" + head + "Content-Length: 1\r\n\r\nx");
        raw(port, "GET /?u=" + md5 + " HTTP/1.1\r\n" + head + "X-Pad: 1\r\n".repeat(80) + "\r\n");
        raw(port, "POST /avatar/" + sha256 + " HTTP/1.1\r\n" + head + "Content-Length: 4096\r\n\r\n"
                + "u=" + md5 + "&".repeat(4000));
        raw(port, "GET /?u=" + md5 + " HTTP/9.9 junk\r\n" + head + "\r\n");
        raw(port, "GET /avatar/" + sha256 + " HTTP/1.1\r\n" + head);

        p.destroy();
        assertTrue(p.waitFor(15, TimeUnit.SECONDS), "stops");
        String output = Files.readString(dir.resolve("stdout.log"), StandardCharsets.ISO_8859_1)
                + Files.readString(dir.resolve("stderr.log"), StandardCharsets.ISO_8859_1);
        // The level took: XNIO wrote its debug lines (else this proves nothing). Undertow's loggers stay at
        // info (Main): their debug lines name the path. XNIO's name the socket's peer, which is Nginx.
        assertTrue(output.lines().filter(l -> l.contains("[DEBUG] org.xnio")).count() > 10, output);
        assertTrue(output.contains("fox-avatar - stopped"), output);
        List<String> secrets = new ArrayList<>(List.of(key, encodedKey, "private.key", md5, md5.toUpperCase(Locale.ROOT),
                sha256, sha256.substring(0, 16), "forge.example", "private-referer-page", "203.0.113", "198.51.100"));
        for (int i = 1; i < headers.length; i += 2) {
            secrets.add(headers[i]);
        }
        for (String secret : secrets) {
            List<String> lines = output.lines().filter(l -> l.contains(secret)).toList();
            assertTrue(lines.isEmpty(), "the output names " + secret + ":\n" + String.join("\n", lines));
        }
    }

    /** Writes a raw request (one Undertow refuses, or half of one) and reads until the server closes. */
    private static void raw(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(15_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            while (in.read(new byte[4096]) >= 0) {
                // drain
            }
        } catch (IOException closedOnUs) {
            // a reset is an answer too
        }
    }
}
