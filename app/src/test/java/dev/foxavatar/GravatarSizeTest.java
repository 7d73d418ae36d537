package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Gravatar's size rule on the ladder: 1..2048 snaps up (the top rung above it), else 80 px. How s and size
 * are read is {@link AvatarQuery#size}'s ({@code AvatarQueryTest}).
 */
class GravatarSizeTest {
    private final SizeLadder ladder = new SizeLadder(TestImages.SIZES, TestImages.DEFAULT_SIZE);
    private final GravatarSize sizes = new GravatarSize(ladder);

    @ParameterizedTest(name = "?{0} gets {1} px")
    @CsvSource(delimiter = '|', value = {
        "|96",                              // none: Gravatar's 80, snapped up
        "s=80|96",
        "s=1|32",
        "s=513|512",                         // above the top rung: the top rung
        "s=2048|512",
        "s=02048|512",
        "s=0|96",                            // outside Gravatar's 1..2048: its default
        "s=2049|96",
        "s=-1|96",
        "s=99999999999999999999|96",
        "s=2147483648|96",
        "s=abc|96",
        "size=24|32",                        // the long name (Redmine, Grafana)
        "rating=PG&size=24&default=mm|32",   // Redmine's form
        "d=retro&size=200&r=pg|256",         // Grafana's
        "s=580&d=identicon|512",             // Gitea's 2x profile
        "s=40&r=pg&d=identicon|48",          // Discourse's
    })
    void size_from_the_query(String query, int px) {
        assertEquals(px, ladder.size(sizes.index(query == null ? "" : query)), query);
    }
}
