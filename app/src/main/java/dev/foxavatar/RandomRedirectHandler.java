package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.StatusCodes;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Answers with a {@code 302 Found} to one image chosen uniformly at random, afresh for every request.
 * Every {@code Location} value is built once, at start-up; a request costs one random number.
 * Runs on the IO thread: nothing here blocks.
 */
public final class RandomRedirectHandler implements HttpHandler {
    /** Header values are Strings in Undertow: a long would be converted on every request. */
    static final String EMPTY_BODY_LENGTH = "0";

    private final String[] locations;

    /** @param prefix {@code "/"} for relative redirects, or a base URL ending in {@code "/"} */
    public RandomRedirectHandler(String prefix, List<String> names) {
        this.locations = names.stream().map(name -> prefix + name).toArray(String[]::new);
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) {
        int i = ThreadLocalRandom.current().nextInt(locations.length);
        exchange.setStatusCode(StatusCodes.FOUND);
        HeaderMap headers = exchange.getResponseHeaders();
        headers.put(Headers.LOCATION, locations[i]);
        // A cached redirect would freeze the avatar on one fox.
        headers.put(Headers.CACHE_CONTROL, "no-store");
        headers.put(Headers.CONTENT_LENGTH, EMPTY_BODY_LENGTH);
        exchange.endExchange();
    }
}
