package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Snapping a requested size to the ladder: the smallest size at least that large, capped at the largest;
 * no valid size gets the manifest's default (256, below the top of the ladder, 512). Gravatar's size rule
 * ({@link GravatarSize}): 1..2048 snaps up (the top rung above it), else 80 px; how s and size are read is
 * {@link AvatarQuery#size}'s ({@code AvatarQueryTest}).
 */
class SizeLadderTest {
    private final SizeLadder ladder = new SizeLadder(TestImages.SIZES, TestImages.DEFAULT_SIZE);

    private int snap(int requested) {
        return ladder.size(ladder.index(requested));
    }

    @Test
    void every_size_snaps_up_to_the_next_rung_zero_to_the_smallest_and_above_the_top_to_the_top() {
        for (int n = 0; n <= 600; n++) {
            int expected = n <= 32 ? 32 : n <= 48 ? 48 : n <= 64 ? 64 : n <= 96 ? 96 : n <= 128 ? 128
                    : n <= 192 ? 192 : n <= 256 ? 256 : n <= 384 ? 384 : 512;
            assertEquals(expected, snap(n), "s=" + n);
        }
        assertEquals(512, snap(AvatarQuery.SATURATED));
        assertEquals(512, snap(Integer.MAX_VALUE));
    }

    @Test
    void no_valid_size_gives_the_default_on_the_ladder() {
        assertEquals(256, snap(AvatarQuery.NONE));
        SizeLadder one = new SizeLadder(new int[] {100}, 100);
        assertEquals(0, one.index(1));
        assertEquals(0, one.index(1000));
        assertEquals(0, one.index(AvatarQuery.NONE));
        assertThrows(IllegalArgumentException.class, () -> new SizeLadder(TestImages.SIZES, 200), "a default off the ladder");
    }

    @ParameterizedTest(name = "/avatar/...?{0} gets {1} px")
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
    void gravatars_size_rule_on_the_ladder(String query, int px) {
        assertEquals(px, ladder.size(new GravatarSize(ladder).index(query == null ? "" : query)), query);
    }
}
