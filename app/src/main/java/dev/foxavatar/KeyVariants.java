package dev.foxavatar;

/**
 * A key's variant (its identity's background), as nginx's {@code split_clients "${key}#v"} picks it among
 * the manifest's {@code count} equal parts: part boundaries k * floor(0xffffffff / count), the last part
 * taking the rest. Its own hash (the key and {@link #SUFFIX}) is independent of
 * the bucket's, so the set's pictures can change without moving a key's variant.
 */
final class KeyVariants {
    static final String SUFFIX = "#v";
    private final int count;
    private final long part;

    /** @param count a divisor of {@link KeyBuckets#BUCKETS} (whole hundredths of a percent each; ManifestReader checks it) */
    KeyVariants(int count) {
        this.count = count;
        this.part = 0xffffffffL / count;
    }

    /** The variant (0 to count - 1) of the key {@code s.charAt(from) .. s.charAt(to - 1)}. */
    int variant(String s, int from, int to) {
        int hash = Murmur2.hash(s, from, to, SUFFIX);
        return (int) Math.min((hash & 0xffffffffL) / part, count - 1);
    }
}
