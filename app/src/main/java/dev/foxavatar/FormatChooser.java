package dev.foxavatar;

import java.util.List;

/**
 * Picks a format from a request's {@code Accept} header (RFC 9110 media ranges): the first of the
 * formats, in order of preference, whose media type the header lists exactly (case-insensitive,
 * parameters allowed) without a q of zero ({@code q=0}, {@code q=0.0} to {@code q=0.000}); else the last.
 * {@code image/*} and {@code *}{@code /*} do not count: a browser that sends them may not decode AVIF.
 * A scan by index: nothing is allocated, and the chooser holds no state.
 */
final class FormatChooser {
    /** Every format's media type but the last's (the answer when the header lists none of them). */
    private final String[] types;

    /** @param mediaTypes one per format, in order of preference; the last is never matched */
    FormatChooser(List<String> mediaTypes) {
        types = mediaTypes.subList(0, mediaTypes.size() - 1).toArray(String[]::new);
    }

    /** The format index for an {@code Accept} value ({@code null}: no header, the last format). */
    int choose(String accept) {
        int best = types.length;
        int length = accept == null ? 0 : accept.length();
        for (int at = 0; at < length && best > 0; at++) {
            int end = at;
            while (end < length && accept.charAt(end) != ',') {
                end++;
            }
            best = Math.min(best, listed(accept, at, end));
            at = end;
        }
        return best;
    }

    /** The index of the type the media range {@code s[from, to)} names with q above zero, else types.length. */
    private int listed(String s, int from, int to) {
        int start = skipSpace(s, from, to);
        int params = start;
        while (params < to && s.charAt(params) != ';') {
            params++;
        }
        int end = params;
        while (end > start && isSpace(s.charAt(end - 1))) {
            end--;
        }
        for (int i = 0; i < types.length; i++) {
            String t = types[i];
            if (end - start == t.length() && s.regionMatches(true, start, t, 0, t.length())) {
                for (int p = params; p < to; ) {
                    int next = p + 1;
                    while (next < to && s.charAt(next) != ';') {
                        next++;
                    }
                    if (isZeroQ(s, p + 1, next)) {
                        return types.length;
                    }
                    p = next;
                }
                return i;
            }
        }
        return types.length;
    }

    /** Whether the parameter {@code s[from, to)} is {@code q=0}: 0, optionally a dot and up to three zeros. */
    private static boolean isZeroQ(String s, int from, int to) {
        int at = skipSpace(s, from, to);
        if (at >= to || (s.charAt(at) | 0x20) != 'q') {
            return false;
        }
        at = skipSpace(s, at + 1, to);
        if (at >= to || s.charAt(at) != '=') {
            return false;
        }
        at = skipSpace(s, at + 1, to);
        if (at >= to || s.charAt(at++) != '0') {
            return false;
        }
        if (at < to && s.charAt(at) == '.') {
            at++;
            for (int zeros = 0; zeros < 3 && at < to && s.charAt(at) == '0'; zeros++) {
                at++;
            }
        }
        return skipSpace(s, at, to) == to;
    }

    private static int skipSpace(String s, int at, int to) {
        while (at < to && isSpace(s.charAt(at))) {
            at++;
        }
        return at;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }
}
