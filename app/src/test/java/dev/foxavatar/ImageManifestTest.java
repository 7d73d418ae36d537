package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reading and checking images/manifest.tsv; every fault is one line naming the manifest and the fault. */
class ImageManifestTest {
    @TempDir
    Path dir;

    private ManifestException refused() {
        ManifestException e = assertThrows(ManifestException.class, () -> ImageManifest.load(dir));
        assertTrue(e.getMessage().contains(ImageSetContract.FILE), "names the manifest: " + e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        return e;
    }

    /** The fixture with one line replaced (by its index in the list), then the refusal it causes. */
    private ManifestException refusedWith(int foxes, int index, UnaryOperator<String> edit) throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, foxes));
        lines.set(index, edit.apply(lines.get(index)));
        TestImages.writeManifest(dir, lines);
        return refused();
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError(prefix);
    }

    @Test
    void reads_formats_keyed_settings_and_every_path_in_fox_size_format_order() throws Exception {
        TestImages.create(dir, 21);
        ImageManifest m = ImageManifest.load(dir);
        assertEquals(List.of("avif", "webp", "png"), m.formats().stream().map(ImageManifest.Format::extension).toList());
        assertEquals(List.of("image/avif", "image/webp", "image/png"),
                m.formats().stream().map(ImageManifest.Format::mediaType).toList());
        assertEquals("", m.formats().get(2).acceptRegex());
        assertEquals(3600, m.keyedMaxAge());
        assertEquals(128, m.maxKeyLength());
        assertEquals(21, m.foxes().length);
        assertEquals(1, m.foxes()[0]);
        assertEquals(21, m.foxes()[20]);
        assertArrayEquals(TestImages.SIZES, m.sizes());
        assertEquals(21 * 9 * 3, m.imageCount());
        assertTrue(m.path(6, 2, 0).matches("a/Renard-7-64\\.[0-9a-f]{10}\\.avif"), m.path(6, 2, 0));
        assertTrue(m.path(20, 6, 2).matches("a/Renard-21-256\\.[0-9a-f]{10}\\.png"), m.path(20, 6, 2));
    }

    @Test
    void foxes_are_in_numeric_order_whatever_the_line_order() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 12));
        List<String> images = new ArrayList<>(lines.stream().filter(l -> l.startsWith("image\t")).toList());
        lines.removeAll(images);
        java.util.Collections.reverse(images);
        lines.addAll(images);
        TestImages.writeManifest(dir, lines);
        ImageManifest m = ImageManifest.load(dir);
        assertTrue(m.path(1, 0, 0).startsWith("a/Renard-2-32."), m.path(1, 0, 0));
        assertTrue(m.path(9, 0, 0).startsWith("a/Renard-10-32."), m.path(9, 0, 0));
    }

    @Test
    void comments_blank_lines_and_a_last_format_line_without_its_trailing_tab_are_fine() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 2));
        lines.set(indexOf(lines, "format\tpng"), "format\tpng\timage/png");
        lines.add(2, "# a comment");
        lines.add(3, "   ");
        TestImages.writeManifest(dir, lines);
        assertEquals(3, ImageManifest.load(dir).formats().size());
    }

    @Test
    void a_missing_manifest_is_named() throws Exception {
        Files.writeString(dir.resolve("Renard-1.png"), "x");
        assertTrue(refused().getMessage().contains("no manifest.tsv in " + dir), refused().getMessage());
    }

    @Test
    void a_bad_line_is_named_by_its_number() throws Exception {
        List<String> lines = TestImages.create(dir, 2);
        int at = indexOf(lines, "keyed");
        ManifestException e = refusedWith(2, at, l -> "keyed\t3600");
        assertTrue(e.getMessage().contains("manifest.tsv line " + (at + 1) + ": "), e.getMessage());
    }

    @ParameterizedTest(name = "refused: {0}")
    @ValueSource(strings = {
        "imagery\ta/x.png\t1\t32\tpng",
        "image\ta/x.png\t1\t32",
        "image\ta/x.png\tone\t32\tpng",
        "image\ta/x.png\t0\t32\tpng",
        "image\ta/x.png\t1\t-32\tpng",
        "image\ta/x.png\t1\t4097\tpng",
        "image\ta/x.png\t10000\t32\tpng",
        "image\ta/x.png\t1\t99999999999\tpng",
        "keyed\t3600\t128",
        "format\tpng\timage/png\t",
        "format\tjxl\timage/jxl\t(unclosed",
        "format\tJXL\timage/jxl\tx",
        "format\tjxl\tjxl\tx",
        "format\tjxl\timage/jxl\tx\textra",
    })
    void a_malformed_line_is_refused(String line) throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 1));
        lines.add(line);
        TestImages.writeManifest(dir, lines);
        assertTrue(refused().getMessage().contains("manifest.tsv line " + lines.size() + ": "), refused().getMessage());
    }

    @ParameterizedTest(name = "refused: keyed {0}")
    @ValueSource(strings = {"3600\t0", "-1\t128", "3600\t1025", "31536001\t128", "3600", "3600\t128\t1", "1h\t128"})
    void a_wrong_keyed_line_is_refused(String values) throws Exception {
        List<String> lines = TestImages.create(dir, 1);
        int at = indexOf(lines, "keyed\t");
        ManifestException e = refusedWith(1, at, l -> "keyed\t" + values);
        assertTrue(e.getMessage().contains("manifest.tsv line " + (at + 1) + ": "), e.getMessage());
    }

    @ParameterizedTest(name = "refused: {0}")
    @ValueSource(strings = {"../outside.png", "a/../../outside.png", "a/../Renard-1.png", "/etc/passwd", "./Renard-1.png",
        "a//x.png", "a/x y.png", "a/caf\u00e9.png", "a\\x.png", ""})
    void a_path_that_is_not_plainly_inside_the_directory_is_refused(String path) throws Exception {
        Files.writeString(dir.resolveSibling("outside.png"), "x");
        List<String> lines = new ArrayList<>(TestImages.create(dir, 1));
        lines.add("legacy\t" + path + "\t1\t256\tpng");
        TestImages.writeManifest(dir, lines);
        assertTrue(refused().getMessage().contains("line " + lines.size() + ": "), refused().getMessage());
    }

    @Test
    void a_path_with_dot_dot_names_the_segment() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 1));
        lines.add("legacy\ta/../Renard-1.png\t1\t256\tpng");
        TestImages.writeManifest(dir, lines);
        assertTrue(refused().getMessage().endsWith("path 'a/../Renard-1.png' has a .. segment"), refused().getMessage());
    }

    @Test
    void a_missing_file_is_named() throws Exception {
        List<String> lines = TestImages.create(dir, 3);
        String path = lines.get(indexOf(lines, "image\ta/Renard-2-64.")).split("\t")[1];
        Files.delete(dir.resolve(path));
        String message = refused().getMessage();
        assertTrue(message.contains("missing file: " + path), message);
        assertTrue(message.contains("line " + (indexOf(lines, "image\t" + path) + 1) + ": "), message);
    }

    @Test
    void a_directory_or_a_symlink_leading_outside_is_not_a_file_inside() throws Exception {
        Path outside = Files.writeString(dir.resolveSibling("elsewhere.png"), "x");
        List<String> lines = new ArrayList<>(TestImages.create(dir, 1));
        Files.createDirectory(dir.resolve("folder.png"));
        Files.createSymbolicLink(dir.resolve("link.png"), outside);
        for (String path : List.of("folder.png", "link.png")) {
            List<String> with = new ArrayList<>(lines);
            with.add("legacy\t" + path + "\t1\t256\tpng");
            TestImages.writeManifest(dir, with);
            assertTrue(refused().getMessage().contains("missing file: " + path), refused().getMessage());
        }
    }

    @Test
    void a_fox_without_every_size_in_every_format_is_refused() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 3));
        lines.remove(indexOf(lines, "image\ta/Renard-3-96."));
        TestImages.writeManifest(dir, lines);
        String message = refused().getMessage();
        assertTrue(message.contains("picture 3 has no 96 px"), message);
    }

    @Test
    void the_same_image_twice_is_refused() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 2));
        Files.writeString(dir.resolve("a/another.avif"), "x");
        lines.add("image\ta/another.avif\t1\t32\tavif");
        TestImages.writeManifest(dir, lines);
        assertTrue(refused().getMessage().contains("a second image for picture 1 at 32 px in avif"), refused().getMessage());
    }

    @Test
    void an_image_in_an_unlisted_format_is_refused() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 1));
        Files.writeString(dir.resolve("a/x.gif"), "x");
        lines.add("image\ta/x.gif\t1\t32\tgif");
        TestImages.writeManifest(dir, lines);
        assertTrue(refused().getMessage().contains("format gif has no format line"), refused().getMessage());
    }

    @Test
    void the_format_lines_need_a_last_one_with_an_empty_regex() throws Exception {
        List<String> lines = TestImages.create(dir, 1);
        assertTrue(refusedWith(1, indexOf(lines, "format\tpng"), l -> l + ".").getMessage()
                .contains("the last format line must have an empty Accept regex"));
        assertTrue(refusedWith(1, indexOf(lines, "format\twebp"), l -> "format\twebp\timage/webp\t").getMessage()
                .contains("only the last format line may have an empty Accept regex"));
    }

    @Test
    void no_format_no_keyed_or_no_image_line_is_refused() throws Exception {
        for (String type : List.of("format\t", "keyed\t", "image\t")) {
            List<String> lines = new ArrayList<>(TestImages.create(dir, 1));
            lines.removeIf(l -> l.startsWith(type));
            TestImages.writeManifest(dir, lines);
            assertTrue(refused().getMessage().contains("no " + type.strip() + " line"), refused().getMessage());
        }
    }

    @Test
    void a_manifest_that_is_not_utf8_is_refused() throws Exception {
        TestImages.create(dir, 1);
        Files.write(dir.resolve(ImageSetContract.FILE), new byte[] {'#', (byte) 0xff, '\n'});
        assertTrue(refused().getMessage().endsWith("manifest.tsv: not UTF-8 text"), refused().getMessage());
    }

    /** The repository's committed image set (images/manifest.tsv, made by `make images`). */
    @Test
    void the_committed_manifest_loads_with_21_foxes_the_ladder_its_default_and_three_formats() throws Exception {
        Path images = Path.of(System.getProperty("avatar.repo.images", "../images"));
        assertTrue(Files.isRegularFile(images.resolve(ImageSetContract.FILE)), images + "/manifest.tsv: not there");
        ImageManifest m = ImageManifest.load(images);
        assertEquals(21, m.foxes().length);
        assertArrayEquals(new int[] {32, 48, 64, 96, 128, 192, 256, 384, 512}, m.sizes());
        assertEquals(256, m.defaultSize());
        assertEquals(List.of("avif", "webp", "png"), m.formats().stream().map(ImageManifest.Format::extension).toList());
        assertEquals(List.of("image/avif", "image/webp", "image/png"),
                m.formats().stream().map(ImageManifest.Format::mediaType).toList());
        // Its Accept regexes give real clients the answers a new set's Accept regexes give them
        // (imageset/contract.py).
        FormatChooser real = new FormatChooser(m.formats().stream().map(ImageManifest.Format::acceptRegex).toList());
        FormatChooser spec = new FormatChooser(FormatChooserTest.REGEXES);
        for (String accept : List.of(ServerOverHttp.CHROMIUM, ServerOverHttp.OLD_SAFARI, "*/*", "image/*",
                "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
                "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,"
                        + "image/svg+xml,image/*;q=0.8,*/*;q=0.5",
                "image/avif;q=0,image/webp", "image/avif;q=0.000, image/webp;q=0", "IMAGE/WEBP;Q=0.5", "image/avifx")) {
            assertEquals(spec.choose(accept), real.choose(accept), accept);
        }
        assertEquals(2, real.choose(null));
        assertEquals(3600, m.keyedMaxAge());
        assertEquals(128, m.maxKeyLength());
        for (int f = 0; f < 21; f++) {
            for (int s = 0; s < 9; s++) {
                for (int x = 0; x < 3; x++) {
                    assertTrue(m.path(f, s, x).matches(TestImages.LOCATION), m.path(f, s, x));
                }
            }
        }
    }
}
