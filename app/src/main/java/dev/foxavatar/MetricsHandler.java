package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A scrape, in Prometheus text format 0.0.4: the service's counts, then the JVM's and the process's. It
 * runs on the worker thread, not on an IO thread that avatar requests share. Its path and methods are the
 * metrics port's router's ({@link Routes#metricsPort}).
 */
public final class MetricsHandler implements HttpHandler {
    private final RequestMetrics requests;
    private final JvmMetrics jvm = new JvmMetrics();

    public MetricsHandler(RequestMetrics requests) {
        this.requests = requests;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        if (exchange.isInIoThread()) {
            exchange.dispatch(this);
            return;
        }
        StringBuilder body = new StringBuilder(16 * 1024);
        requests.write(body);
        jvm.write(body);
        exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, TextFormat.CONTENT_TYPE)
                .put(Headers.CACHE_CONTROL, HeaderValues.NO_STORE);
        exchange.getResponseSender().send(ByteBuffer.wrap(body.toString().getBytes(StandardCharsets.UTF_8)));
    }
}
