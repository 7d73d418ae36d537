package dev.foxavatar;

import java.net.BindException;
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
    /** How long a stop waits for requests in flight. */
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
            images = ImageManifest.load(settings.images());
            people = PeopleList.read(settings.people(), settings.peopleSetting(), images);
        } catch (Settings.HelpRequested help) {
            System.out.print(Settings.usage());
            return;
        } catch (SettingsException wrong) {
            System.err.println("avatar: " + wrong.getMessage());
            System.exit(EXIT_USAGE);
            return;
        } catch (ManifestException bad) {
            // One line naming the manifest file, the line at fault and the fault (ManifestReader).
            System.err.println("avatar: " + bad.getMessage());
            System.exit(EXIT_USAGE);
            return;
        }

        Logger log = LoggerFactory.getLogger("fox-avatar");
        AvatarServer server;
        if (settings.metricsOn()) {
            RequestMetrics metrics = new RequestMetrics(images, ManifestDigest.of(settings.images()));
            server = new AvatarServer(settings, Routes.avatarPort(settings.locationPrefix(), images, people,
                    settings.gravatarDefaults(), metrics),
                    Routes.metricsPort(metrics));
        } else {
            server = new AvatarServer(settings, Routes.avatarPort(settings.locationPrefix(), images, people,
                    settings.gravatarDefaults(), RequestMetrics.OFF));
        }
        // Each address is tried before Undertow binds any: a taken one is then named with the setting
        // that chose it (--metrics-port, AVATAR_METRICS_PORT, ...), never guessed from a half-started server.
        for (Settings.Listener listener : settings.listeners()) {
            String problem = BindProbe.problem(listener);
            if (problem != null) {
                System.err.println("avatar: " + problem);
                System.exit(EXIT_START);
                return;
            }
        }
        try {
            server.start();
        } catch (RuntimeException failed) {
            Throwable cause = failed;
            while (cause.getCause() != null && !(cause instanceof BindException)) {
                cause = cause.getCause();
            }
            // Free a moment ago, taken now (another process won the race): both are named.
            String why = !(cause instanceof BindException) ? "cannot start: " + cause
                    : "cannot listen on " + settings.listeners().stream().map(Settings.Listener::toString)
                            .collect(Collectors.joining(" and ")) + ": " + cause.getMessage();
            System.err.println("avatar: " + why);
            System.exit(EXIT_START);
            return;
        }

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
        // Handled signals exit 0 after a clean stop (the JVM's default for SIGTERM is 143, with no drain).
        // The stop runs on a thread of its own that is not a daemon: the signal thread is one, and once
        // Undertow's worker threads end, the JVM would exit (0) under it before "stopped" is logged.
        Signal.handle(new Signal("TERM"), signal -> stopThread(stop).start());
        Signal.handle(new Signal("INT"), signal -> stopThread(stop).start());

        log.info("listening on http://{}:{} with {} images ({} foxes, sizes {}, formats {}) from {}, redirecting"
                + " to {}*, io-threads {}, metrics {}, {} listed hashes, gravatar defaults {}",
                settings.bind().contains(":") ? "[" + settings.bind() + "]" : settings.bind(), server.port(),
                images.imageCount(), images.foxes().length, joined(images.sizes()),
                String.join(" ", images.formats().stream().map(ImageManifest.Format::extension).toList()),
                settings.images(), settings.locationPrefix(), settings.ioThreads(),
                settings.metricsOn() ? "on http://" + hostPort(settings.metricsBind(), server.metricsPort())
                        + Routes.METRICS_PATH : "off", people.size(), settings.gravatarDefaults() ? "on" : "off");
    }

    private static String hostPort(String address, int port) {
        return (address.contains(":") ? "[" + address + "]" : address) + ":" + port;
    }

    private static String joined(int[] numbers) {
        StringBuilder out = new StringBuilder();
        for (int n : numbers) {
            out.append(out.length() == 0 ? "" : " ").append(n);
        }
        return out.toString();
    }

    private static Thread stopThread(Runnable stop) {
        Thread thread = new Thread(stop, "fox-avatar-stop");
        thread.setDaemon(false);
        return thread;
    }
}
