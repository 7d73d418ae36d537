package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Manifest v2's records: {@code default}, {@code buckets}, and pictures whose ladder stops below the top. */
class ManifestV2Test {
    @TempDir
    Path dir;

    private String refused(List<String> lines) throws Exception {
        TestImages.writeManifest(dir, lines);
        ManifestException e = assertThrows(ManifestException.class, () -> ImageManifest.load(dir));
        assertTrue(e.getMessage().contains(ImageSetContract.FILE), "names the manifest: " + e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        return e.getMessage();
    }

    private static String bucketsLine(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("buckets\t")).findFirst().orElseThrow();
    }

    @Test
    void reads_the_default_size_and_the_bucket_of_every_picture_as_a_0_based_fox_index() throws Exception {
        List<String> lines = TestImages.create(dir, 5);
        ImageManifest m = ImageManifest.load(dir);
        assertEquals(256, m.defaultSize());
        String[] numbers = bucketsLine(lines).split("\t")[1].split(" ");
        int[] expected = IntStream.range(0, ImageSetContract.BUCKETS).map(b -> Integer.parseInt(numbers[b]) - 1).toArray();
        assertArrayEquals(expected, m.buckets());
        assertEquals(5, IntStream.of(m.buckets()).distinct().count(), "5 pictures share the buckets");
    }

    @Test
    void a_picture_whose_ladder_stops_at_128_answers_its_128_px_image_for_every_larger_size() throws Exception {
        TestImages.create(dir, 3, 2, 128);
        ImageManifest m = ImageManifest.load(dir);
        assertArrayEquals(TestImages.SIZES, m.sizes(), "the set's ladder is the union of the pictures'");
        assertEquals(4, m.largestSizeIndex(1));
        assertEquals(8, m.largestSizeIndex(0));
        for (int x = 0; x < 3; x++) {
            for (int s = 0; s <= 4; s++) {
                assertTrue(m.path(1, s, x).startsWith("a/Renard-2-" + TestImages.SIZES[s] + "."), m.path(1, s, x));
            }
            for (int s = 5; s < TestImages.SIZES.length; s++) {
                assertEquals(m.path(1, 4, x), m.path(1, s, x), "fill rule at " + TestImages.SIZES[s] + " px");
                assertTrue(m.path(0, s, x).startsWith("a/Renard-1-" + TestImages.SIZES[s] + "."), m.path(0, s, x));
            }
        }
        assertEquals(3 * 9 * 3 - 4 * 3, m.imageCount(), "the filled cells are not files of their own");
    }

