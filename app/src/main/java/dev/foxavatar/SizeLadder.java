package dev.foxavatar;

/**
 * The size ladder: maps a requested number of pixels to the index of the smallest rendered size at
 * least that large, or of the largest. Built once as a table; a lookup is one array read.
 */
final class SizeLadder {
    private final int[] sizes;
    /** index[n] for every n from 0 to the largest size. */
    private final int[] index;

    /** @param sizes ascending, at least one */
    SizeLadder(int[] sizes) {
        if (sizes.length == 0) {
            throw new IllegalArgumentException("no size");
        }
        this.sizes = sizes.clone();
        int largest = sizes[sizes.length - 1];
        this.index = new int[largest + 1];
        int s = 0;
        for (int n = 0; n <= largest; n++) {
            while (sizes[s] < n) {
                s++;
            }
            index[n] = s;
        }
    }

    /** The size index for {@code requested} px; {@link AvatarQuery#NONE} (no valid size) gives the largest. */
    int index(int requested) {
        return requested < 0 || requested >= index.length ? sizes.length - 1 : index[requested];
    }

    /** The size (px) at an index. */
    int size(int index) {
        return sizes[index];
    }

    int count() {
        return sizes.length;
    }
}
