package dev.foxavatar;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
    /**
     * The image-name rule, read from its one owner, images/names.regex (a resource of the jar): the
     * rule the Nginx image map is rendered with, so the set redirected to is the set served.
     */
    public static final Pattern NAME = Pattern.compile(readRule("names.regex"));

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

    static String readRule(String resource) {
        try (InputStream in = ImageSet.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " missing from the jar");
            }
            List<String> rules = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
            if (rules.size() != 1) {
                throw new IllegalStateException(resource + ": expected one rule line, found " + rules.size());
            }
            return rules.get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
