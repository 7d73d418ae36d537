package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.Methods;
import io.undertow.util.StatusCodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole URL space: {@code /} (the avatar), {@code /avatar/...} (the Gravatar/Libravatar form of it),
 * {@code /healthz}, and {@code 404} for the rest.
 * Only {@code GET} and {@code HEAD} are allowed ({@code 405} with {@code Allow} otherwise).
 * A handler that throws gets a {@code 500} and one log line naming the route and the exception's class
 * and place, never the path, the query or the message (they can hold a key or an e-mail hash): left to
 * Undertow, the exception would be logged with the request's path (UT005071).
 */
public final class Routes implements HttpHandler {
    public static final String AVATAR_PATH = "/";
    public static final String HEALTH_PATH = "/healthz";

    public static final String GRAVATAR_PREFIX = GravatarHandler.PATH_PREFIX;

    private final HttpHandler avatar;
    private final HttpHandler gravatar;
    private final HttpHandler health;
    private final RequestMetrics metrics;

    public Routes(HttpHandler avatar, HttpHandler gravatar, HttpHandler health) {
        this(avatar, gravatar, health, RequestMetrics.OFF);
    }

    /**
     * Routes that count every answer in {@code metrics}: the redirects count themselves (they know the
     * format and size), this class counts the rest (health, 404, 405, 500) when the handler returns.
     */
    public Routes(HttpHandler avatar, HttpHandler gravatar, HttpHandler health, RequestMetrics metrics) {
        this.avatar = avatar;
        this.gravatar = gravatar;
        this.health = health;
        this.metrics = metrics;
    }

    /** The service's routes for an image set: one redirect table behind {@code /} and {@code /avatar/}. */
    public static Routes forImages(String locationPrefix, ImageManifest images) {
        return forImages(locationPrefix, images, RequestMetrics.OFF);
    }

    /** The same, counted in {@code metrics}. */
    public static Routes forImages(String locationPrefix, ImageManifest images, RequestMetrics metrics) {
        AvatarRedirectHandler avatar = new AvatarRedirectHandler(locationPrefix, images, metrics);
        return new Routes(avatar, new GravatarHandler(avatar), new HealthHandler(), metrics);
    }

    private static final Logger LOG = LoggerFactory.getLogger("fox-avatar");

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        try {
            route(exchange);
        } catch (Exception | LinkageError failed) {
            StackTraceElement[] at = failed.getStackTrace();
            LOG.error("request to {} failed: {} at {}", exchange.getRequestPath().startsWith(GRAVATAR_PREFIX)
                    ? GRAVATAR_PREFIX : AVATAR_PATH, failed.getClass().getName(), at.length > 0 ? at[0] : "?");
            if (!exchange.isResponseStarted()) {
                exchange.setStatusCode(StatusCodes.INTERNAL_SERVER_ERROR);
                exchange.getResponseHeaders().put(Headers.CONTENT_LENGTH, AvatarRedirectHandler.EMPTY_BODY_LENGTH);
            }
            exchange.endExchange();
            count(exchange, routeOf(exchange.getRequestPath()));
        }
    }

    /** The metrics route of a path, for answers other than a redirect (405 and 500 on / count as random). */
    private static int routeOf(String path) {
        return AVATAR_PATH.equals(path) ? RequestMetrics.RANDOM
                : path.startsWith(GRAVATAR_PREFIX) ? RequestMetrics.GRAVATAR
                : HEALTH_PATH.equals(path) ? RequestMetrics.HEALTH : RequestMetrics.OTHER;
    }

    private void count(HttpServerExchange exchange, int route) {
        metrics.record(route, exchange.getStatusCode(), RequestMetrics.NO_FORMAT, RequestMetrics.NO_SIZE,
                exchange.getRequestStartTime());
    }

    private void route(HttpServerExchange exchange) throws Exception {
        String path = exchange.getRequestPath();
        HttpHandler target = AVATAR_PATH.equals(path) ? avatar
                : path.startsWith(GRAVATAR_PREFIX) ? gravatar
                : HEALTH_PATH.equals(path) ? health : null;
        if (target == null) {
            exchange.setStatusCode(StatusCodes.NOT_FOUND);
            exchange.getResponseHeaders().put(Headers.CONTENT_LENGTH, AvatarRedirectHandler.EMPTY_BODY_LENGTH);
            exchange.endExchange();
            count(exchange, RequestMetrics.OTHER);
        } else if (!exchange.getRequestMethod().equals(Methods.GET)
                && !exchange.getRequestMethod().equals(Methods.HEAD)) {
            exchange.setStatusCode(StatusCodes.METHOD_NOT_ALLOWED);
            exchange.getResponseHeaders().put(Headers.ALLOW, "GET, HEAD").put(Headers.CONTENT_LENGTH, AvatarRedirectHandler.EMPTY_BODY_LENGTH);
            exchange.endExchange();
            count(exchange, routeOf(path));
        } else {
            target.handleRequest(exchange);
            if (target == health) {
                count(exchange, RequestMetrics.HEALTH);
            }
        }
    }
}
