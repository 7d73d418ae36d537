package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;

/**
 * A listener's router: each request goes to the handler of its path (a path alone, or every path under a
 * prefix), any other path to {@code other}. Undertow's {@code PathHandler} does this job with a match
 * object and a substring per request; here the request path is only compared, in place, with the few
 * paths fixed at start-up, in their order.
 */
final class Paths implements HttpHandler {
    /** A path and its handler: the path itself, or ({@code prefix}) every path that starts with it. */
    record Route(String path, boolean prefix, HttpHandler handler) {
    }

    private final Route[] routes;
    private final HttpHandler other;

    Paths(HttpHandler other, Route... routes) {
        this.routes = routes.clone();
        this.other = other;
    }

    static Route exact(String path, HttpHandler handler) {
        return new Route(path, false, handler);
    }

    static Route prefix(String prefix, HttpHandler handler) {
        return new Route(prefix, true, handler);
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        String path = exchange.getRequestPath();
        for (Route route : routes) {
            if (route.prefix ? path.startsWith(route.path) : path.equals(route.path)) {
                route.handler.handleRequest(exchange);
                return;
            }
        }
        other.handleRequest(exchange);
    }
}
