package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table the sidecar answers from, as the reader builds it. What a reader refuses is the manifest
 * table's (ManifestCasesTest); this is what the table's one-line verdicts cannot show.
 */
class ImageManifestTest {
    @TempDir
    Path dir;

    @Test
    void every_path_in_picture_size_format_order_whatever_the_line_order_with_the_fill_rule() throws Exception {
        List<String> lines = new ArrayList<>(TestImages.create(dir, 12, 3, 64));
        List<String> images = new ArrayList<>(lines.stream().filter(l -> l.startsWith("image\t")).toList());
        lines.removeAll(images);
        Collections.reverse(images);
        lines.addAll(images);
        TestImages.writeManifest(dir, lines);
        ImageManifest m = ManifestReader.read(dir);
        assertEquals(List.of("image/avif", "image/webp", "image/png"),
                m.formats().stream().map(ImageManifest.Format::mediaType).toList());
        assertArrayEquals(TestImages.SIZES, m.sizes());
        assertEquals(11 * 9 * 3 + 3 * 3, m.imageCount());
        assertTrue(m.path(1, 0, 0).startsWith("a/Renard-2-32."), m.path(1, 0, 0));
        assertTrue(m.path(9, 2, 1).matches("a/Renard-10-64\\.[0-9a-f]{10}\\.webp"), m.path(9, 2, 1));
        assertEquals(m.path(2, 2, 2), m.path(2, 8, 2), "a size above picture 3's largest gets its largest");
    }

    @Test
    void a_missing_manifest_is_named() {
        ManifestException e = assertThrows(ManifestException.class, () -> ManifestReader.read(dir));
        assertTrue(e.getMessage().contains("no manifest.tsv in " + dir), e.getMessage());
    }
}
