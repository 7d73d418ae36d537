package dev.foxavatar;

import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpHandler;
import io.undertow.server.handlers.GracefulShutdownHandler;
import java.net.InetSocketAddress;
import org.xnio.Options;

/**
 * Undertow, configured once: small, deliberate limits so that oversized or slow requests get a 4xx or a
 * closed connection from Undertow itself, and a graceful stop that finishes what is in flight.
 */
public final class AvatarServer {
    /** Request headers beyond this, in bytes or in number, get a {@code 400} from Undertow and a closed connection. */
    static final int MAX_HEADER_SIZE = 8 * 1024;
    static final int MAX_HEADERS = 64;
    /** Nothing we serve takes a body: a request that announces a longer one is closed unanswered. */
    static final long MAX_ENTITY_SIZE = 1024;
    static final int REQUEST_PARSE_TIMEOUT_MS = 10_000;
    /**
     * An idle keep-alive connection is closed after this. Longer than Nginx's upstream keepalive_timeout
     * (30 s, nginx/fox-avatar/upstream-keepalive.conf), so that Nginx, not us, closes pooled connections
     * (no race on a reused one).
     */
    static final int NO_REQUEST_TIMEOUT_MS = 75_000;
    static final int BUFFER_SIZE = 1024;

    private final Undertow undertow;
    private final GracefulShutdownHandler graceful;

    /**
     * The service for an image set: the avatar port's routes ({@link Routes#avatarPort}), and with
     * {@code --metrics-port} on, the metrics listener, counting every answer of the avatar port.
     */
    public static AvatarServer of(Settings settings, ImageManifest images, PeopleList people) {
        RequestMetrics metrics = settings.metricsOn()
                ? new RequestMetrics(images, ManifestDigest.of(settings.images())) : RequestMetrics.OFF;
        return new AvatarServer(settings, Routes.avatarPort(images, people, settings.gravatarDefaults(), metrics),
                settings.metricsOn() ? Routes.metricsPort(metrics) : null);
    }

    /**
     * The avatar listener on {@code --bind:--port}, its root handler {@code avatarPort}
     * ({@link Routes#avatarPort}), and when {@code metricsPort} is not null a second listener on
     * {@code --metrics-bind:--metrics-port} with that root handler ({@link Routes#metricsPort}): the two
     * share Undertow's threads but no path (the avatar port answers {@code /metrics} with 404 like any
     * unknown path). The graceful stop waits for the avatar port's requests only.
     */
    public AvatarServer(Settings settings, HttpHandler avatarPort, HttpHandler metricsPort) {
        this.graceful = new GracefulShutdownHandler(avatarPort);
        Undertow.Builder builder = Undertow.builder()
                .addHttpListener(settings.port(), settings.bind());
        if (metricsPort != null) {
            builder.addListener(new Undertow.ListenerBuilder().setType(Undertow.ListenerType.HTTP)
                    .setPort(settings.metricsPort()).setHost(settings.metricsBind()).setRootHandler(metricsPort))
                    // The request's start, for fox_avatar_request_duration_seconds: one System.nanoTime().
                    .setServerOption(UndertowOptions.RECORD_REQUEST_START_TIME, true);
        }
        this.undertow = builder
                .setIoThreads(settings.ioThreads())
                // Every avatar answer is made on the IO thread; the one worker thread runs the scrapes
                // (MetricsHandler dispatches them there).
                .setWorkerThreads(1)
                .setBufferSize(BUFFER_SIZE)
                .setDirectBuffers(true)
                .setServerOption(UndertowOptions.MAX_HEADER_SIZE, MAX_HEADER_SIZE)
                .setServerOption(UndertowOptions.MAX_HEADERS, MAX_HEADERS)
                .setServerOption(UndertowOptions.MAX_ENTITY_SIZE, MAX_ENTITY_SIZE)
                .setServerOption(UndertowOptions.MAX_PARAMETERS, 32)
                .setServerOption(UndertowOptions.MAX_COOKIES, 32)
                // No "Connection: keep-alive" on every answer: HTTP/1.1 keeps the connection open without
                // it, Nginx (the only client) drops it, and each answer is shorter.
                // "Connection: close" is still sent when the connection ends.
                .setServerOption(UndertowOptions.ALWAYS_SET_KEEP_ALIVE, false)
                // Browsers send { | } ^ \ raw in a query (WHATWG URL's query set) and nginx accepts them
                // and raw non-ASCII bytes: a 400 here would break an <img>.
                // The query is only scanned (never echoed), and paths are compared exactly.
                .setServerOption(UndertowOptions.ALLOW_UNESCAPED_CHARACTERS_IN_URL, true)
                .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, REQUEST_PARSE_TIMEOUT_MS)
                .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, NO_REQUEST_TIMEOUT_MS)
                .setServerOption(UndertowOptions.ENABLE_HTTP2, false)
                // No Date header: Nginx drops the upstream's and writes its own, and Undertow's, formatted
                // with SimpleDateFormat, loads the JDK's locale and calendar data (more RSS).
                .setServerOption(UndertowOptions.ALWAYS_SET_DATE, false)
                .setSocketOption(Options.BACKLOG, 1024)
                .setHandler(graceful)
                .build();
    }

    public void start() {
        undertow.start();
    }

    public int port() {
        return ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
    }

    /** The metrics listener's port actually bound, or -1 without one. */
    public int metricsPort() {
        return undertow.getListenerInfo().size() < 2 ? -1
                : ((InetSocketAddress) undertow.getListenerInfo().get(1).getAddress()).getPort();
    }

    /**
     * Answers new requests on the avatar port {@code 503} (Undertow's {@code GracefulShutdownHandler}), waits
     * up to {@code timeoutMillis} for those in flight there to finish, then closes the listeners and the
     * connections.
     *
     * @return true when every request in flight finished in time
     */
    public boolean stopGracefully(long timeoutMillis) throws InterruptedException {
        graceful.shutdown();
        boolean drained = graceful.awaitShutdown(timeoutMillis);
        undertow.stop();
        return drained;
    }
}
