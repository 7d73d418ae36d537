package dev.foxavatar;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The service's settings: command-line flags, else the matching {@code AVATAR_*} environment variable,
 * else the default. Flags win. Every value is checked here, once, before anything starts.
 */
public record Settings(int port, String bind, Path images, int ioThreads, int metricsPort,
        String metricsBind, String portSetting, String metricsPortSetting, Path people, String peopleSetting,
        boolean gravatarDefaults) {
    /** {@link #metricsPort()} when {@code --metrics-port off}: no metrics listener at all. */
    public static final int METRICS_OFF = -1;

    /**
     * One address the service listens on, and the setting that chose its port (the flag or the
     * environment variable it came from; the flag for a default), so that a port that cannot be had
     * is named as the admin set it.
     */
    public record Listener(String address, int port, String setting) {
        /** {@code address:port}, an IPv6 address in brackets. */
        static String hostPort(String address, int port) {
            return (address.contains(":") ? "[" + address + "]" : address) + ":" + port;
        }

        @Override
        public String toString() {
            return hostPort(address, port) + " (" + setting + ")";
        }
    }

    /** The avatar listener, then the metrics one when it is on: the order they are bound in. */
    public List<Listener> listeners() {
        Listener avatar = new Listener(bind, port, portSetting);
        return metricsOn() ? List.of(avatar, new Listener(metricsBind, metricsPort, metricsPortSetting))
                : List.of(avatar);
    }

    public boolean metricsOn() {
        return metricsPort != METRICS_OFF;
    }

    /** One setting: its flag, its environment variable, its default and its help line. */
    enum Option {
        PORT("port", "8080", "TCP port to listen on (1-65535)"),
        BIND("bind", "127.0.0.1", "address to listen on (an IP address)"),
        IMAGES("images", "images", "directory holding manifest.tsv and the images it lists"),
        IO_THREADS("io-threads", "", "Undertow IO threads (1-64; default: the number of CPUs)"),
        METRICS_PORT("metrics-port", "8081", "TCP port of the /metrics listener (1-65535), or off for none"),
        METRICS_BIND("metrics-bind", "127.0.0.1", "address of the /metrics listener (an IP address)"),
        PEOPLE_FILE("people", "", "people.tsv (`make people`): the picture of each listed hash (default: none)"),
        GRAVATAR_DEFAULTS("gravatar-defaults", "off", "on: d=404, d=mp, d=blank and f=y as Gravatar answers them");

        final String flag;
        final String defaultValue;
        final String help;

        Option(String name, String defaultValue, String help) {
            this.flag = "--" + name;
            this.defaultValue = defaultValue;
            this.help = help;
        }

        String env() {
            return "AVATAR_" + name();
        }
    }

    /** Thrown for {@code --help}: the caller prints {@link #usage()} and exits 0. */
    public static final class HelpRequested extends Exception {
        private static final long serialVersionUID = 1L;
    }

    public static String usage() {
        StringBuilder out = new StringBuilder("Usage: java @jvm.options -jar avatar.jar [options]\n"
                + "Answers GET / with a 302 to a fox image of the manifest (query: s or size, u, d, f; Accept).\n\nOptions:\n");
        for (Option o : Option.values()) {
            out.append(String.format(Locale.ROOT, "  %-20s %s%n  %-20s env %s%s%n", o.flag + " VALUE", o.help, "",
                    o.env(), o.defaultValue.isEmpty() ? "" : ", default " + o.defaultValue));
        }
        return out.append(String.format(Locale.ROOT, "  %-20s %s%n", "--help", "print this help")).toString();
    }

    /** Parses flags (as {@code --name value} or {@code --name=value}) over the given environment. */
    public static Settings parse(List<String> args, Map<String, String> env)
            throws SettingsException, HelpRequested {
        Map<Option, String> given = new HashMap<>();
        Map<Option, String> source = new HashMap<>();
        for (Option o : Option.values()) {
            String v = env.get(o.env());
            if (v != null && !v.isEmpty()) {
                given.put(o, v);
                source.put(o, o.env());
            }
        }
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--help") || arg.equals("-h")) {
                throw new HelpRequested();
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            Option option = null;
            for (Option o : Option.values()) {
                if (o.flag.equals(name)) {
                    option = o;
                }
            }
            if (option == null) {
                throw new SettingsException(name, "unknown option (see --help)");
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new SettingsException(name, "needs a value");
                }
                value = args.get(++i);
            }
            given.put(option, value);
            source.put(option, option.flag);
        }
        Function<Option, String> value = o -> given.getOrDefault(o, o.defaultValue);
        Function<Option, String> named = o -> source.getOrDefault(o, o.flag);

        int port = integer(named.apply(Option.PORT), value.apply(Option.PORT), 1, 65535, "");
        String bind = address(named.apply(Option.BIND), value.apply(Option.BIND));
        Path images = directory(named.apply(Option.IMAGES), value.apply(Option.IMAGES));
        String threads = value.apply(Option.IO_THREADS);
        int ioThreads = threads.isEmpty()
                ? Math.max(1, Runtime.getRuntime().availableProcessors())
                : integer(named.apply(Option.IO_THREADS), threads, 1, 64, "");
        String metrics = value.apply(Option.METRICS_PORT).trim();
        int metricsPort = metrics.equals("off") ? METRICS_OFF
                : integer(named.apply(Option.METRICS_PORT), metrics, 1, 65535, " (or off)");
        String metricsBind = address(named.apply(Option.METRICS_BIND), value.apply(Option.METRICS_BIND));
        if (metricsPort == port && metricsPort != METRICS_OFF) {
            throw new SettingsException(named.apply(Option.METRICS_PORT), "'" + metrics + "' is the avatar port ("
                    + named.apply(Option.PORT) + ") too: the metrics listener needs a port of its own");
        }
        String people = value.apply(Option.PEOPLE_FILE);
        if (!people.isEmpty() && !(Files.isRegularFile(Path.of(people)) && Files.isReadable(Path.of(people)))) {
            throw new SettingsException(named.apply(Option.PEOPLE_FILE), "'" + people + "' is not a readable file");
        }
        String defaults = value.apply(Option.GRAVATAR_DEFAULTS).trim();
        if (!defaults.equals("on") && !defaults.equals("off")) {
            throw new SettingsException(named.apply(Option.GRAVATAR_DEFAULTS), "'" + defaults + "' is not on or off");
        }
        return new Settings(port, bind, images, ioThreads, metricsPort, metricsBind,
                named.apply(Option.PORT), named.apply(Option.METRICS_PORT), people.isEmpty() ? null : Path.of(people),
                named.apply(Option.PEOPLE_FILE), defaults.equals("on"));
    }

    private static int integer(String setting, String text, int min, int max, String or)
            throws SettingsException {
        try {
            int n = Integer.parseInt(text.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new SettingsException(setting, "'" + text + "' is not a whole number from " + min + " to " + max + or);
    }

    private static String address(String setting, String text) throws SettingsException {
        // A literal IPv4 or IPv6 address only: a host name would mean a DNS lookup at start-up.
        boolean ipv4 = text.matches("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
        boolean ipv6 = text.contains(":") && text.matches("[0-9A-Fa-f:.]+");
        if (!ipv4 && !ipv6) {
            throw new SettingsException(setting, "'" + text + "' is not an IP address");
        }
        return text;
    }

    private static Path directory(String setting, String text) throws SettingsException {
        Path path = Path.of(text).toAbsolutePath().normalize();
        if (!Files.isDirectory(path)) {
            throw new SettingsException(setting, "'" + text + "' is not a directory");
        }
        if (!Files.isReadable(path)) {
            throw new SettingsException(setting, "'" + text + "' is not readable");
        }
        return path;
    }
}
