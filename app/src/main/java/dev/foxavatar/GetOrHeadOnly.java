package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import io.undertow.util.StatusCodes;

/**
 * The method filter of both listeners, as Undertow's {@code AllowedMethodsHandler} with its one set:
 * {@code GET} and {@code HEAD} go on to {@code next}, any other method gets {@code refused}, by default
 * {@link #METHOD_NOT_ALLOWED}. Nginx's fallback answers other methods the same way
 * (nginx/fox-avatar/location-avatar.conf). Paths come first: a path no listener serves is a {@code 404} whatever
 * the method, so this filter sits behind the router, on each path it serves.
 *
 * @param refused the answer to other methods: {@link #METHOD_NOT_ALLOWED}, or that counted ({@link CountedAnswers})
 */
record GetOrHeadOnly(HttpHandler next, HttpHandler refused) implements HttpHandler {
    /** The methods every path of the service takes, as {@code Allow} names them. */
    static final String ALLOW = "GET, HEAD";
    /** {@code 405} with {@code Allow: GET, HEAD} and no body. */
    static final EmptyAnswer METHOD_NOT_ALLOWED = new EmptyAnswer(StatusCodes.METHOD_NOT_ALLOWED, Headers.ALLOW, ALLOW);

    GetOrHeadOnly(HttpHandler next) {
        this(next, METHOD_NOT_ALLOWED);
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        HttpString method = exchange.getRequestMethod();
        (method.equals(Methods.GET) || method.equals(Methods.HEAD) ? next : refused).handleRequest(exchange);
    }
}
