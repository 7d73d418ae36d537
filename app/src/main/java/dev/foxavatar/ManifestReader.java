package dev.foxavatar;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import static dev.foxavatar.ImageSetContract.BUCKETS;
import static dev.foxavatar.ImageSetContract.FILE;
import static dev.foxavatar.ImageSetContract.MAX_AGE;
import static dev.foxavatar.ImageSetContract.MAX_FOX;
import static dev.foxavatar.ImageSetContract.MAX_KEY_LENGTH;
import static dev.foxavatar.ImageSetContract.MAX_SIZE;

/**
 * Reads {@code <images>/manifest.tsv} line by line: each record's shape, its numbers within the
 * contract's bounds ({@link ImageSetContract}), each listed file there, and the records every manifest
 * needs. What the records say together (every picture complete, the buckets naming pictures of the
 * set) is {@link ImageManifest}'s check. Any fault is one {@code --images} line naming it.
 */
final class ManifestReader {
    static final String SETTING = "--images";

    /** Extensions, media types, numbers and paths as the generator writes them (URL-safe, no escapes). */
    private static final Pattern EXTENSION = Pattern.compile("[a-z0-9]+");
    private static final Pattern MEDIA_TYPE = Pattern.compile("[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*");
    private static final Pattern NUMBER = Pattern.compile("\\d{1,9}");
    private static final Pattern PATH = Pattern.compile("[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*");

    /** What the records say, before the cross-checks. */
    static final class Read {
        final Path file;
        final List<ImageManifest.Format> formats = new ArrayList<>();
        final List<Entry> images = new ArrayList<>();
        int maxAge;
        int maxKey;
        int defaultSize;
        int defaultLine;
        int[] buckets;
        int bucketsLine;

        Read(Path file) {
            this.file = file;
        }
    }

    /** One {@code image} or {@code legacy} line, kept with its number for the completeness checks. */
    record Entry(int line, String path, int fox, int size, String format) {
    }

    private ManifestReader() {
    }

