package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    void every_size_from_1_to_600_snaps_up_to_the_next_rung_or_the_top() {
        for (int n = 1; n <= 600; n++) {
            int expected = n <= 32 ? 32 : n <= 48 ? 48 : n <= 64 ? 64 : n <= 96 ? 96 : n <= 128 ? 128
                    : n <= 192 ? 192 : n <= 256 ? 256 : n <= 384 ? 384 : 512;
            assertEquals(expected, snap(n), "s=" + n);
        }
    }

    @Test
    void zero_is_the_smallest_and_huge_is_the_largest() {
        assertEquals(32, snap(0));
        assertEquals(384, snap(257));
        assertEquals(512, snap(513));
        assertEquals(512, snap(AvatarQuery.SATURATED));
        assertEquals(512, snap(Integer.MAX_VALUE));
    }

    @Test
    void no_valid_size_gives_the_default_not_the_largest() {
        assertEquals(256, snap(AvatarQuery.NONE));
        assertEquals(512, new SizeLadder(TestImages.SIZES).size(new SizeLadder(TestImages.SIZES).index(AvatarQuery.NONE)),
                "without a default, the largest");
    }

    @Test
    void a_default_off_the_ladder_is_refused() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new SizeLadder(TestImages.SIZES, 200));
    }

    @Test
    void a_rung_is_its_own_answer() {
        for (int i = 0; i < TestImages.SIZES.length; i++) {
            assertEquals(i, ladder.index(TestImages.SIZES[i]));
        }
    }

    @Test
    void a_ladder_of_one_size_answers_it_always() {
        SizeLadder one = new SizeLadder(new int[] {100});
        assertEquals(0, one.index(1));
        assertEquals(0, one.index(1000));
        assertEquals(0, one.index(AvatarQuery.NONE));
    }
}
