package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The format from the Accept header, by the manifest's media types, for real clients and the edges of the rule. */
class FormatChooserTest {
    private final FormatChooser chooser = new FormatChooser(List.of("image/avif", "image/webp", "image/png"));

    @ParameterizedTest(name = "{0}: {2}")
    @CsvSource(delimiter = '|', nullValues = "NULL", value = {
        "Chromium|image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8|avif",
        "Firefox|image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5|avif",
        "Safari 17|image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,"
                + "image/svg+xml,image/*;q=0.8,*/*;q=0.5|avif",
        "old Safari|image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5|webp",
        "curl|*/*|png",
        "no header|NULL|png",
        "avif refused with q=0|image/avif;q=0,image/webp|webp",
        "avif refused with q=0.000|image/avif; q = 0.000 ,image/webp|webp",
        "refused in upper case|IMAGE/AVIF;Q=0.0,image/webp;q=0.|png",
        "avif with q=0.5|image/avif;q=0.5|avif",
        "avif with q=0.01|image/avif;q=0.01,image/png|avif",
        "upper case|IMAGE/AVIF|avif",
        "spaces around|  image/webp  ,  image/png|webp",
        "only image/*|image/*|png",
        "a longer type is not avif|image/avifx,image/webpx|png",
        "a prefix is not avif|ximage/avif|png",
        "parameters after q=0 still refuse|image/webp;q=0;foo=bar|png",
        "a parameter other than q|image/webp;foo=bar|webp",
        "refused, then listed again|image/avif;q=0,image/webp,image/avif|avif",
        "empty|''|png",
    })
    void a_client_gets_the_best_format_it_lists(String client, String accept, String expected) {
        assertEquals(expected, TestImages.FORMATS[chooser.choose(accept)], client + ": " + accept);
    }
}
