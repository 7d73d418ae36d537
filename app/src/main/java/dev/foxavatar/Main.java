package dev.foxavatar;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/** Reads the settings and the image manifest, starts the server, and stops it gracefully on SIGTERM/SIGINT. */
public final class Main {
    /** Exit status for a wrong setting or a faulty image set. */
    static final int EXIT_USAGE = 2;
    /** Exit status when the server cannot start (port in use, ...). */
    static final int EXIT_START = 1;
    static final long SHUTDOWN_GRACE_MILLIS = 5_000;

    private Main() {
    }

    public static void main(String[] args) {
        // Undertow and XNIO log through jboss-logging, which ignores slf4j-simple unless told.
        System.setProperty("org.jboss.logging.provider", "slf4j");
        // Private logs (docs/privacy.md): Undertow's debug and trace lines name each request's path
        // (/avatar/<e-mail hash>), so its loggers stay at info whatever level is asked for, the default
        // one (-Dorg.slf4j.simpleLogger.defaultLogLevel=trace) or theirs by name. Before any logger exists.
        System.setProperty("org.slf4j.simpleLogger.log.io.undertow", "info");
        // No platform MBean server for XNIO and jboss-threads to register in (NoMBeanServer).
        NoMBeanServer.install();

        Settings settings;
        ImageManifest images;
        PeopleList people;
        try {
            settings = Settings.parse(Arrays.asList(args), System.getenv());
            images = ManifestReader.read(settings.images());
            people = PeopleList.read(settings.people(), settings.peopleSetting(), images);
        } catch (Settings.HelpRequested help) {
            System.out.print(Settings.usage());
            return;
        } catch (SettingsException | ManifestException wrong) {
            // One line naming the setting, or the manifest file and its line at fault (ManifestReader).
            exit(EXIT_USAGE, wrong.getMessage());
            return;
        }
        AvatarServer server = AvatarServer.of(settings, images, people);
        String problem = start(server, settings);
        if (problem != null) {
            exit(EXIT_START, problem);
            return;
        }
        Logger log = LoggerFactory.getLogger("fox-avatar");
        stopOnSignals(server, log);
        log.info("listening on http://{} with {} images ({} foxes, sizes {}, formats {}) from {}, io-threads {},"
                + " metrics {}, {} listed hashes, gravatar defaults {}",
                Settings.Listener.hostPort(settings.bind(), server.port()), images.imageCount(), images.foxes().length,
                Arrays.stream(images.sizes()).mapToObj(String::valueOf).collect(Collectors.joining(" ")),
                String.join(" ", images.formats().stream().map(ImageManifest.Format::extension).toList()),
                settings.images(), settings.ioThreads(), settings.metricsOn() ? "on http://"
                        + Settings.Listener.hostPort(settings.metricsBind(), server.metricsPort()) + Routes.METRICS_PATH
                        : "off", people.size(), settings.gravatarDefaults() ? "on" : "off");
    }

    /** Starts the server; null when it listens, else the line that says why it cannot. */
    private static String start(AvatarServer server, Settings settings) {
        // Each address is tried before Undertow binds any: a taken one is then named with the setting
        // that chose it (--metrics-port, AVATAR_METRICS_PORT, ...), never guessed from a half-started server.
        for (Settings.Listener listener : settings.listeners()) {
            try (ServerSocket probe = new ServerSocket()) {
                probe.bind(new InetSocketAddress(listener.address(), listener.port())); // released again at once
            } catch (IOException taken) {
                return "cannot listen on " + listener + ": " + taken.getMessage();
            }
        }
        try {
            server.start();
            return null;
        } catch (RuntimeException failed) {
            Throwable cause = failed;
            while (cause.getCause() != null && !(cause instanceof BindException)) {
                cause = cause.getCause();
            }
            // Free a moment ago, taken now (another process won the race): both are named.
            return !(cause instanceof BindException) ? "cannot start: " + cause
                    : "cannot listen on " + settings.listeners().stream().map(Settings.Listener::toString)
                            .collect(Collectors.joining(" and ")) + ": " + cause.getMessage();
        }
    }

    private static void exit(int status, String line) {
        System.err.println("avatar: " + line);
        System.exit(status);
    }

    /**
     * SIGTERM and SIGINT stop the server gracefully and exit 0 (the JVM's default for SIGTERM is 143, with no
     * drain). The stop runs on a thread of its own that is not a daemon: the signal thread is one, and once
     * Undertow's worker threads end, the JVM would exit (0) under it before "stopped" is logged.
     */
    private static void stopOnSignals(AvatarServer server, Logger log) {
        AtomicBoolean stopping = new AtomicBoolean();
        Runnable stop = () -> {
            if (stopping.compareAndSet(false, true)) {
                log.info("stopping: finishing requests in flight (at most {} ms)", SHUTDOWN_GRACE_MILLIS);
                try {
                    server.stopGracefully(SHUTDOWN_GRACE_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                log.info("stopped");
                System.exit(0);
            }
        };
        for (String name : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(name), signal -> {
                Thread thread = new Thread(stop, "fox-avatar-stop");
                thread.setDaemon(false);
                thread.start();
            });
        }
    }
}
