package dev.foxavatar;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The images the service redirects to: the regular files directly in the images directory whose names
 * Nginx serves (same pattern as Nginx's image location), read once at start-up.
 */
public final class ImageSet {
    /** Keep in step with the image location in nginx/: the set redirected to is the set served. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*\\.(png|jpg|jpeg|gif|webp)");

    private final List<String> names;

    private ImageSet(List<String> names) {
        this.names = List.copyOf(names);
    }

    public static ImageSet scan(Path directory) throws IOException, SettingsException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (NAME.matcher(name).matches() && Files.isRegularFile(entry) && Files.isReadable(entry)) {
                    names.add(name);
                }
            }
        }
        if (names.isEmpty()) {
            throw new SettingsException("--images", "no image in " + directory
                    + " (expected files named like Renard-1.png: " + NAME.pattern() + ")");
        }
        names.sort(Comparator.comparing(ImageSet::naturalKey));
        return new ImageSet(names);
    }

    /** Orders Renard-2 before Renard-10, for readable logs. */
    private static String naturalKey(String name) {
        return Pattern.compile("\\d+").matcher(name).replaceAll(m -> String.format("%012d", Long.parseLong(
                m.group().length() > 12 ? m.group().substring(0, 12) : m.group())));
    }

    public List<String> names() {
        return names;
    }

    public int size() {
        return names.size();
    }
}
