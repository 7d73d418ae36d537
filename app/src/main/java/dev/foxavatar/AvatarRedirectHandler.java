package dev.foxavatar;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.StatusCodes;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Answers the avatar URL ({@code GET}/{@code HEAD /}) with a {@code 302 Found} to the image of a picture
 * of the set for the request's size ({@code s}/{@code size}), format ({@code Accept}) and key ({@code u}:
 * the same picture for the same key, cacheable, through the manifest's bucket table; without one a random
 * picture, {@code no-store}). Every {@code Location} is built at start-up in a [picture][size][format]
 * table (a size above a picture's own largest holds its largest: the fill rule); a request scans the raw
 * query string in place and picks from it ({@link #redirect}, shared with {@link GravatarHandler}). A drawn
 * set's keyed answer is the key's identity instead (the manifest's {@code variants}): the picture of its
 * bucket on the background of its variant, an SVG when {@code Accept} lists {@code image/svg+xml}, else a
 * PNG of the rung's size snapped up the record's sizes; those Locations are built at start-up too. A hash
 * on the list of people ({@link PeopleList}) gets its listed picture. With Gravatar's defaults on, a key
 * not listed (or any key with {@code f=y}) gets {@code d=404} answered with a 404, and {@code d=mp},
 * {@code d=blank} with a drawn set's silhouette and transparent picture; no value of {@code d} is ever a
 * Location. Runs on the IO thread: nothing here blocks. The method filter, the {@code 500} and the
 * counting of other answers are the router's ({@link Routes}).
 */
public final class AvatarRedirectHandler implements HttpHandler {
    /** A redirect depends on the request's {@code Accept} (the format), and on nothing else a cache sees. */
    static final String VARY = "Accept";
    /** {@code d=404} for a key not listed: Gravatar's "no picture of its own", cached briefly (it may be listed soon). */
    static final EmptyAnswer NOT_LISTED = new EmptyAnswer(StatusCodes.NOT_FOUND, Headers.CACHE_CONTROL, "max-age=300");

    private final String[][][] locations;
    /** [picture][variant][0: its SVG, 1 + size index: its PNG for that rung], or null: no variants. */
    private final String[][][] identities;
    /** The Locations of d=mp and d=blank, as an identity's, by {@link AvatarQuery#D_MP} and {@link AvatarQuery#D_BLANK}. */
    private final String[][] defaults;
    private final PeopleList people;
    private final boolean gravatarDefaults;
    private final KeyVariants keyVariants;
    /** Chooses 0 when {@code Accept} lists {@code image/svg+xml}. */
    private final FormatChooser svg;
    /** The format indexes an identity's SVG and PNG are counted under ({@link RequestMetrics}). */
    private final int svgFormat;
    private final int pngFormat;
    private final SizeLadder ladder;
    private final FormatChooser formats;
    private final KeyBuckets keyBuckets;
    private final int maxKeyLength;
    private final String keyedCacheControl;
    private final RequestMetrics metrics;

    /**
     * @param people the listed hashes' pictures ({@link PeopleList#NONE}: none)
     * @param gravatarDefaults true: d=404, d=mp, d=blank and f=y as Gravatar answers them
     * @param metrics where each redirect is counted ({@link RequestMetrics#OFF}: nowhere)
     */
    AvatarRedirectHandler(ImageManifest manifest, PeopleList people, boolean gravatarDefaults, RequestMetrics metrics) {
        // Relative Locations (RFC 9110): the images are on the host and port the client asked.
        String prefix = "/";
        this.metrics = metrics;
        this.people = people;
        this.gravatarDefaults = gravatarDefaults;
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
        formats = new FormatChooser(manifest.formats().stream().map(ImageManifest.Format::mediaType).toList());
        keyBuckets = new KeyBuckets(manifest.buckets());
        maxKeyLength = manifest.maxKeyLength();
        keyedCacheControl = "public, max-age=" + manifest.keyedMaxAge();
        ImageManifest.Variants vs = manifest.variants();
        identities = vs == null ? null : new String[pictures][vs.count()][];
        for (int p = 0; vs != null && p < pictures; p++) {
            for (int v = 0; v < vs.count(); v++) {
                identities[p][v] = identityLocations(prefix, vs, vs.stem(p + 1, v), manifest.sizes());
            }
        }
        defaults = vs == null ? null : new String[][] {identityLocations(prefix, vs, ImageManifest.Variants.MP, manifest.sizes()),
            identityLocations(prefix, vs, ImageManifest.Variants.BLANK, manifest.sizes())};
        keyVariants = vs == null ? null : new KeyVariants(vs.count());
        svg = new FormatChooser(List.of(ImageManifest.Variants.SVG, "image/png"));
        svgFormat = formatCount;
        pngFormat = manifest.formats().stream().map(ImageManifest.Format::extension).toList().indexOf("png");
    }

    /** A stem's Locations: [0] its SVG, [1 + s] its PNG for ladder size s (the next of the record's sizes up). */
    private static String[] identityLocations(String prefix, ImageManifest.Variants vs, String stem, int[] ladder) {
        int[] pngs = vs.sizes();
        String[] png = new String[pngs.length];
        for (int i = 0; i < pngs.length; i++) {
            png[i] = prefix + vs.path(stem, pngs[i]);
        }
        String[] out = new String[1 + ladder.length];
        out[0] = prefix + vs.path(stem, 0);
        for (int s = 0; s < ladder.length; s++) {
            int i = 0;
            while (i < pngs.length - 1 && pngs[i] < ladder[s]) {
                i++;
            }
            out[1 + s] = png[i];
        }
        return out;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) {
        String query = exchange.getQueryString(); // raw: Undertow does not percent-decode it
        long key = AvatarQuery.key(query, maxKeyLength);
        redirect(exchange, ladder.index(AvatarQuery.size(query)), query, key,
                key == AvatarQuery.NONE ? RequestMetrics.RANDOM : RequestMetrics.KEYED);
    }

    SizeLadder ladder() {
        return ladder;
    }

    /**
     * The 302 for a size index and a key: {@code key} is {@code start << 32 | end} of the key's characters
     * in {@code keySource}, or {@link AvatarQuery#NONE} (a random picture, {@code no-store}); {@code route} is
     * the {@link RequestMetrics} route it is counted under.
     */
    void redirect(HttpServerExchange exchange, int size, String keySource, long key, int route) {
        String accept = exchange.getRequestHeaders().getFirst(Headers.ACCEPT);
        int format = formats.choose(accept);
        String location;
        String cacheControl;
        if (key == AvatarQuery.NONE) {
            location = locations[ThreadLocalRandom.current().nextInt(locations.length)][size][format];
            // A cached unkeyed redirect would freeze the avatar on one picture.
            cacheControl = HeaderValues.NO_STORE;
        } else {
            int start = AvatarQuery.keyStart(key);
            int end = AvatarQuery.keyEnd(key);
            String query = exchange.getQueryString();
            int person = gravatarDefaults && AvatarQuery.forceDefault(query) ? -1 : people.find(keySource, start, end);
            int d = gravatarDefaults && person < 0 ? AvatarQuery.gravatarDefault(query) : AvatarQuery.NONE;
            if (d == AvatarQuery.D_404) {
                NOT_LISTED.handleRequest(exchange);
                metrics.record(route, StatusCodes.NOT_FOUND, RequestMetrics.NO_FORMAT, RequestMetrics.NO_SIZE,
                        exchange.getRequestStartTime());
                return;
            }
            int picture;
            String[] identity; // the Locations of an identity (or d=mp, d=blank), or null: the picture itself
            if (person >= 0) {
                picture = people.picture(person);
                identity = people.variant(person) < 0 ? null : identities[picture][people.variant(person)];
            } else {
                picture = keyBuckets.picture(Murmur2.hash(keySource, start, end));
                identity = identities == null ? null : d != AvatarQuery.NONE ? defaults[d]
                        : identities[picture][keyVariants.variant(keySource, start, end)];
            }
            cacheControl = keyedCacheControl;
            if (identity == null) {
                location = locations[picture][size][format];
            } else {
                boolean isSvg = svg.choose(accept) == 0;
                location = identity[isSvg ? 0 : 1 + size];
                format = isSvg ? svgFormat : pngFormat;
            }
        }
        exchange.setStatusCode(StatusCodes.FOUND);
        HeaderMap headers = exchange.getResponseHeaders();
        headers.put(Headers.LOCATION, location);
        headers.put(Headers.VARY, VARY);
        headers.put(Headers.CACHE_CONTROL, cacheControl);
        headers.put(Headers.CONTENT_LENGTH, HeaderValues.EMPTY_BODY_LENGTH);
        exchange.endExchange();
        metrics.record(route, StatusCodes.FOUND, format, size, exchange.getRequestStartTime());
    }
}
