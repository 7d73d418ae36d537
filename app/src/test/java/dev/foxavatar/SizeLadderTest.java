package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Snapping a requested size to the ladder: the smallest size at least that large, capped at the largest. */
class SizeLadderTest {
    private final SizeLadder ladder = new SizeLadder(TestImages.SIZES);

    private int snap(int requested) {
        return ladder.size(ladder.index(requested));
    }

    @Test
    void every_size_from_1_to_300_snaps_up_to_the_next_rung_or_the_top() {
        for (int n = 1; n <= 300; n++) {
            int expected = n <= 32 ? 32 : n <= 48 ? 48 : n <= 64 ? 64 : n <= 96 ? 96 : n <= 128 ? 128
                    : n <= 192 ? 192 : 256;
            assertEquals(expected, snap(n), "s=" + n);
        }
    }

    @Test
    void zero_is_the_smallest_and_huge_is_the_largest() {
        assertEquals(32, snap(0));
        assertEquals(256, snap(257));
        assertEquals(256, snap(AvatarQuery.SATURATED));
        assertEquals(256, snap(Integer.MAX_VALUE));
    }

    @Test
    void no_valid_size_gives_the_largest_the_default() {
        assertEquals(256, snap(AvatarQuery.NONE));
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
