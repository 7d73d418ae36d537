package dev.foxavatar;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The image set's contract, {@code <images>/manifest.tsv} (manifest v2, made by {@code make images}):
 * the formats with their Accept rules, the keyed-answer settings, the default size, the path of every
 * picture ("fox") at every size of its ladder in every format, and the key buckets (which picture each
 * of 10,000 key buckets gets). A picture's sizes are a prefix of the set's ladder; asked for a size
 * above its largest, it answers its largest (the fill rule, applied here once: {@link #path}). Read
 * and checked once at start-up; any fault is one {@code --images} line naming it.
 */
public final class ImageManifest {
    public static final String FILE = "manifest.tsv";
    static final String SETTING = "--images";

    /** A {@code format} line: extension, media type, Accept regex (empty for the last, the fallback). */
    public record Format(String extension, String mediaType, String acceptRegex) {
    }

    /** Extensions, media types, numbers and paths as the generator writes them (URL-safe, no escapes). */
    private static final Pattern EXTENSION = Pattern.compile("[a-z0-9]+");
    private static final Pattern MEDIA_TYPE = Pattern.compile("[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*");
    private static final Pattern NUMBER = Pattern.compile("\\d{1,9}");
    /** Bounds that keep the start-up tables small and nginx's split_clients shares non-zero. */
    static final int MAX_FOX = 9999;
    static final int MAX_SIZE = 4096;
    static final int MAX_AGE = 31_536_000;
    static final int MAX_KEY_LENGTH = 1024;
    /** Key buckets: nginx's split_clients with 10,000 parts of 0.01 %. */
    public static final int BUCKETS = 10_000;
    private static final Pattern PATH = Pattern.compile("[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*");

    private final List<Format> formats;
    private final int keyedMaxAge;
    private final int maxKeyLength;
    private final int[] foxes;
    private final int[] sizes;
    private final String[][][] paths;
    private final int[] largest;
    private final int defaultSize;
    private final int[] buckets;

    private ImageManifest(Read r, int[] foxes, int[] sizes, String[][][] paths, int[] largest, int[] buckets) {
        this.formats = List.copyOf(r.formats);
        this.keyedMaxAge = r.maxAge;
        this.maxKeyLength = r.maxKey;
        this.defaultSize = r.defaultSize;
        this.foxes = foxes;
        this.sizes = sizes;
        this.paths = paths;
        this.largest = largest;
        this.buckets = buckets;
    }

    /** What the records say, before the cross-checks. */
    private static final class Read {
        final List<Format> formats = new ArrayList<>();
        final List<Entry> images = new ArrayList<>();
        int maxAge;
        int maxKey;
        int defaultSize;
        int defaultLine;
        int[] buckets;
        int bucketsLine;
    }

    /** One {@code image} or {@code legacy} line, kept with its number for the completeness checks. */
    private record Entry(int line, String path, int fox, int size, String format) {
    }

    /** Reads and checks {@code directory/manifest.tsv}. */
    public static ImageManifest load(Path directory) throws SettingsException {
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

    private static ImageManifest parse(Path directory, Path file, List<String> lines) throws SettingsException {
        Path root = realDirectory(directory);
        Read r = new Read();
        List<Format> formats = r.formats;
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
                    formats.add(new Format(f[1], f[2], regex));
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
        return complete(file, r);
    }

    /**
     * Builds the [fox][size][format] table: every picture has every format at every size from the
     * smallest up to its own largest; the cells above are filled with its largest (the fill rule).
     */
    private static ImageManifest complete(Path file, Read r) throws SettingsException {
        List<Format> formats = r.formats;
        List<Entry> images = r.images;
        Map<String, Integer> formatIndex = new HashMap<>();
        for (int i = 0; i < formats.size(); i++) {
            formatIndex.put(formats.get(i).extension(), i);
        }
        TreeSet<Integer> foxSet = new TreeSet<>();
        TreeSet<Integer> sizeSet = new TreeSet<>();
        for (Entry e : images) {
            check(file, e.line(), formatIndex.containsKey(e.format()), "format " + e.format() + " has no format line");
            foxSet.add(e.fox());
            sizeSet.add(e.size());
        }
        int[] foxes = foxSet.stream().mapToInt(Integer::intValue).toArray();
        int[] sizes = sizeSet.stream().mapToInt(Integer::intValue).toArray();
        for (int f = 0; f < foxes.length; f++) {
            if (foxes[f] != f + 1) {
                throw new SettingsException(SETTING, file + ": the image lines' pictures are not numbered 1.."
                        + foxes.length + " (no picture " + (f + 1) + ")");
            }
        }
        check(file, r.defaultLine, sizeSet.contains(r.defaultSize), "default size " + r.defaultSize
                + " is not a size of the ladder " + sizeSet);
        String[][][] table = new String[foxes.length][sizes.length][formats.size()];
        for (Entry e : images) {
            String[] cell = table[foxSet.headSet(e.fox()).size()][sizeSet.headSet(e.size()).size()];
            int format = formatIndex.get(e.format());
            check(file, e.line(), cell[format] == null,
                    "a second image for fox " + e.fox() + " at " + e.size() + " px in " + e.format());
            cell[format] = e.path();
        }
        int[] largest = new int[foxes.length];
        for (int f = 0; f < foxes.length; f++) {
            int top = sizes.length - 1;
            while (top > 0 && Arrays.stream(table[f][top]).allMatch(Objects::isNull)) {
                top--;
            }
            largest[f] = top;
            for (int s = 0; s < sizes.length; s++) {
                for (int x = 0; x < formats.size(); x++) {
                    if (s > top) {
                        table[f][s][x] = table[f][top][x];
                    } else if (table[f][s][x] == null) {
                        throw new SettingsException(SETTING, file + ": picture " + foxes[f] + " has no " + sizes[s]
                                + " px " + formats.get(x).extension() + " image (every picture needs every format at"
                                + " every size of the ladder up to its largest, " + sizes[top] + " px)");
                    }
                }
            }
        }
        int[] buckets = new int[BUCKETS];
        for (int b = 0; b < BUCKETS; b++) {
            check(file, r.bucketsLine, r.buckets[b] <= foxes.length, "bucket " + b + " names picture "
                    + r.buckets[b] + ", but the image lines have pictures 1.." + foxes.length);
            buckets[b] = r.buckets[b] - 1;
        }
        return new ImageManifest(r, foxes, sizes, table, largest, buckets);
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

    private static int number(Path file, int n, String text, String what, int min, int max)
            throws SettingsException {
        check(file, n, NUMBER.matcher(text).matches() && Integer.parseInt(text) >= min && Integer.parseInt(text) <= max,
                what + " '" + text + "' is not a whole number from " + min + " to " + max);
        return Integer.parseInt(text);
    }

    private static void expect(Path file, int n, String[] fields, boolean ok, String shape) throws SettingsException {
        check(file, n, ok, fields.length + " tab-separated fields, expected " + shape);
    }

    private static void check(Path file, int n, boolean ok, String problem) throws SettingsException {
        if (!ok) {
            throw bad(file, n, problem);
        }
    }

    private static SettingsException bad(Path file, int n, String problem) {
        return new SettingsException(SETTING, file + " line " + n + ": " + problem);
    }

    /** In order of preference; the last one is the fallback (empty Accept regex). */
    public List<Format> formats() {
        return formats;
    }

    /** {@code Cache-Control: max-age} of a keyed answer, seconds. */
    public int keyedMaxAge() {
        return keyedMaxAge;
    }

    /** The longest key accepted, in characters. */
    public int maxKeyLength() {
        return maxKeyLength;
    }

    /** Fox numbers, ascending: index i of the table is fox {@code foxes()[i]}. */
    public int[] foxes() {
        return foxes.clone();
    }

    /** The size ladder, ascending (px). */
    public int[] sizes() {
        return sizes.clone();
    }

    /**
     * The path (relative to the images directory) of fox index f, size index s, format index x; for a
     * size above the picture's largest, its largest (the fill rule).
     */
    public String path(int fox, int size, int format) {
        return paths[fox][size][format];
    }

    /** The size index of fox index f's largest image. */
    public int largestSizeIndex(int fox) {
        return largest[fox];
    }

    /** The size (px) answered when no valid size is asked: one of {@link #sizes()}. */
    public int defaultSize() {
        return defaultSize;
    }

    /** The fox index (0-based) of each of the {@link #BUCKETS} key buckets. */
    public int[] buckets() {
        return buckets.clone();
    }

    /** How many files the sidecar redirects to (every picture's sizes x formats). */
    public int imageCount() {
        int count = 0;
        for (int top : largest) {
            count += (top + 1) * formats.size();
        }
        return count;
    }
}
