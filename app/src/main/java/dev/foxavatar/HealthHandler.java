package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** {@code 200 ok}: for compose, systemd and Ansible checks. Not random, never cached. */
public final class HealthHandler implements HttpHandler {
    private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    public void handleRequest(HttpServerExchange exchange) {
        exchange.getResponseHeaders()
                .put(Headers.CONTENT_TYPE, "text/plain; charset=utf-8")
                .put(Headers.CACHE_CONTROL, HeaderValues.NO_STORE);
        exchange.getResponseSender().send(ByteBuffer.wrap(OK));
    }
}
