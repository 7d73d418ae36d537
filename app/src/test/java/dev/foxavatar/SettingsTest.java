package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SettingsTest {
    @TempDir
    Path images;

    private Settings parse(List<String> args, Map<String, String> env) throws Exception {
        return Settings.parse(args, env);
    }

    @Test
    void defaults_are_loopback_port_8080_and_relative_redirects() throws Exception {
        Settings s = parse(List.of("--images", images.toString()), Map.of());
        assertEquals(8080, s.port());
        assertEquals("127.0.0.1", s.bind());
        assertEquals("/", s.locationPrefix());
        assertTrue(s.ioThreads() >= 1);
    }

    @Test
    void environment_variables_set_every_setting() throws Exception {
        Settings s = parse(List.of(), Map.of("AVATAR_PORT", "9000", "AVATAR_BIND", "::1",
                "AVATAR_IMAGES", images.toString(), "AVATAR_BASE_URL", "https://cdn.example/foxes/",
                "AVATAR_IO_THREADS", "3"));
        assertEquals(9000, s.port());
        assertEquals("::1", s.bind());
        assertEquals(images.toAbsolutePath(), s.images());
        assertEquals("https://cdn.example/foxes/", s.locationPrefix());
        assertEquals(3, s.ioThreads());
    }

    @Test
    void flags_win_over_environment_in_both_spellings() throws Exception {
        Settings s = parse(List.of("--port=9001", "--images", images.toString(), "--io-threads", "2"),
                Map.of("AVATAR_PORT", "9000", "AVATAR_IMAGES", "/nonexistent", "AVATAR_IO_THREADS", "7"));
        assertEquals(9001, s.port());
        assertEquals(2, s.ioThreads());
    }

    @Test
    void the_metrics_listener_defaults_to_loopback_port_8081() throws Exception {
        Settings s = parse(List.of("--images", images.toString()), Map.of());
        assertEquals(8081, s.metricsPort());
        assertEquals("127.0.0.1", s.metricsBind());
        assertTrue(s.metricsOn());
    }

    @Test
    void metrics_port_off_means_no_metrics_listener_and_the_environment_sets_both() throws Exception {
        assertFalse(parse(List.of("--images", images.toString(), "--metrics-port", "off"), Map.of()).metricsOn());
        Settings s = parse(List.of("--images", images.toString()),
                Map.of("AVATAR_METRICS_PORT", "9100", "AVATAR_METRICS_BIND", "0.0.0.0"));
        assertEquals(9100, s.metricsPort());
        assertEquals("0.0.0.0", s.metricsBind());
    }

    @Test
    void no_list_of_people_and_gravatar_defaults_off_unless_set() throws Exception {
        Settings s = parse(List.of("--images", images.toString()), Map.of());
        assertEquals(null, s.people());
        assertFalse(s.gravatarDefaults());
        Path people = Files.writeString(images.resolve("people.tsv"), "");
        s = parse(List.of("--images", images.toString()), Map.of("AVATAR_PEOPLE_FILE", people.toString(),
                "AVATAR_GRAVATAR_DEFAULTS", "on"));
        assertEquals(people, s.people());
        assertEquals("AVATAR_PEOPLE_FILE", s.peopleSetting());
        assertTrue(s.gravatarDefaults());
    }

    @Test
    void usage_lists_the_metrics_settings() {
        assertTrue(Settings.usage().contains("--metrics-port VALUE"), Settings.usage());
        assertTrue(Settings.usage().contains("env AVATAR_METRICS_BIND, default 127.0.0.1"), Settings.usage());
    }

    @Test
    void empty_environment_variable_means_unset() throws Exception {
        Settings s = parse(List.of("--images", images.toString()), Map.of("AVATAR_PORT", ""));
        assertEquals(8080, s.port());
    }

    @ParameterizedTest(name = "{0} {1} is refused naming {2}")
    @CsvSource({
        "--port, 0, --port",
        "--port, 65536, --port",
        "--port, http, --port",
        "--bind, localhost, --bind",
        "--bind, 300.1.1.1, --bind",
        "--images, /nonexistent/foxes, --images",
        "--base-url, ftp://cdn.example, --base-url",
        "--base-url, /relative, --base-url",
        "--base-url, https://cdn.example/?q=1, --base-url",
        "--io-threads, 0, --io-threads",
        "--io-threads, 65, --io-threads",
        "--metrics-port, 0, --metrics-port",
        "--metrics-port, 65536, --metrics-port",
        "--metrics-port, OFF!, --metrics-port",
        "--metrics-port, 8080, --metrics-port",
        "--metrics-bind, localhost, --metrics-bind",
        "--people, /nonexistent/people.tsv, --people",
        "--gravatar-defaults, yes, --gravatar-defaults",
    })
    void a_wrong_flag_value_names_the_setting(String flag, String value, String named) {
        List<String> args = flag.equals("--images") ? List.of(flag, value)
                : List.of("--images", images.toString(), flag, value);
        SettingsException e = assertThrows(SettingsException.class, () -> parse(args, Map.of()));
        assertTrue(e.getMessage().startsWith(named + ": "), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line");
    }

    @Test
    void a_wrong_environment_value_names_the_variable() {
        SettingsException e = assertThrows(SettingsException.class,
                () -> parse(List.of("--images", images.toString()), Map.of("AVATAR_PORT", "eighty")));
        assertTrue(e.getMessage().startsWith("AVATAR_PORT: "), e.getMessage());
    }

    @Test
    void unknown_flags_and_missing_values_are_refused() {
        assertTrue(assertThrows(SettingsException.class, () -> parse(List.of("--colour", "red"), Map.of()))
                .getMessage().startsWith("--colour: "));
        assertTrue(assertThrows(SettingsException.class, () -> parse(List.of("--port"), Map.of()))
                .getMessage().startsWith("--port: "));
    }

    @Test
    void help_is_its_own_outcome() {
        assertThrows(Settings.HelpRequested.class, () -> parse(List.of("--help"), Map.of()));
        for (String flag : List.of("--port", "--bind", "--images", "--base-url", "--io-threads")) {
            assertTrue(Settings.usage().contains(flag), flag);
        }
    }
}
