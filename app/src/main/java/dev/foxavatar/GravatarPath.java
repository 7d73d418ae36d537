package dev.foxavatar;

/**
 * The Gravatar/Libravatar avatar path, {@code /avatar/<hash>} or {@code /avatar/<hash>.<ext>}: the hash is
 * 32 (MD5) or 64 (SHA-256) hex digits in any case, the extension 1 to 5 ASCII letters or digits (clients
 * append {@code .jpg} or {@code .png} out of habit; it never picks the format: {@code Accept} does). The
 * hash is the key exactly as written, so {@code /avatar/<hash>} gets the fox of {@code /?u=<hash>}; an
 * upper-case hash is another key, as it is for {@code u}. Anything else under {@code /avatar/} (a trailing
 * slash, junk after the hash, another length, dot segments) is no key. Scans by index: nothing is allocated.
 */
final class GravatarPath {
    static final String PREFIX = "/avatar/";
    private static final int MD5_DIGITS = 32;
    private static final int SHA256_DIGITS = 64;
    private static final int MAX_EXTENSION = 5;

    private GravatarPath() {
    }

    /**
     * The hash in {@code path} (a request path that starts with {@link #PREFIX}) as
     * {@code start << 32 | end}, or {@link AvatarQuery#NONE} when the rest of the path is not a hash with
     * an optional extension.
     */
    static long hash(String path) {
        int start = PREFIX.length();
        int length = path.length();
        int end = start;
        while (end < length && isHexDigit(path.charAt(end))) {
            end++;
        }
        int digits = end - start;
        if ((digits != MD5_DIGITS && digits != SHA256_DIGITS)
                || !isExtensionOrNothing(path, end)) {
            return AvatarQuery.NONE;
        }
        return (long) start << 32 | end;
    }

    private static boolean isExtensionOrNothing(String path, int at) {
        int length = path.length();
        if (at == length) {
            return true;
        }
        int letters = length - at - 1;
        if (path.charAt(at) != '.' || letters < 1 || letters > MAX_EXTENSION) {
            return false;
        }
        for (int i = at + 1; i < length; i++) {
            char c = path.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isHexDigit(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }
}