    @Test
    void a_picture_missing_a_rung_below_its_largest_is_refused() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 2, 2, 128));
        lines.removeIf(l -> l.startsWith("image\ta/Renard-2-64."));
        assertTrue(refused(lines).contains("picture 2 has no 64 px avif image"), lines.toString());
    }

    @Test
    void a_picture_without_the_smallest_rung_is_refused() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 2));
        lines.removeIf(l -> l.startsWith("image\ta/Renard-2-32."));
        assertTrue(refused(lines).contains("picture 2 has no 32 px avif image"));
    }

    @Test
    void a_default_size_off_the_ladder_or_a_missing_or_second_default_is_refused() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 2));
        int at = lines.indexOf("default\t256");
        lines.set(at, "default\t200");
        assertTrue(refused(lines).contains("line " + (at + 1) + ": default size 200 is not a size of the ladder"));
        lines.set(at, "default\t256\t1");
        assertTrue(refused(lines).contains("line " + (at + 1) + ": 3 tab-separated fields, expected default<TAB>size"));
        lines.remove(at);
        assertTrue(refused(lines).contains("no default line"));
        lines.add("default\t256");
        lines.add("default\t128");
        assertTrue(refused(lines).contains("a second default line"));
    }

    @ParameterizedTest(name = "refused: {0}")
    @ValueSource(strings = {"short", "zero", "unknown picture", "not a number", "double space", "missing"})
    void a_bucket_table_that_is_not_10000_known_pictures_is_refused(String fault) throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 3));
        String line = bucketsLine(lines);
        int at = lines.indexOf(line);
        String bad = switch (fault) {
            case "short" -> line.substring(0, line.lastIndexOf(' '));
            case "zero" -> "buckets\t0" + line.substring(line.indexOf(' '));
            case "unknown picture" -> "buckets\t4" + line.substring(line.indexOf(' '));
            case "not a number" -> "buckets\tx" + line.substring(line.indexOf(' '));
            case "double space" -> line.replaceFirst(" ", "  ");
            default -> null;
        };
        if (bad == null) {
            lines.remove(at);
            assertTrue(refused(lines).contains("no buckets line"));
            return;
        }
        lines.set(at, bad);
        String message = refused(lines);
        assertTrue(message.contains("line " + (at + 1) + ": "), message);
        assertTrue(message.contains(switch (fault) {
            case "short" -> "9999 buckets, expected 10000";
            case "unknown picture" -> "bucket 0 names picture 4, but the image lines have pictures 1..3";
            case "double space" -> "10001 buckets, expected 10000";
            default -> "bucket 0's picture";
        }), message);
    }

    @Test
    void pictures_must_be_numbered_1_to_n() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 3));
        lines.removeIf(l -> l.matches("(image|legacy)\ta?/?Renard-2[-.].*"));
        assertTrue(refused(lines).contains("not numbered 1..2 (no picture 2)"), lines.toString());
    }

    /** The bucket table the image set's writer wrote for the fox set is the one rendezvous hashing gives. */
    @Test
    void the_committed_bucket_table_is_rendezvous_hashing_over_the_ids_renard_1_to_21() throws Exception {
        Path images = Path.of(System.getProperty("avatar.repo.images", "../images"));
        assumeTrue(Files.isRegularFile(images.resolve(ImageSetContract.FILE)), "no images/manifest.tsv in this checkout");
        ImageManifest m = ImageManifest.load(images);
        List<String> ids = IntStream.rangeClosed(1, 21).mapToObj(n -> "Renard-" + n).toList();
        int[] expected = IntStream.of(TestImages.buckets(ids)).map(n -> n - 1).toArray();
        assertArrayEquals(expected, m.buckets());
    }

    /**
     * The upgrade reshuffles no one: over 1,000,000 hashes spread evenly across the range, the
     * committed fox set gives every key the fox that the 21 equal shares before manifest v2 gave it
     * (nginx's split_clients arithmetic: each of the first 20 foxes 4.76 %, cumulative floors), but
     * for the few hash values between the old and the new share boundaries.
     */
    @Test
    void the_fox_sets_keys_keep_the_fox_the_equal_shares_gave_them() throws Exception {
        Path images = Path.of(System.getProperty("avatar.repo.images", "../images"));
        assumeTrue(Files.isRegularFile(images.resolve(ImageSetContract.FILE)), "no images/manifest.tsv in this checkout");
        KeyBuckets now = new KeyBuckets(ImageManifest.load(images).buckets());
        long[] oldBounds = new long[20];
        long last = 0;
        for (int i = 0; i < oldBounds.length; i++) {
            last += 476L * 0xffffffffL / 10_000;
            oldBounds[i] = last;
        }
        int samples = 1_000_000;
        int moved = 0;
        for (int i = 0; i < samples; i++) {
            long h = i * (0x1_0000_0000L / samples) + (i * 2654435761L & 0xfff);
            int before = 20;
            for (int f = 0; f < oldBounds.length; f++) {
                if (h < oldBounds[f]) {
                    before = f;
                    break;
                }
            }
            moved += now.picture((int) h) == before ? 0 : 1;
        }
        assertTrue(moved <= samples / 10_000, moved + " of " + samples + " hashes changed fox (at most 0.01 % may)");
    }
}
