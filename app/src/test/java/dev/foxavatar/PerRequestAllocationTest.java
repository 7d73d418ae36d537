package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.undertow.server.HttpHandler;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.StatusCodes;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What a request costs besides Undertow's own work, on the request path itself: the service's real
 * routes and handlers (reading the query or the /avatar/ path, choosing the format, hashing the key,
 * looking it up in the list of people, reading d and f, picking from the tables of a drawn set's
 * identities, counting the answer) in a real server over real HTTP allocate nothing.
 *
 * <p>Measured with the JVM's per-thread allocation counter on the IO thread that answers: the same
 * requests, byte for byte, answered in turns by the real service and by a bare handler that sends a
 * constant 302 with the same four headers, in one server (one IO thread, the same call sites, so the JIT's
 * escape analysis treats Undertow's code alike in both turns). Undertow's own parsing and writing (about
 * 2 KB a request) cost the same in both; the difference is ours. The smallest difference of the rounds
 * after the warm-up counts: an allocation of ours is in every round, while the JIT's late decisions only
 * add to some. A copy of the query string per request shows as about 14 bytes a request, well above
 * {@link #NOTHING}; the turns differ by under 1 byte.
 */
class PerRequestAllocationTest extends ServerOverHttp {
    private static final String[] TARGETS = {
        "/", "/?s=64", "/?size=48&v=2", "/?s=64&u=0bc83cb571cd1c50ba6f3e8a78ef1346", "/?u=" + "k".repeat(129),
        "/?S=99999999999999999999&U=hello%40example.com", "/?s=64px&u=a%20b",
        "/avatar/0bc83cb571cd1c50ba6f3e8a78ef1346", "/avatar/0BC83CB571CD1C50BA6F3E8A78EF1346.png?s=80&d=mp",
        "/avatar/" + "ab".repeat(32) + ".jpg?size=2048", "/avatar/junk", "/avatar/0bc83cb571cd1c50ba6f3e8a78ef1346/",
        "/avatar/" + "ab".repeat(32) + "?d=mp", "/?u=0bc83cb571cd1c50ba6f3e8a78ef1346&d=404", "/?u=a&d=identicon&f=y",
    };
    private static final String[] ACCEPTS = {CHROMIUM, OLD_SAFARI, "*/*", null, "image/avif;q=0,image/webp"};
    private static final int REQUESTS = 10_000;
    /** Rounds of both turns; the first ones only warm the JIT up (their differences swing to 15 bytes). */
    private static final int ROUNDS = 8;
    private static final int WARM_UP = 2;
    /** Bytes per request that count as "nothing": far below one object (16 bytes and more). */
    private static final double NOTHING = 2.0;

    /** The thread that answered last (a connection stays on one IO thread). */
    private static volatile Thread answering;

    /** Which handler answers: the one server's one IO thread and call sites serve both, turn by turn. */
    private static volatile boolean bareTurn;

    @Test
    void answering_a_request_allocates_nothing_beyond_undertows_own_work() throws Exception {
        TestImages.create(dir, FOXES);
        TestImages.addVariants(dir);
        ImageManifest manifest = ManifestReader.read(dir);
        PeopleList people = PeopleList.read(java.nio.file.Files.writeString(dir.resolve("people.tsv"),
                "0bc83cb571cd1c50ba6f3e8a78ef1346\t7-v23\n"), "--people", manifest);
        HttpHandler service = Routes.avatarPort(manifest, people, true,
                new RequestMetrics(manifest, "0123456789ab"));
        HttpHandler bare = exchange -> { // a 302 as the service sends it, every value a constant: Undertow's part
            exchange.setStatusCode(StatusCodes.FOUND);
            HeaderMap headers = exchange.getResponseHeaders();
            headers.put(Headers.LOCATION, "/a/Renard-7-64.3f2a9c1d0b.avif");
            headers.put(Headers.VARY, AvatarRedirectHandler.VARY);
            headers.put(Headers.CACHE_CONTROL, HeaderValues.NO_STORE);
            headers.put(Headers.CONTENT_LENGTH, HeaderValues.EMPTY_BODY_LENGTH);
            exchange.endExchange();
        };
        start(exchange -> {
            answering = Thread.currentThread();
            (bareTurn ? bare : service).handleRequest(exchange);
        });
        long fewest = Long.MAX_VALUE;
        String rounds = "";
        for (int round = 0; round < ROUNDS; round++) {
            bareTurn = false;
            long ours = allocatedAnswering(server.port());
            bareTurn = true;
            long undertows = allocatedAnswering(server.port());
            rounds += String.format(" %.1f", (double) (ours - undertows) / REQUESTS);
            if (round >= WARM_UP) {
                fewest = Math.min(fewest, ours - undertows);
            }
        }
        double perRequest = (double) fewest / REQUESTS;
        assertTrue(perRequest < NOTHING, String.format(
                "%.1f bytes per request beyond Undertow's own in the best round (each round's:%s)", perRequest, rounds));
    }

    /** Bytes the answering IO thread allocated for {@link #REQUESTS} requests on one kept-alive connection. */
    private static long allocatedAnswering(int port) throws IOException {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        byte[][] requests = new byte[TARGETS.length * ACCEPTS.length][];
        for (int i = 0; i < requests.length; i++) {
            String accept = ACCEPTS[i % ACCEPTS.length];
            requests[i] = ("GET " + TARGETS[i % TARGETS.length] + " HTTP/1.1\r\nHost: avatar.example\r\n"
                    + (accept == null ? "" : "Accept: " + accept + "\r\n") + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        }
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            exchange(out, in, requests[0]); // the connection's first answer names the thread
            long id = answering.getId();
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < REQUESTS; i++) {
                exchange(out, in, requests[i % requests.length]);
            }
            return threads.getThreadAllocatedBytes(id) - before;
        }
    }

    /** Sends one request and reads its answer's head (every answer here is a 302 without a body). */
    private static void exchange(OutputStream out, InputStream in, byte[] request) throws IOException {
        out.write(request);
        out.flush();
        byte[] status = in.readNBytes(12);
        String line = new String(status, StandardCharsets.US_ASCII);
        if (!line.equals("HTTP/1.1 302")) {
            throw new AssertionError("not a 302: " + line);
        }
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new AssertionError("connection closed in an answer's head");
            }
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
        }
    }
}
