package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.undertow.server.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** The real server on an ephemeral port, over real HTTP: the fixture and helpers its tests share. */
abstract class ServerOverHttp {
    static final int FOXES = 21;
    static final String CHROMIUM = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
    static final String OLD_SAFARI = "image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5";

    @TempDir
    Path dir;

    AvatarServer server;
    final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /**
     * The settings Main parses from {@code --images dir} and {@code flags} (space-separated, "" for none), on
     * ports Undertow picks: port 0, which the flags refuse.
     */
    Settings settings(String flags) throws Exception {
        List<String> args = new ArrayList<>(List.of("--images", dir.toString()));
        args.addAll(flags.isBlank() ? List.of() : Arrays.asList(flags.trim().split(" +")));
        Settings s = Settings.parse(args, Map.of());
        return new Settings(0, s.bind(), s.images(), s.ioThreads(), s.metricsOn() ? 0 : Settings.METRICS_OFF,
                s.metricsBind(), s.portSetting(), s.metricsPortSetting(), s.people(), s.peopleSetting(),
                s.gravatarDefaults());
    }

    /** The service as Main builds it, on a fresh set of {@link #FOXES} pictures, with these flags. */
    URI start(String flags) throws Exception {
        TestImages.create(dir, FOXES);
        return startOnExistingImages(flags);
    }

    /** A fresh service (its own manifest read, tables and Undertow) on the images already in dir. */
    URI startOnExistingImages(String flags) throws Exception {
        Settings settings = settings(flags);
        ImageManifest images = ManifestReader.read(dir);
        return start(AvatarServer.of(settings, images, PeopleList.read(settings.people(), settings.peopleSetting(), images)));
    }

    /** A server whose avatar port is {@code handler} on one IO thread, without a metrics listener. */
    URI start(HttpHandler handler) throws Exception {
        return start(new AvatarServer(settings("--metrics-port off --io-threads 1"), handler, null));
    }

    URI start(AvatarServer started) {
        server = started;
        server.start();
        return URI.create("http://127.0.0.1:" + server.port());
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.stopGracefully(1000);
        }
    }

    HttpResponse<String> send(String method, URI uri, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(10));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElseThrow(() -> new AssertionError("no " + name));
    }

    /** The Location, checked to be one of the fixture's image paths: groups fox, size, format. */
    static Matcher location(HttpResponse<?> response) {
        String location = header(response, "Location");
        Matcher m = Pattern.compile("/" + TestImages.LOCATION).matcher(location);
        assertTrue(m.matches(), location);
        return m;
    }

    /**
     * The answer to one request on a connection of its own, its header lines sorted, one a line ({@code
     * "HTTP/1.1 404 Not Found\nConnection: close\nContent-Length: 0\n\nbody"}): all but Undertow's header order.
     * The request is sent byte for byte (for what HttpClient would encode first).
     */
    String answer(String method, String target) throws IOException {
        String raw = raw(server.port(), (method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1), 4096);
        int end = raw.indexOf("\r\n\r\n");
        assertTrue(end > 0, "no end of head in: " + raw);
        return sorted(raw.substring(0, end)) + "\n\n" + raw.substring(end + 4);
    }

    /** A head's status line, then its header lines sorted, joined by "\n". */
    static String sorted(String head) {
        String[] lines = head.split("\r\n");
        String[] headers = Arrays.copyOfRange(lines, 1, lines.length);
        Arrays.sort(headers);
        return lines[0] + "\n" + String.join("\n", headers);
    }

    /** Sends bytes as they are and returns up to {@code limit} bytes of the answer. */
    static String raw(int port, byte[] request, int limit) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] head = in.readNBytes(limit);
            return new String(head, StandardCharsets.US_ASCII);
        }
    }
}
