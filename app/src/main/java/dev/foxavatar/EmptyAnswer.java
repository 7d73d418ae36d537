package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.StatusCodes;

/**
 * An answer without a body, as Undertow's {@code ResponseCodeHandler} gives one but whole: a status,
 * {@code Content-Length: 0} and at most one more header, every value fixed at start-up. A response already
 * started (a handler that failed half-way through its answer) is only ended: its status and headers have
 * gone.
 *
 * @param header with {@code value}, one more header, or both null
 */
record EmptyAnswer(int status, HttpString header, String value) implements HttpHandler {
    /** Every path the listener does not serve. */
    static final EmptyAnswer NOT_FOUND = new EmptyAnswer(StatusCodes.NOT_FOUND, null, null);
    /** A handler that threw ({@link PrivateErrors}). */
    static final EmptyAnswer INTERNAL_SERVER_ERROR = new EmptyAnswer(StatusCodes.INTERNAL_SERVER_ERROR, null, null);

    @Override
    public void handleRequest(HttpServerExchange exchange) {
        if (!exchange.isResponseStarted()) {
            exchange.setStatusCode(status);
            HeaderMap headers = exchange.getResponseHeaders();
            if (header != null) {
                headers.put(header, value);
            }
            headers.put(Headers.CONTENT_LENGTH, HeaderValues.EMPTY_BODY_LENGTH);
        }
        exchange.endExchange();
    }
}
