package dev.foxavatar;

/**
 * The picture for a key's hash, from the manifest's bucket table: the bucket is the part nginx's
 * {@code split_clients} picks among 10,000 parts of 0.01 % over the hash (part boundaries k *
 * floor(0xffffffff / BUCKETS), the last part taking the rest), and the table names each bucket's picture.
 * One division and one array read; the table is how the image set keeps keys stable when pictures
 * come and go (imageset/buckets.py).
 */
final class KeyBuckets {
    static final int BUCKETS = 10_000;
    /** split_clients' width of a 0.01 % part: floor(0xffffffff / BUCKETS). */
    static final long PART = 0xffffffffL / BUCKETS;
    private final int[] buckets;

    /** @param buckets the picture index of each of the {@link #BUCKETS} buckets (ManifestReader checks the count) */
    KeyBuckets(int[] buckets) {
        this.buckets = buckets.clone();
    }

    /** The bucket (0 to BUCKETS - 1) of a MurmurHash2 value, read as unsigned 32 bits. */
    static int bucket(int hash) {
        return (int) Math.min((hash & 0xffffffffL) / PART, BUCKETS - 1);
    }

    /** The picture index (0-based) for a MurmurHash2 value. */
    int picture(int hash) {
        return buckets[bucket(hash)];
    }
}
