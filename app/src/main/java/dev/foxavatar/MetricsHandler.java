package dev.foxavatar;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.Methods;
import io.undertow.util.StatusCodes;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * The metrics listener's whole URL space: {@code GET}/{@code HEAD /metrics} in Prometheus text format 0.0.4,
 * {@code 404} for every other path, {@code 405} for other methods. A scrape runs on the worker thread, not
 * on an IO thread that avatar requests share.
 */
public final class MetricsHandler implements HttpHandler {
    public static final String PATH = "/metrics";
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusRegistry registry;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.builder().build();

    public MetricsHandler(PrometheusRegistry registry) {
        this.registry = registry;
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
            ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
            writer.write(body, registry.scrape());
            exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, CONTENT_TYPE).put(Headers.CACHE_CONTROL, "no-store");
            exchange.getResponseSender().send(ByteBuffer.wrap(body.toByteArray()));
        }
    }

    private static void answer(HttpServerExchange exchange, int status) {
        exchange.setStatusCode(status);
        exchange.getResponseHeaders().put(Headers.CONTENT_LENGTH, AvatarRedirectHandler.EMPTY_BODY_LENGTH);
        exchange.endExchange();
    }
}
