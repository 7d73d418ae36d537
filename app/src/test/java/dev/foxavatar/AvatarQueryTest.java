package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The raw query string read as nginx's $arg_NAME reads it (docs/avatar-url.md, "Parameters"). */
class AvatarQueryTest {
    private static final int NONE = AvatarQuery.NONE;

    /** The value of a parameter as a String (test side only), "" when absent, like nginx prints it. */
    private static String value(String query, String name) {
        int start = AvatarQuery.valueStart(query, name);
        return start == NONE ? "" : query.substring(start, AvatarQuery.valueEnd(query, start));
    }

    private static String key(String query) {
        long key = AvatarQuery.key(query, TestImages.MAX_KEY_LENGTH);
        return key == NONE ? null : query.substring(AvatarQuery.keyStart(key), AvatarQuery.keyEnd(key));
    }

    @ParameterizedTest(name = "?{0} asks for {1} px")
    @CsvSource(delimiter = '|', nullValues = "NONE", value = {
        "s=64|64",
        "size=64|64",
        "S=64|64",
        "SIZE=48|48",
        "sIzE=48|48",
        "s=0|0",
        "s=1|1",
        "s=0064|64",
        "s=000000000000000000000000000000000000128|128",
        "s=99999999999999999999|100000000",
        "s=2147483648|100000000",
        "s=64&s=128|64",
        "S=64&s=128|64",
        "s=&size=64|64",
        "size=64&s=|64",
        "size=32&s=128|128",
        "s=128&size=32|128",
        "x=1&s=5|5",
        "foo&bar=baz&s=96|96",
        "&s=3|3",
        "s=1&|1",
        "s&s=7|7",
        "ss=1&s=2|2",
        "sizes=1&size=2|2",
        "a=s=1&s=2|2",
        "s=32&&u=x|32",
        "=&s=1|1",
        "u=abc&s=64&v=2|64",
    })
    void a_size_of_digits_is_its_number(String query, int expected) {
        assertEquals(expected, AvatarQuery.size(query));
    }

    @ParameterizedTest(name = "?{0} gives the default size")
    @ValueSource(strings = {
        "", "s=", "size=", "s=&size=", "s", "size", "s&size", "x=64", "ss=64", "s=-5", "s=-0", "s=+5", "s=64px",
        "s=6.4", "s=%36%34", "s=%2564", "s= 64", "s=64 ", "s=6 4", "s==64", "s=1=2", "s=32;u=x", "s=abc&size=64",
        "s=\u0664", "size=-1", "s=0x40", "s=1e3", "u=64", "s%3D64",
        "s=64px&size=64", // s is not empty: size is not read
    })
    void anything_but_digits_gives_no_size(String query) {
        assertEquals(NONE, AvatarQuery.size(query));
    }

    @ParameterizedTest(name = "?{0} has the key {1}")
    @CsvSource(delimiter = '|', nullValues = "NONE", value = {
        "u=abc|abc",
        "U=abc|abc",
        "u=abc&u=def|abc",
        "xu=1&u=2|2",
        "uU=1&Uu=2&U=3|3",
        "s=64&u=a%40b|a%40b",
        "u=a@b|a@b",
        "u=a=b=c|a=b=c",
        "u=%20|%20",
        "u=+|+",
        "u=!~|!~",
        "u=|NONE",
        "u|NONE",
        "u&u=x|x",
        "x=1|NONE",
        "''|NONE",
        "u=a b|NONE",
        "u=a\tb|NONE",
        "u=caf\u00e9|NONE",
        "u=\u007f|NONE",
        "u=\u00ff|NONE",
        "'u=a\u0000'|NONE",
    })
    void a_key_is_1_to_128_printable_ascii_characters(String query, String expected) {
        assertEquals(expected, key(query));
    }

    @Test
    void a_key_of_128_characters_counts_and_129_does_not() {
        String k128 = "k".repeat(128);
        assertEquals(k128, key("u=" + k128));
        assertEquals(k128, key("s=64&u=" + k128 + "&v=1"));
        assertEquals(null, key("u=" + k128 + "k"));
        assertEquals(null, key("u=" + k128 + "k&u=short"), "the first u counts, even when it is not a key");
        long three = AvatarQuery.key("u=abc", 3);
        assertEquals("abc", "u=abc".substring(AvatarQuery.keyStart(three), AvatarQuery.keyEnd(three)));
        assertEquals(NONE, AvatarQuery.key("u=abcd", 3), "the manifest's max key length is the limit");
    }

    /** What nginx 1.22.1's $arg_s, $arg_size and $arg_u gave for these queries ("-": empty). */
    @ParameterizedTest(name = "?{0}: s={1} size={2} u={3}")
    @CsvSource(delimiter = '|', value = {
        "S=1&s=2|1|-|-", "xu=1&u=2|-|-|2", "u=1&u=2|-|-|1", "s&s=7|7|-|-", "s=1=2|1=2|-|-", "s==64|=64|-|-",
        "s=32;u=x|32;u=x|-|-", "s=32&&u=x|32|-|x", "a=s=1&s=2|2|-|-", "u=x&s=64&u=y&size=9|64|9|x", "size=48&s=|-|48|-",
        "uU=1&Uu=2&U=3|-|-|3", "s=%2564|%2564|-|-", "u=|-|-|-",
    })
    void the_parameters_are_exactly_nginx_arg_variables(String query, String s, String size, String u) {
        assertEquals(List.of(s, size, u), List.of(value(query, "s"), value(query, "size"), value(query, "u")).stream()
                .map(v -> v.isEmpty() ? "-" : v).toList());
    }

    @ParameterizedTest(name = "?{0} asks for default {1}")
    @CsvSource(delimiter = '|', value = {
        "d=404|2", "D=404|2", "default=404|2", "d=&default=mp|0", "d=mm|0", "d=blank&default=404|1",
        "d=404x|-1", "d=MP|-1", "d=identicon|-1", "d=https%3A%2F%2Fx.example%2F404|-1", "dd=404|-1", "s=64|-1",
    })
    void gravatars_default_is_d_else_default_as_sent(String query, int wanted) {
        assertEquals(wanted, AvatarQuery.gravatarDefault(query));
    }

    @Test
    void forcedefault_is_f_y_else_forcedefault_y() {
        assertEquals(List.of(true, true, true, false, false, false), List.of("f=y", "F=y&d=404", "f=&forcedefault=y",
                "f=n&forcedefault=y", "f=yes", "ff=y").stream().map(AvatarQuery::forceDefault).toList());
    }
}
