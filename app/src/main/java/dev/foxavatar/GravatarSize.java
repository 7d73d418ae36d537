package dev.foxavatar;

/**
 * The size rule of the Gravatar URL: {@code s}, else {@code size} (read as for {@code /}, see
 * {@link AvatarQuery#size}); 1 to {@link #MAX} (2048) px is Gravatar's range and
 * snaps up the ladder (the top rung above it); anything else (none, 0, out of range, not a number) is
 * Gravatar's default, {@link #DEFAULT} (80) px. Built once: a lookup is a
 * comparison and an array read.
 */
final class GravatarSize {
    static final int DEFAULT = 80;
    static final int MAX = 2048;

    private final SizeLadder ladder;
    private final int defaultIndex;

    GravatarSize(SizeLadder ladder) {
        this.ladder = ladder;
        this.defaultIndex = ladder.index(DEFAULT);
    }

    int index(String query) {
        int requested = AvatarQuery.size(query);
        return requested >= 1 && requested <= MAX ? ladder.index(requested) : defaultIndex;
    }
}
