package dev.foxavatar;

/**
 * The fox for a key's hash, as nginx's {@code split_clients} picks it among n equal shares: each of the
 * first n-1 foxes gets floor(10000 / n) hundredths of a percent, the last takes the rest ({@code *}).
 * The boundaries are computed once, with nginx's integer arithmetic.
 */
final class KeyedFox {
    /** Exclusive upper bounds of the first n-1 shares, unsigned 32-bit values held in longs. */
    private final long[] bounds;

    KeyedFox(int foxes) {
        if (foxes < 1 || foxes > 10_000) {
            throw new IllegalArgumentException("1 to 10000 foxes, got " + foxes);
        }
        long share = 10_000 / foxes;
        bounds = new long[foxes - 1];
        long last = 0;
        for (int i = 0; i < bounds.length; i++) {
            last += share * 0xffffffffL / 10_000;
            bounds[i] = last;
        }
    }

    /** The fox index (0-based) for a MurmurHash2 value: the first share whose bound is above it. */
    int index(int hash) {
        long h = hash & 0xffffffffL;
        for (int i = 0; i < bounds.length; i++) {
            if (h < bounds[i]) {
                return i;
            }
        }
        return bounds.length;
    }
}
