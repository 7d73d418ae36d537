package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;

/**
 * Answers the Gravatar/Libravatar URL ({@code GET}/{@code HEAD /avatar/<hash>[.<ext>]}) exactly as
 * {@code /?u=<hash>} with Gravatar's size rule ({@link GravatarSize}): the same 302, picture, format
 * choice, {@code Vary} and caching, and the same reading of {@code d}/{@code default} and
 * {@code f}/{@code forcedefault} ({@link AvatarRedirectHandler}); {@code r}/{@code rating} is not read, and
 * nothing from the query is ever a redirect target. Any other path under {@code /avatar/} ({@link GravatarPath#PREFIX})
 * has no key: a random picture, {@code no-store}, so an {@code <img>} never breaks and a corrected URL shows
 * its own picture at once.
 */
public final class GravatarHandler implements HttpHandler {
    private final AvatarRedirectHandler redirects;
    private final GravatarSize sizes;

    public GravatarHandler(AvatarRedirectHandler redirects) {
        this.redirects = redirects;
        this.sizes = new GravatarSize(redirects.ladder());
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) {
        String path = exchange.getRequestPath();
        redirects.redirect(exchange, sizes.index(exchange.getQueryString()), path, GravatarPath.hash(path),
                RequestMetrics.GRAVATAR);
    }
}
