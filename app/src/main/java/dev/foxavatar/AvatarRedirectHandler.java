package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.StatusCodes;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Answers the avatar URL ({@code GET}/{@code HEAD /}) with a {@code 302 Found} to the image of a picture
 * of the set for the request's size ({@code s}/{@code size}), format ({@code Accept}) and key ({@code u}:
 * the same picture for the same key, cacheable, through the manifest's bucket table; without one a random
 * picture, {@code no-store}). Every {@code Location} is built at start-up in a [picture][size][format]
 * table (a size above a picture's own largest holds its largest: the fill rule); a request scans the raw
 * query string in place and picks from it ({@link #redirect}, shared with {@link GravatarHandler}). Runs
 * on the IO thread: nothing here blocks. The method filter, the {@code 500} and the counting of other
 * answers are the router's ({@link Routes}).
 */
public final class AvatarRedirectHandler implements HttpHandler {
    /** A redirect depends on the request's {@code Accept} (the format), and on nothing else a cache sees. */
    static final String VARY = "Accept";

    private final String[][][] locations;
    private final SizeLadder ladder;
    private final FormatChooser formats;
    private final KeyBuckets keyBuckets;
    private final int maxKeyLength;
    private final String keyedCacheControl;
    private final RequestMetrics metrics;

    /**
     * @param prefix {@code "/"} for relative redirects, or a base URL ending in {@code "/"}
     * @param metrics where each redirect is counted ({@link RequestMetrics#OFF}: nowhere)
     */
    public AvatarRedirectHandler(String prefix, ImageManifest manifest, RequestMetrics metrics) {
        this.metrics = metrics;
        int pictures = manifest.foxes().length;
        int sizes = manifest.sizes().length;
        int formatCount = manifest.formats().size();
        locations = new String[pictures][sizes][formatCount];
        for (int p = 0; p < pictures; p++) {
            for (int s = 0; s < sizes; s++) {
                for (int x = 0; x < formatCount; x++) {
                    locations[p][s][x] = prefix + manifest.path(p, s, x);
                }
            }
        }
        ladder = new SizeLadder(manifest.sizes(), manifest.defaultSize());
        formats = new FormatChooser(manifest.formats().stream().map(ImageManifest.Format::acceptRegex).toList());
        keyBuckets = new KeyBuckets(manifest.buckets());
        maxKeyLength = manifest.maxKeyLength();
        keyedCacheControl = "public, max-age=" + manifest.keyedMaxAge();
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) {
        String query = exchange.getQueryString(); // raw: Undertow does not percent-decode it
        long key = AvatarQuery.key(query, maxKeyLength);
        redirect(exchange, ladder.index(AvatarQuery.size(query)), query, key,
                key == AvatarQuery.NONE ? RequestMetrics.RANDOM : RequestMetrics.KEYED);
    }

    /** The ladder the size indexes refer to. */
    SizeLadder ladder() {
        return ladder;
    }

    /**
     * The 302 for a size index and a key: {@code key} is {@code start << 32 | end} of the key's characters
     * in {@code keySource}, or {@link AvatarQuery#NONE} (a random picture, {@code no-store}); {@code route} is
     * the {@link RequestMetrics} route it is counted under.
     */
    void redirect(HttpServerExchange exchange, int size, String keySource, long key, int route) {
        int format = formats.choose(exchange.getRequestHeaders().getFirst(Headers.ACCEPT));
        int picture;
        String cacheControl;
        if (key == AvatarQuery.NONE) {
            picture = ThreadLocalRandom.current().nextInt(locations.length);
            // A cached unkeyed redirect would freeze the avatar on one picture.
            cacheControl = HeaderValues.NO_STORE;
        } else {
            picture = keyBuckets.picture(Murmur2.hash(keySource, AvatarQuery.keyStart(key), AvatarQuery.keyEnd(key)));
            cacheControl = keyedCacheControl;
        }
        exchange.setStatusCode(StatusCodes.FOUND);
        HeaderMap headers = exchange.getResponseHeaders();
        headers.put(Headers.LOCATION, locations[picture][size][format]);
        headers.put(Headers.VARY, VARY);
        headers.put(Headers.CACHE_CONTROL, cacheControl);
        headers.put(Headers.CONTENT_LENGTH, HeaderValues.EMPTY_BODY_LENGTH);
        exchange.endExchange();
        metrics.record(route, StatusCodes.FOUND, format, size, exchange.getRequestStartTime());
    }
}
