package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A handler that throws gets {@code failed} (the service's: a {@code 500}, counted) and one log line that
 * names the route and the exception's class and place, never the path, the query or the message (they can
 * hold a key or an e-mail hash; docs/privacy.md). Left to Undertow, the exception would be logged with the
 * request's path (UT005071).
 *
 * @param route what the log line names: a path the router serves, never the request's own
 */
record PrivateErrors(String route, HttpHandler next, HttpHandler failed) implements HttpHandler {
    private static final Logger LOG = LoggerFactory.getLogger("fox-avatar");

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        try {
            next.handleRequest(exchange);
        } catch (Exception | LinkageError failure) {
            StackTraceElement[] at = failure.getStackTrace();
            LOG.error("request to {} failed: {} at {}", route, failure.getClass().getName(), at.length > 0 ? at[0] : "?");
            failed.handleRequest(exchange);
        }
    }
}
