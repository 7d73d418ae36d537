package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * Snapping a requested size to the ladder: the smallest size at least that large, capped at the largest;
 * no valid size gets the manifest's default (256, below the top of the ladder, 512).
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
    void no_valid_size_gives_the_default_or_without_one_the_largest() {
        assertEquals(256, snap(AvatarQuery.NONE));
        SizeLadder noDefault = new SizeLadder(TestImages.SIZES);
        assertEquals(512, noDefault.size(noDefault.index(AvatarQuery.NONE)));
        SizeLadder one = new SizeLadder(new int[] {100});
        assertEquals(0, one.index(1));
        assertEquals(0, one.index(1000));
        assertEquals(0, one.index(AvatarQuery.NONE));
    }

    @Test
    void a_default_off_the_ladder_is_refused() {
        assertThrows(IllegalArgumentException.class, () -> new SizeLadder(TestImages.SIZES, 200));
    }
}
