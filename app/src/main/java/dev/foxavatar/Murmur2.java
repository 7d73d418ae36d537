package dev.foxavatar;

/**
 * MurmurHash2, 32 bits, exactly as nginx's {@code ngx_murmur_hash2} (seed 0 XOR length, 4-byte
 * little-endian blocks, the tail, the final mix), which {@code split_clients} uses. Hashes the chars of
 * a region of a String, then those of a suffix, as bytes (the key is printable ASCII), in place: what
 * {@code split_clients "${key}#v"} hashes, without building that string.
 */
final class Murmur2 {
    private static final int M = 0x5bd1e995;

    private Murmur2() {
    }

    /** The hash of the bytes {@code s.charAt(from) .. s.charAt(to - 1)} (each char's low 8 bits). */
    static int hash(String s, int from, int to) {
        return hash(s, from, to, "");
    }

    /** The hash of the region's bytes followed by {@code suffix}'s. */
    static int hash(String s, int from, int to, String suffix) {
        int n = to - from;
        int len = n + suffix.length();
        int h = len;
        int i = 0;
        while (len - i >= 4) {
            int k = at(s, from, n, suffix, i) | at(s, from, n, suffix, i + 1) << 8
                    | at(s, from, n, suffix, i + 2) << 16 | at(s, from, n, suffix, i + 3) << 24;
            k *= M;
            k ^= k >>> 24;
            k *= M;
            h *= M;
            h ^= k;
            i += 4;
        }
        switch (len - i) {
            case 3:
                h ^= at(s, from, n, suffix, i + 2) << 16;
                // fall through
            case 2:
                h ^= at(s, from, n, suffix, i + 1) << 8;
                // fall through
            case 1:
                h ^= at(s, from, n, suffix, i);
                h *= M;
                break;
            default:
                break;
        }
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }

    /** Byte i of the region followed by the suffix. */
    private static int at(String s, int from, int n, String suffix, int i) {
        return (i < n ? s.charAt(from + i) : suffix.charAt(i - n)) & 0xff;
    }
}
