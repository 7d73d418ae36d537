package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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

    private Settings parse(Map<String, String> env, String... args) throws Exception {
        return Settings.parse(List.of(args), env);
    }

    @Test
    void the_defaults_are_loopback_ports_8080_and_8081_no_people_and_gravatar_defaults_off() throws Exception {
        Settings s = parse(Map.of("AVATAR_PORT", ""), "--images", images.toString()); // empty: unset
        assertEquals(List.of(new Settings.Listener("127.0.0.1", 8080, "--port"),
                new Settings.Listener("127.0.0.1", 8081, "--metrics-port")), s.listeners());
        assertTrue(s.ioThreads() >= 1);
        assertNull(s.people());
        assertFalse(s.gravatarDefaults());
    }

    @Test
    void environment_variables_set_every_setting_and_are_named_as_set() throws Exception {
        Path people = Files.writeString(images.resolve("people.tsv"), "");
        Settings s = parse(Map.of("AVATAR_PORT", "9000", "AVATAR_BIND", "::1", "AVATAR_IMAGES", images.toString(),
                "AVATAR_IO_THREADS", "3", "AVATAR_METRICS_PORT", "9100", "AVATAR_METRICS_BIND", "0.0.0.0",
                "AVATAR_PEOPLE_FILE", people.toString(), "AVATAR_GRAVATAR_DEFAULTS", "on"));
        assertEquals(List.of(new Settings.Listener("::1", 9000, "AVATAR_PORT"),
                new Settings.Listener("0.0.0.0", 9100, "AVATAR_METRICS_PORT")), s.listeners());
        assertEquals("[::1]:9000 (AVATAR_PORT)", s.listeners().get(0).toString());
        assertEquals(images.toAbsolutePath(), s.images());
        assertEquals(3, s.ioThreads());
        assertEquals(people, s.people());
        assertEquals("AVATAR_PEOPLE_FILE", s.peopleSetting());
        assertTrue(s.gravatarDefaults());
    }

    @Test
    void flags_win_over_environment_in_both_spellings_and_off_means_no_metrics_listener() throws Exception {
        Settings s = parse(Map.of("AVATAR_PORT", "9000", "AVATAR_IMAGES", "/nonexistent", "AVATAR_IO_THREADS", "7"),
                "--port=9001", "--images", images.toString(), "--io-threads", "2", "--metrics-port", "off");
        assertEquals(List.of(new Settings.Listener("127.0.0.1", 9001, "--port")), s.listeners());
        assertEquals(2, s.ioThreads());
        assertFalse(s.metricsOn());
    }

    @ParameterizedTest(name = "{0} {1} is refused naming {0}")
    @CsvSource({
        "--port, 0",
        "--port, 65536",
        "--port, http",
        "--bind, localhost",
        "--bind, 300.1.1.1",
        "--images, /nonexistent/foxes",
        "--io-threads, 0",
        "--io-threads, 65",
        "--metrics-port, 0",
        "--metrics-port, OFF!",
        "--metrics-bind, localhost",
        "--people, /nonexistent/people.tsv",
        "--gravatar-defaults, yes",
        "--colour, red",
    })
    void a_wrong_flag_value_is_refused_in_one_line_naming_the_flag(String flag, String value) {
        SettingsException e = assertThrows(SettingsException.class,
                () -> parse(Map.of(), "--images", images.toString(), flag, value));
        assertTrue(e.getMessage().startsWith(flag + ": "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line");
    }

    @Test
    void a_wrong_environment_value_names_the_variable_a_flag_without_value_the_flag_and_a_shared_port_both() {
        assertEquals("AVATAR_PORT: 'eighty' is not a whole number from 1 to 65535", assertThrows(SettingsException.class,
                () -> parse(Map.of("AVATAR_PORT", "eighty"), "--images", images.toString())).getMessage());
        assertEquals("--port: needs a value", assertThrows(SettingsException.class, () -> parse(Map.of(), "--port"))
                .getMessage());
        assertEquals("AVATAR_METRICS_PORT: '9999' is the avatar port (--port) too: the metrics listener needs a port"
                + " of its own", assertThrows(SettingsException.class, () -> parse(Map.of("AVATAR_METRICS_PORT", "9999"),
                        "--images", images.toString(), "--port", "9999")).getMessage());
    }

    @Test
    void help_is_its_own_outcome_and_usage_lists_every_setting_with_its_variable_and_default() {
        assertThrows(Settings.HelpRequested.class, () -> parse(Map.of(), "--help"));
        for (Settings.Option o : Settings.Option.values()) {
            assertTrue(Settings.usage().contains(o.flag + " VALUE"), Settings.usage());
            assertTrue(Settings.usage().contains("env " + o.env()), Settings.usage());
        }
        assertTrue(Settings.usage().contains("env AVATAR_PORT, default 8080"), Settings.usage());
    }
}
