package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The format from the Accept header, by the manifest's regexes
 * (imageset/contract.py's ACCEPT_TEMPLATE), for real clients.
 */
class FormatChooserTest {
    static final List<String> REGEXES = List.of(
            TestImages.acceptRegex("image/avif"), TestImages.acceptRegex("image/webp"), "");
    private final FormatChooser chooser = new FormatChooser(REGEXES);

    private String choose(String accept) {
        return TestImages.FORMATS[chooser.choose(accept)];
    }

    @ParameterizedTest(name = "{0}: {2}")
    @CsvSource(delimiter = '|', value = {
        "Chromium|image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8|avif",
        "Firefox|image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5|avif",
        "Safari 17|image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,"
                + "image/svg+xml,image/*;q=0.8,*/*;q=0.5|avif",
        "old Safari|image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5|webp",
        "curl|*/*|png",
        "avif refused with q=0|image/avif;q=0,image/webp|webp",
        "avif refused with q=0.000|image/avif; q = 0.000 ,image/webp|webp",
        "avif with q=0.5|image/avif;q=0.5|avif",
        "avif with q=0.01|image/avif;q=0.01,image/png|avif",
        "upper case|IMAGE/AVIF|avif",
        "spaces around|  image/webp  ,  image/png|webp",
        "only image/*|image/*|png",
        "a longer type is not avif|image/avifx,image/webpx|png",
        "a prefix is not avif|ximage/avif|png",
        "parameters after q=0 still refuse|image/webp;q=0;foo=bar|png",
        "a parameter other than q|image/webp;foo=bar|webp",
        "empty|''|png",
    })
    void a_client_gets_the_best_format_it_lists(String client, String accept, String expected) {
        assertEquals(expected, choose(accept), client + ": " + accept);
    }

    @Test
    void a_remembered_header_never_answers_for_a_different_one() {
        String chromium = "image/avif,image/webp,*/*;q=0.8";
        for (int i = 0; i < 3; i++) {
            assertEquals("avif", choose(chromium));
            assertEquals("avif", choose(new String(chromium)));   // equal content, another String
            assertEquals("webp", choose("image/webp,*/*"));
            assertEquals("png", choose("*/*"));
            assertEquals("png", choose(null));
        }
    }

    @Test
    void no_accept_header_gets_png() {
        assertEquals("png", choose(null));
    }

    @Test
    void the_answers_stay_right_when_threads_interleave() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> all = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int seed = t;
                all.add(pool.submit(() -> {
                    for (int i = 0; i < 20_000; i++) {
                        switch ((i + seed) % 3) {
                            case 0 -> { if (chooser.choose("image/avif,*/*") != 0) return false; }
                            case 1 -> { if (chooser.choose("image/webp") != 1) return false; }
                            default -> { if (chooser.choose("*/*") != 2) return false; }
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> f : all) {
                assertEquals(true, f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
