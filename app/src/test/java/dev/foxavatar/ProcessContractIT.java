package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged jar as a child process, started as the deployments start it (java @jvm.options -jar). */
class ProcessContractIT {
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
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + JVM_OPTIONS.toAbsolutePath(), "-jar", JAR.toAbsolutePath().toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("AVATAR_"));
        // No metrics listener unless a test asks for one: its default port (8081) is shared by every process.
        pb.environment().put("AVATAR_METRICS_PORT", "off");
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

    private Path images() throws IOException {
        Path images = Files.createDirectories(dir.resolve("images"));
        TestImages.create(images, 3);
        return images;
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Polls the health path until the process answers (bounded). */
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

    private void assertExitsNamingSetting(int expectedExit, String setting, Process p) throws Exception {
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "exits");
        assertEquals(expectedExit, p.exitValue());
        String err = stderr().strip();
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertTrue(err.contains(setting), err);
        assertFalse(err.contains("Exception"), "no stack trace: " + err);
    }

    @Test
    void a_wrong_flag_exits_2_naming_it() throws Exception {
        assertExitsNamingSetting(2, "--port", launch(Map.of(), "--images", images().toString(), "--port", "70000"));
    }

    @Test
    void a_wrong_environment_variable_exits_2_naming_it() throws Exception {
        assertExitsNamingSetting(2, "AVATAR_BASE_URL", launch(
                Map.of("AVATAR_BASE_URL", "not a url", "AVATAR_IMAGES", images().toString())));
    }

    @Test
    void a_missing_images_directory_exits_2_naming_it() throws Exception {
        assertExitsNamingSetting(2, "--images", launch(Map.of(), "--images", dir.resolve("absent").toString()));
    }

    @Test
    void an_images_directory_without_a_manifest_exits_2_naming_it() throws Exception {
        Files.writeString(dir.resolve("Renard-1.png"), "x");
        assertExitsNamingSetting(2, "--images", launch(Map.of(), "--images", dir.toString()));
        assertTrue(stderr().contains("no manifest.tsv in "), stderr());
    }

    @Test
    void a_manifest_naming_a_missing_file_exits_2_naming_the_manifest_and_the_line() throws Exception {
        Path images = images();
        List<String> lines = Files.readAllLines(images.resolve(ManifestReader.FILE));
        int index = 0;
        while (!lines.get(index).startsWith("image\t")) {
            index++;
        }
        String path = lines.get(index).split("\t")[1];
        Files.delete(images.resolve(path));
        // A fault of the set, not of a setting: the line names the manifest file, not --images.
        assertExitsNamingSetting(2, images.toAbsolutePath().normalize().resolve(ManifestReader.FILE) + " line "
                + (index + 1) + ": missing file: " + path, launch(Map.of(), "--images", images.toString()));
    }

    @Test
    void a_list_of_people_naming_a_picture_the_set_lacks_exits_2_naming_the_setting_and_the_line() throws Exception {
        Path people = Files.writeString(dir.resolve("people.tsv"), "# made by hand\n0bc83cb571cd1c50ba6f3e8a78ef1346\t99\n");
        assertExitsNamingSetting(2, "AVATAR_PEOPLE_FILE: people.tsv line 2: picture 99 is not in the set (pictures 1..3): make the list again for the set served (make people)",
                launch(Map.of("AVATAR_PEOPLE_FILE", people.toString()), "--images", images().toString()));
    }

    @Test
    void two_separately_started_processes_give_a_key_the_same_location() throws Exception {
        Path images = images();
        List<String> locations = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            int port = freePort();
            Process p = launch(Map.of(), "--images", images.toString(), "--port", String.valueOf(port));
            awaitHealthy(p, port);
            HttpResponse<String> r = get(port, "/?s=40&u=0bc83cb571cd1c50ba6f3e8a78ef1346");
            assertEquals(302, r.statusCode());
            assertEquals("public, max-age=3600", r.headers().firstValue("Cache-Control").orElseThrow());
            locations.add(r.headers().firstValue("Location").orElseThrow());
            p.destroy();
            assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        }
        assertEquals(locations.get(0), locations.get(1));
        assertTrue(locations.get(0).matches("/a/Renard-[123]-48\\.[0-9a-f]{10}\\.png"), locations.get(0));
    }

    @Test
    void a_port_in_use_exits_non_zero_with_one_clear_line() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Process p = launch(Map.of(), "--images", images().toString(),
                    "--port", String.valueOf(taken.getLocalPort()));
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "exits");
            assertNotEquals(0, p.exitValue());
            String last = stderr().strip().lines().reduce((a, b) -> b).orElse("");
            assertTrue(last.contains("cannot listen on 127.0.0.1:" + taken.getLocalPort()), stderr());
            assertFalse(stderr().contains("\tat "), "no stack trace: " + stderr());
        }
    }

    @Test
    void serves_with_settings_from_the_environment_and_logs_one_startup_line_through_slf4j() throws Exception {
        int port = freePort();
        Process p = launch(Map.of("AVATAR_PORT", String.valueOf(port), "AVATAR_IMAGES", images().toString()));
        awaitHealthy(p, port);
        HttpResponse<String> r = get(port, "/");
        assertEquals(302, r.statusCode());
        assertTrue(r.headers().firstValue("Location").orElseThrow()
                .matches("/a/Renard-[123]-256\\.[0-9a-f]{10}\\.png"), r.headers().toString());
        assertEquals("no-store", r.headers().firstValue("Cache-Control").orElseThrow());
        String log = stderr();
        // slf4j-simple's format (simplelogger.properties), for our line and for Undertow's own: no date
        // (journald and docker stamp each line), the level, the logger's name.
        assertTrue(log.lines().anyMatch(l -> l.matches("\\[INFO\\] io\\.undertow - starting server: Undertow.*")), log);
        List<String> ours = log.lines().filter(l -> l.contains("] fox-avatar - ")).toList();
        assertEquals(1, ours.size(), log);
        assertTrue(ours.get(0).matches("\\[INFO\\] fox-avatar - listening on http://127\\.0\\.0\\.1:" + port
                + " with 81 images \\(3 foxes, sizes 32 48 64 96 128 192 256 384 512, formats avif webp png\\) from .*"),
                ours.get(0));
        p.destroy();
        p.waitFor(10, TimeUnit.SECONDS);
    }

    @Test
    void sigterm_stops_cleanly_with_exit_0() throws Exception {
        int port = freePort();
        Process p = launch(Map.of(), "--images", images().toString(), "--port", String.valueOf(port));
        awaitHealthy(p, port);
        get(port, "/");
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "exits within the grace period");
        assertEquals(0, p.exitValue(), stderr());
        assertTrue(stderr().contains("fox-avatar - stopped"), stderr());
    }

    @Test
    void help_prints_usage_and_exits_0() throws Exception {
        Process p = launch(Map.of(), "--help");
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        String out = Files.readString(dir.resolve("stdout.log"));
        assertTrue(out.contains("--base-url") && out.contains("AVATAR_IO_THREADS"), out);
    }
}
