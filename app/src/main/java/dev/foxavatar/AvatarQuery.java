package dev.foxavatar;

/**
 * The avatar URL's parameters, read from the raw (not percent-decoded) query string exactly as nginx's
 * {@code $arg_NAME} reads it: parts split on {@code &}, a name matches case-insensitively and needs its
 * {@code =}, the first occurrence wins. Scans by index: nothing is allocated.
 */
final class AvatarQuery {
    /** No such parameter, no usable size, no key. */
    static final int NONE = -1;
    /** Any number of pixels at or above this is "larger than every size" (keeps the arithmetic in int). */
    static final int SATURATED = 100_000_000;
    /** Gravatar's {@code d} values the sidecar answers ({@link #gravatarDefault}). */
    static final int D_MP = 0;
    static final int D_BLANK = 1;
    static final int D_404 = 2;

    private AvatarQuery() {
    }

    /**
     * Where the value of the first parameter {@code name} starts (just after its {@code =}), or
     * {@link #NONE}. {@code name} is lower-case ASCII; the query's names match it case-insensitively.
     */
    static int valueStart(String query, String name) {
        int length = query.length();
        int partStart = 0;
        while (partStart < length) {
            if (nameAt(query, partStart, name)) {
                return partStart + name.length() + 1;
            }
            int amp = query.indexOf('&', partStart);
            if (amp < 0) {
                return NONE;
            }
            partStart = amp + 1;
        }
        return NONE;
    }

    /** Where the value that starts at {@code start} ends (exclusive): the next {@code &}, or the end. */
    static int valueEnd(String query, int start) {
        int amp = query.indexOf('&', start);
        return amp < 0 ? query.length() : amp;
    }

    private static boolean nameAt(String query, int at, String name) {
        int n = name.length();
        if (at + n >= query.length() || query.charAt(at + n) != '=') {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = query.charAt(at + i);
            if ((c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c) != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Where the value of {@code name} starts if it is non-empty, else that of {@code longName}, or {@link #NONE}. */
    static int valueStart(String query, String name, String longName) {
        int start = valueStart(query, name);
        return start == NONE || valueEnd(query, start) == start ? valueStart(query, longName) : start;
    }

    /**
     * The size asked for: the value of {@code s} if it is non-empty, else that of {@code size}; its number
     * when it is all ASCII digits (capped at {@link #SATURATED}), else {@link #NONE} (the default size).
     */
    static int size(String query) {
        int start = valueStart(query, "s", "size");
        if (start == NONE) {
            return NONE;
        }
        int end = valueEnd(query, start);
        if (start == end) {
            return NONE;
        }
        int n = 0;
        for (int i = start; i < end; i++) {
            char c = query.charAt(i);
            if (c < '0' || c > '9') {
                return NONE;
            }
            n = Math.min(n * 10 + (c - '0'), SATURATED);
        }
        return n;
    }

    /**
     * The key, the value of {@code u}, as {@code start << 32 | end} in the query, when it is 1 to
     * {@code maxLength} printable ASCII characters ({@code !} to {@code ~}); else {@link #NONE}.
     */
    static long key(String query, int maxLength) {
        int start = valueStart(query, "u");
        if (start == NONE) {
            return NONE;
        }
        int end = valueEnd(query, start);
        if (end == start || end - start > maxLength) {
            return NONE;
        }
        for (int i = start; i < end; i++) {
            char c = query.charAt(i);
            if (c < '!' || c > '~') {
                return NONE;
            }
        }
        return (long) start << 32 | end;
    }

    /**
     * Gravatar's default for a hash without a picture of its own: {@code d}, else {@code default}, as sent:
     * {@link #D_404}, {@link #D_MP} ({@code mp} or {@code mm}), {@link #D_BLANK}, or {@link #NONE} for any other
     * value (identicon, a URL, ...) and none.
     */
    static int gravatarDefault(String query) {
        int start = valueStart(query, "d", "default");
        int end = start == NONE ? NONE : valueEnd(query, start);
        return is(query, start, end, "404") ? D_404 : is(query, start, end, "mp") || is(query, start, end, "mm") ? D_MP
                : is(query, start, end, "blank") ? D_BLANK : NONE;
    }

    /** True for {@code f=y}, else {@code forcedefault=y}: Gravatar's "skip the picture of its own". */
    static boolean forceDefault(String query) {
        int start = valueStart(query, "f", "forcedefault");
        return is(query, start, start == NONE ? NONE : valueEnd(query, start), "y");
    }

    private static boolean is(String query, int start, int end, String value) {
        return start != NONE && end - start == value.length() && query.startsWith(value, start);
    }

    static int keyStart(long key) {
        return (int) (key >>> 32);
    }

    static int keyEnd(long key) {
        return (int) key;
    }
}
