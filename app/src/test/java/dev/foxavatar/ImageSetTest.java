package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageSetTest {
    @TempDir
    Path dir;

    @Test
    void reads_every_image_in_natural_order() throws Exception {
        TestImages.create(dir, 21);
        ImageSet set = ImageSet.scan(dir);
        assertEquals(21, set.size());
        assertEquals("Renard-1.png", set.names().get(0));
        assertEquals("Renard-2.png", set.names().get(1));
        assertEquals("Renard-21.png", set.names().get(20));
    }

    @Test
    void only_files_nginx_would_serve_are_images() throws Exception {
        TestImages.create(dir, 2);
        Files.writeString(dir.resolve(".hidden.png"), "x");
        Files.writeString(dir.resolve("notes.txt"), "x");
        Files.writeString(dir.resolve("draw.py"), "x");
        Files.writeString(dir.resolve("with space.png"), "x");
        Files.createDirectory(dir.resolve("folder.png"));
        Files.writeString(dir.resolve("photo.jpg"), "x");
        assertEquals(List.of("Renard-1.png", "Renard-2.png", "photo.jpg"), ImageSet.scan(dir).names());
    }

    @Test
    void a_directory_without_images_is_refused_naming_the_setting() throws Exception {
        Files.writeString(dir.resolve("README"), "x");
        SettingsException e = assertThrows(SettingsException.class, () -> ImageSet.scan(dir));
        assertTrue(e.getMessage().startsWith("--images: no image"), e.getMessage());
    }
}
