package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.Methods;
import io.undertow.util.StatusCodes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The metrics listener's whole URL space: {@code GET}/{@code HEAD /metrics} in Prometheus text format 0.0.4
 * (the service's counts, then the JVM's and the process's), {@code 404} for every other path, {@code 405}
 * for other methods. A scrape runs on the worker thread, not on an IO thread that avatar requests share.
 */
public final class MetricsHandler implements HttpHandler {
    public static final String PATH = "/metrics";

    private final RequestMetrics requests;
    private final JvmMetrics jvm = new JvmMetrics();

    public MetricsHandler(RequestMetrics requests) {
        this.requests = requests;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        if (!PATH.equals(exchange.getRequestPath())) {
            answer(exchange, StatusCodes.NOT_FOUND);
        } else if (!exchange.getRequestMethod().equals(Methods.GET) && !exchange.getRequestMethod().equals(Methods.HEAD)) {
            exchange.getResponseHeaders().put(Headers.ALLOW, "GET, HEAD");
            answer(exchange, StatusCodes.METHOD_NOT_ALLOWED);
        } else if (exchange.isInIoThread()) {
            exchange.dispatch(this);
        } else {
            StringBuilder body = new StringBuilder(16 * 1024);
            requests.write(body);
            jvm.write(body);
            exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, TextFormat.CONTENT_TYPE).put(Headers.CACHE_CONTROL, "no-store");
            exchange.getResponseSender().send(ByteBuffer.wrap(body.toString().getBytes(StandardCharsets.UTF_8)));
        }
    }

    private static void answer(HttpServerExchange exchange, int status) {
        exchange.setStatusCode(status);
        exchange.getResponseHeaders().put(Headers.CONTENT_LENGTH, AvatarRedirectHandler.EMPTY_BODY_LENGTH);
        exchange.endExchange();
    }
}
