package dev.foxavatar;

/**
 * The size ladder: maps a requested number of pixels to the index of the smallest rendered size at
 * least that large, or of the largest; no valid size ({@link AvatarQuery#NONE}) gives the default
 * size. Built once as a table; a lookup is one array read. A picture whose own ladder stops lower
 * answers its largest for the sizes above it (the fill rule, in {@link ImageManifest#path}).
 */
final class SizeLadder {
    private final int[] sizes;
    /** index[n] for every n from 0 to the largest size. */
    private final int[] index;
    private final int defaultIndex;

    /** @param sizes ascending, at least one; @param defaultSize one of them, the answer to no valid size */
    SizeLadder(int[] sizes, int defaultSize) {
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
        int d = java.util.Arrays.binarySearch(this.sizes, defaultSize);
        if (d < 0) {
            throw new IllegalArgumentException("default size " + defaultSize + " is not on the ladder");
        }
        this.defaultIndex = d;
    }

    /** The size index for {@code requested} px; {@link AvatarQuery#NONE} (no valid size) gives the default. */
    int index(int requested) {
        return requested < 0 ? defaultIndex : requested >= index.length ? sizes.length - 1 : index[requested];
    }

    int size(int index) {
        return sizes[index];
    }
}