    /** Reads {@code directory/manifest.tsv} and checks each record. */
    static Read read(Path directory) throws SettingsException {
        Path file = directory.resolve(FILE);
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new SettingsException(SETTING, "no " + FILE + " in " + directory
                    + " (the image set's manifest, made by `make images`)");
        } catch (IOException e) {
            throw new SettingsException(SETTING, "cannot read " + file + ": " + why(e));
        }
        return parse(directory, file, lines);
    }

    private static Read parse(Path directory, Path file, List<String> lines) throws SettingsException {
        Path root = realDirectory(directory);
        Read r = new Read(file);
        List<ImageManifest.Format> formats = r.formats;
        List<Integer> formatLines = new ArrayList<>();
        List<Entry> images = r.images;
        List<Entry> legacy = new ArrayList<>();
        Set<String> paths = new HashSet<>();
        int keyedLine = 0;
        for (int n = 1; n <= lines.size(); n++) {
            String line = lines.get(n - 1);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            switch (f[0]) {
                case "format" -> {
                    // The last line's regex is empty: a trailing tab may be there or not.
                    expect(file, n, f, f.length == 3 || f.length == 4, "format<TAB>extension<TAB>media type<TAB>Accept regex");
                    String regex = f.length == 4 ? f[3] : "";
                    check(file, n, EXTENSION.matcher(f[1]).matches(), "extension '" + f[1] + "' is not [a-z0-9]+");
                    check(file, n, MEDIA_TYPE.matcher(f[2]).matches(), "'" + f[2] + "' is not a media type");
                    check(file, n, formats.stream().noneMatch(x -> x.extension().equals(f[1])),
                            "format " + f[1] + " listed twice");
                    try {
                        Pattern.compile(regex, Pattern.CASE_INSENSITIVE);
                    } catch (PatternSyntaxException e) {
                        throw bad(file, n, "the Accept regex does not compile: " + e.getDescription());
                    }
                    formats.add(new ImageManifest.Format(f[1], f[2], regex));
                    formatLines.add(n);
                }
                case "keyed" -> {
                    expect(file, n, f, f.length == 3, "keyed<TAB>max-age<TAB>max key length");
                    check(file, n, keyedLine == 0, "a second keyed line (the first is line " + keyedLine + ")");
                    r.maxAge = number(file, n, f[1], "max-age", 0, MAX_AGE);
                    r.maxKey = number(file, n, f[2], "max key length", 1, MAX_KEY_LENGTH);
                    keyedLine = n;
                }
                case "default" -> {
                    expect(file, n, f, f.length == 2, "default<TAB>size");
                    check(file, n, r.defaultLine == 0, "a second default line (the first is line " + r.defaultLine + ")");
                    r.defaultSize = number(file, n, f[1], "default size", 1, MAX_SIZE);
                    r.defaultLine = n;
                }
                case "buckets" -> {
                    expect(file, n, f, f.length == 2, "buckets<TAB>" + BUCKETS + " space-separated picture numbers");
                    check(file, n, r.bucketsLine == 0, "a second buckets line (the first is line " + r.bucketsLine + ")");
                    String[] b = f[1].split(" ", -1);
                    check(file, n, b.length == BUCKETS, b.length + " buckets, expected " + BUCKETS);
                    r.buckets = new int[BUCKETS];
                    for (int i = 0; i < BUCKETS; i++) {
                        r.buckets[i] = number(file, n, b[i], "bucket " + i + "'s picture", 1, MAX_FOX);
                    }
                    r.bucketsLine = n;
                }
                case "image", "legacy" -> {
                    expect(file, n, f, f.length == 5, f[0] + "<TAB>path<TAB>fox<TAB>size<TAB>format");
                    Entry e = new Entry(n, f[1], number(file, n, f[2], "fox", 1, MAX_FOX),
                            number(file, n, f[3], "size", 1, MAX_SIZE), f[4]);
                    checkFile(root, file, n, e.path());
                    check(file, n, paths.add(e.path()), "path " + e.path() + " listed twice");
                    (f[0].equals("image") ? images : legacy).add(e);
                }
                default -> throw bad(file, n, "unknown record type '" + f[0]
                        + "' (format, keyed, default, image, legacy, buckets)");
            }
        }
        if (formats.isEmpty()) {
            throw new SettingsException(SETTING, file + ": no format line");
        }
        for (int i = 0; i < formats.size(); i++) {
            boolean last = i == formats.size() - 1;
            check(file, formatLines.get(i), formats.get(i).acceptRegex().isEmpty() == last, last
                    ? "the last format line must have an empty Accept regex (the answer when none matches)"
                    : "only the last format line may have an empty Accept regex");
        }
        if (keyedLine == 0) {
            throw new SettingsException(SETTING, file + ": no keyed line (keyed<TAB>max-age<TAB>max key length)");
        }
        if (images.isEmpty()) {
            throw new SettingsException(SETTING, file + ": no image line");
        }
        if (r.defaultLine == 0) {
            throw new SettingsException(SETTING, file + ": no default line (default<TAB>size)");
        }
        if (r.bucketsLine == 0) {
            throw new SettingsException(SETTING, file + ": no buckets line (buckets<TAB>" + BUCKETS
                    + " picture numbers; made by `make images`)");
        }
        for (Entry e : legacy) {
            check(file, e.line(), formats.stream().anyMatch(x -> x.extension().equals(e.format())),
                    "format " + e.format() + " has no format line");
        }
        return r;
    }

    private static Path realDirectory(Path directory) throws SettingsException {
        try {
            return directory.toRealPath();
        } catch (IOException e) {
            throw new SettingsException(SETTING, "cannot read the directory " + directory + ": " + why(e));
        }
    }

    /** A relative, URL-safe path without empty, {@code .} or {@code ..} segments, naming a readable file inside root. */
    private static void checkFile(Path root, Path file, int n, String path) throws SettingsException {
        check(file, n, !path.startsWith("/"), "path '" + path + "' is absolute (must be relative to the directory)");
        for (String segment : path.split("/", -1)) {
            check(file, n, !segment.equals(".."), "path '" + path + "' has a .. segment");
        }
        check(file, n, PATH.matcher(path).matches(), "path '" + path
                + "' has an empty segment or a character outside A-Z a-z 0-9 . _ ~ - /");
        check(file, n, !("/" + path + "/").contains("/./"), "path '" + path + "' has a . segment");
        Path target = root.resolve(path);
        boolean inside;
        try {
            inside = Files.isRegularFile(target) && Files.isReadable(target)
                    && target.toRealPath().startsWith(root);
        } catch (IOException e) {
            inside = false;
        }
        check(file, n, inside, "missing file: " + path + " is not a readable regular file inside " + root);
    }

    /** An I/O failure in words, without exception class names (the line is for people). */
    private static String why(IOException e) {
        if (e instanceof CharacterCodingException) {
            return "not UTF-8 text";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage();
    }

    static int number(Path file, int n, String text, String what, int min, int max)
            throws SettingsException {
        check(file, n, NUMBER.matcher(text).matches() && Integer.parseInt(text) >= min && Integer.parseInt(text) <= max,
                what + " '" + text + "' is not a whole number from " + min + " to " + max);
        return Integer.parseInt(text);
    }

    private static void expect(Path file, int n, String[] fields, boolean ok, String shape) throws SettingsException {
        check(file, n, ok, fields.length + " tab-separated fields, expected " + shape);
    }

    static void check(Path file, int n, boolean ok, String problem) throws SettingsException {
        if (!ok) {
            throw bad(file, n, problem);
        }
    }

    static SettingsException bad(Path file, int n, String problem) {
        return new SettingsException(SETTING, file + " line " + n + ": " + problem);
    }

}
