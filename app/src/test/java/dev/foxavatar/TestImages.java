package dev.foxavatar;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A temporary images directory of dummy files (the tests check names, not pixels). */
final class TestImages {
    private TestImages() {
    }

    static List<String> create(Path dir, int count) throws IOException {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            String name = "Renard-" + i + ".png";
            Files.write(dir.resolve(name), new byte[] {(byte) i});
            names.add(name);
        }
        return names;
    }
}
