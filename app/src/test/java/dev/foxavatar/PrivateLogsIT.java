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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar never logs a key, an e-mail hash, a Referer or a client address, at any log level: the
 * packaged jar at slf4j-simple's most verbose level (trace, Undertow's and XNIO's loggers included)
 * gets keyed and hashed requests with a Referer, X-Forwarded-For and X-Real-IP (what Nginx passes on,
 * nginx/fox-avatar/proxy.conf), well-formed and not, and none of those values is in its output.
 */
class PrivateLogsIT {
    private static final Path JAR = Path.of(System.getProperty("avatar.jar", "target/avatar.jar"));
    private static final Path JVM_OPTIONS = Path.of(System.getProperty("avatar.jvm.options", "jvm.options"));

    private static final String KEY = "fox.private.key@example.org";
    private static final String MD5 = "8f14e45fceea167a5a36dedd4bea2543";
    private static final String SHA256 = "c2f8a1d7e3b94f60a5d2e7c1b8f09a3d4e6c2b1a0f9e8d7c6b5a4f3e2d1c0b9a";
    private static final String REFERER = "https://forge.example/profile/private-referer-page";
    private static final String FORWARDED_FOR = "203.0.113.77";
    private static final String REAL_IP = "198.51.100.23";
    private static final String USER_AGENT = "PrivateAgent/7.7";

    @TempDir
    Path dir;

    private Process process;

    @AfterEach
    void stop() {
        if (process != null) {
            process.destroyForcibly();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private HttpResponse<String> get(HttpClient client, int port, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Referer", REFERER).header("X-Forwarded-For", FORWARDED_FOR)
                .header("X-Real-IP", REAL_IP).header("User-Agent", USER_AGENT)
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
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

    private static String headers() {
        return "Host: avatar.test\r\nReferer: " + REFERER + "\r\nX-Forwarded-For: " + FORWARDED_FOR
                + "\r\nX-Real-IP: " + REAL_IP + "\r\nUser-Agent: " + USER_AGENT + "\r\n";
    }

    @Test
    void at_trace_level_no_key_hash_referer_or_client_address_reaches_the_output() throws Exception {
        Path images = Files.createDirectories(dir.resolve("images"));
        TestImages.create(images, 3);
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + JVM_OPTIONS.toAbsolutePath(), "-Dorg.slf4j.simpleLogger.defaultLogLevel=trace",
                "-Dorg.slf4j.simpleLogger.log.io.undertow=trace", "-jar", JAR.toAbsolutePath().toString(),
                "--images", images.toString(), "--port", String.valueOf(port),
                "--metrics-port", String.valueOf(freePort())));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("AVATAR_"));
        Path stdout = dir.resolve("stdout.log");
        Path stderr = dir.resolve("stderr.log");
        pb.redirectOutput(stdout.toFile());
        pb.redirectError(stderr.toFile());
        process = pb.start();

        HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            assertTrue(process.isAlive(), "process died during start-up");
            try {
                if (get(client, port, "/healthz").statusCode() == 200) {
                    break;
                }
            } catch (IOException notYet) {
                assertTrue(System.nanoTime() < deadline, "not healthy within 30 s");
                Thread.sleep(50);
            }
        }
        String encodedKey = URLEncoder.encode(KEY, StandardCharsets.UTF_8);
        for (String path : List.of("/?u=" + encodedKey + "&s=80", "/?u=" + MD5, "/?size=64&u=" + SHA256,
                "/avatar/" + MD5, "/avatar/" + MD5.toUpperCase(Locale.ROOT) + ".png?s=40",
                "/avatar/" + SHA256 + ".jpg", "/avatar/" + SHA256 + "?u=" + encodedKey, "/avatar/" + SHA256 + "x", "/?u=" + encodedKey + "&u=" + MD5,
                "/" + MD5, "/healthz?u=" + MD5)) {
            int status = get(client, port, path).statusCode();
            assertTrue(status == 302 || status == 404 || status == 200, path + ": " + status);
        }
        assertEquals(405, client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/?u=" + MD5))
                .header("Referer", REFERER).header("X-Forwarded-For", FORWARDED_FOR)
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode());
        // Requests Undertow refuses itself (its error paths log at debug): too many headers, a body
        // above the limit, a malformed request line, one cut short.
        raw(port, "GET /?u=" + MD5 + " HTTP/1.1\r\n" + headers() + "X-Pad: 1\r\n".repeat(80) + "\r\n");
        raw(port, "POST /avatar/" + SHA256 + " HTTP/1.1\r\n" + headers() + "Content-Length: 4096\r\n\r\n"
                + "u=" + MD5 + "&".repeat(4000));
        raw(port, "GET /?u=" + MD5 + " HTTP/9.9 junk\r\n" + headers() + "\r\n");
        raw(port, "GET /avatar/" + SHA256 + " HTTP/1.1\r\n" + headers());

        process.destroy();
        assertTrue(process.waitFor(15, TimeUnit.SECONDS), "stops");
        String output = Files.readString(stdout, StandardCharsets.ISO_8859_1)
                + Files.readString(stderr, StandardCharsets.ISO_8859_1);
        // The level took: XNIO wrote its debug lines (else this proves nothing). Undertow's loggers stay at
        // info (Main): their debug lines name the path. XNIO's name the socket's peer, which is Nginx.
        assertTrue(output.lines().filter(l -> l.contains("[DEBUG] org.xnio")).count() > 10, output);
        assertTrue(output.contains("fox-avatar - stopped"), output);
        for (String secret : List.of(KEY, encodedKey, "private.key", MD5, MD5.toUpperCase(Locale.ROOT),
                SHA256, SHA256.substring(0, 16), "forge.example", "private-referer-page", FORWARDED_FOR,
                "203.0.113", REAL_IP, "198.51.100", USER_AGENT)) {
            List<String> lines = output.lines().filter(l -> l.contains(secret)).toList();
            assertFalse(!lines.isEmpty(), "the output names " + secret + ":\n" + String.join("\n", lines));
        }
    }
}
