package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * What a request costs besides Undertow's own work: reading the query, choosing the format, hashing the
 * key (from the query or from a /avatar/ path) and picking from the tables allocate nothing (measured with the JVM's per-thread allocation counter).
 */
class PerRequestAllocationTest {
    private static final String[] QUERIES = {
        "", "s=64", "size=48&v=2", "s=64&u=0bc83cb571cd1c50ba6f3e8a78ef1346", "u=" + "k".repeat(129),
        "S=99999999999999999999&U=hello%40example.com", "s=64px&u=a b",
    };
    private static final String[] ACCEPTS = {
        ServerOverHttp.CHROMIUM, ServerOverHttp.OLD_SAFARI, "*/*", null, "image/avif;q=0,image/webp",
    };

    private final SizeLadder ladder = new SizeLadder(TestImages.SIZES, TestImages.DEFAULT_SIZE);
    private final FormatChooser formats = new FormatChooser(FormatChooserTest.REGEXES);
    private final KeyedFox keyedFox = new KeyedFox(
            java.util.stream.IntStream.range(0, ImageManifest.BUCKETS).map(b -> b % 21).toArray());
    private final GravatarSize gravatarSizes = new GravatarSize(ladder);
    private static final String[] PATHS = {
        "/avatar/0bc83cb571cd1c50ba6f3e8a78ef1346", "/avatar/0BC83CB571CD1C50BA6F3E8A78EF1346.png",
        "/avatar/" + "ab".repeat(32) + ".jpg", "/avatar/junk", "/avatar/0bc83cb571cd1c50ba6f3e8a78ef1346/",
    };

    /** One request's choices, as AvatarRedirectHandler makes them; returns a checksum so nothing is dead code. */
    private int choose(String query, String accept) {
        int size = ladder.index(AvatarQuery.size(query));
        int format = formats.choose(accept);
        long key = AvatarQuery.key(query, TestImages.MAX_KEY_LENGTH);
        int fox = key == AvatarQuery.NONE ? 0
                : keyedFox.index(Murmur2.hash(query, AvatarQuery.keyStart(key), AvatarQuery.keyEnd(key)));
        return fox * 100 + size * 10 + format;
    }

    /** The same for the Gravatar URL, as GravatarHandler makes them. */
    private int chooseGravatar(String path, String query, String accept) {
        int size = gravatarSizes.index(query);
        int format = formats.choose(accept);
        long key = GravatarPath.hash(path);
        int fox = key == AvatarQuery.NONE ? 0
                : keyedFox.index(Murmur2.hash(path, AvatarQuery.keyStart(key), AvatarQuery.keyEnd(key)));
        return fox * 100 + size * 10 + format;
    }

    private int rounds(int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum += choose(QUERIES[i % QUERIES.length], ACCEPTS[i % ACCEPTS.length]);
            sum += chooseGravatar(PATHS[i % PATHS.length], QUERIES[i % QUERIES.length], ACCEPTS[i % ACCEPTS.length]);
        }
        return sum;
    }

    @Test
    void choosing_the_answer_allocates_nothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        long id = Thread.currentThread().getId();
        int warm = rounds(200_000);
        long before = threads.getThreadAllocatedBytes(id);
        int measured = rounds(200_000);
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertEquals(warm, measured);
        // 200,000 requests: anything per request would show as megabytes; the counter's own reads cost a few bytes.
        assertTrue(allocated < 4096, allocated + " bytes allocated for 200,000 requests");
    }
}
