package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;

/**
 * Counts the answer {@code next} gave, when it returns, under one {@link RequestMetrics} route: the answers
 * that carry no image (health's {@code 200}, the {@code 404}, a {@code 405}, a {@code 500}), counted with
 * no format and no size rung. The redirects count themselves: only they know the format and the rung. A
 * handler that throws is not counted here; {@link PrivateErrors} answers and counts its {@code 500}.
 *
 * @param route one of {@link RequestMetrics#RANDOM} .. {@link RequestMetrics#OTHER}
 */
record CountedAnswers(RequestMetrics metrics, int route, HttpHandler next) implements HttpHandler {
    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        next.handleRequest(exchange);
        metrics.record(route, exchange.getStatusCode(), RequestMetrics.NO_FORMAT, RequestMetrics.NO_SIZE,
                exchange.getRequestStartTime());
    }
}
