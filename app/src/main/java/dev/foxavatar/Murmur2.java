package dev.foxavatar;

/**
 * MurmurHash2, 32 bits, exactly as nginx's {@code ngx_murmur_hash2} (seed 0 XOR length, 4-byte
 * little-endian blocks, the tail, the final mix), which {@code split_clients} uses. Hashes the chars of
 * a region of a String as bytes (the key is printable ASCII), in place.
 */
final class Murmur2 {
    private static final int M = 0x5bd1e995;

    private Murmur2() {
    }

    /** The hash of the bytes {@code s.charAt(from) .. s.charAt(to - 1)} (each char's low 8 bits). */
    static int hash(String s, int from, int to) {
        int len = to - from;
        int h = len;
        int i = from;
        while (to - i >= 4) {
            int k = (s.charAt(i) & 0xff) | (s.charAt(i + 1) & 0xff) << 8 | (s.charAt(i + 2) & 0xff) << 16
                    | (s.charAt(i + 3) & 0xff) << 24;
            k *= M;
            k ^= k >>> 24;
            k *= M;
            h *= M;
            h ^= k;
            i += 4;
        }
        switch (to - i) {
            case 3:
                h ^= (s.charAt(i + 2) & 0xff) << 16;
                // fall through
            case 2:
                h ^= (s.charAt(i + 1) & 0xff) << 8;
                // fall through
            case 1:
                h ^= s.charAt(i) & 0xff;
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
}
