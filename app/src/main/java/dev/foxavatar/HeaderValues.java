package dev.foxavatar;

/**
 * The header values several answers share, each written once. Undertow keeps header values as Strings, so
 * a number is one too: a {@code long} would be converted on every request.
 */
final class HeaderValues {
    /** {@code Content-Length} of every answer without a body: the redirects, the 404, the 405, the 500. */
    static final String EMPTY_BODY_LENGTH = "0";
    /** {@code Cache-Control} of what must never be cached: a random redirect, health, metrics. */
    static final String NO_STORE = "no-store";

    private HeaderValues() {
    }
}
