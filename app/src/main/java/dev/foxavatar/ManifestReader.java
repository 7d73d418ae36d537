package dev.foxavatar;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static dev.foxavatar.KeyBuckets.BUCKETS;

/**
 * Reads and checks {@code <images>/manifest.tsv} (made by {@code make images}) once at start, then
 * builds the {@link ImageManifest}. The checks, their order, their bounds and their words are those of
 * the image set's Python owner (imageset/manifest.py, imageset/contract.py); both readers run the
 * table of tests/images/manifest-cases.txt.
 * Each line in turn: UTF-8 text, no control character but the tab (a line may end CR LF), each record's
 * shape and numbers, each listed path plain and naming a readable regular file inside the set (links
 * resolved). Then the set: every record there, every picture numbered, complete at every rung of its
 * ladder, and the buckets naming its pictures. Any fault is a {@link ManifestException}.
 */
final class ManifestReader {
    static final String FILE = "manifest.tsv";
    private static final int MAX_FOX = 9999;
    private static final int MAX_SIZE = 4096;
    private static final int MAX_AGE = 31_536_000;
    private static final int MAX_KEY_LENGTH = 1024;
    private static final Pattern EXTENSION = Pattern.compile("[a-z0-9]+");
    private static final Pattern MEDIA_TYPE = Pattern.compile("[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*");
    private static final Pattern NUMBER = Pattern.compile("[0-9]{1,9}");
    private static final Pattern PATH = Pattern.compile("[A-Za-z0-9._~-]+(?:/[A-Za-z0-9._~-]+)*");
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,39}");

    /** One {@code image} or {@code legacy} line, kept with its number for the checks of the whole set. */
    private record Entry(int line, boolean image, String path, int fox, int size, String format) {
    }

    private final Path file;
    private final Path root;
    private final List<ImageManifest.Format> formats = new ArrayList<>();
    private final List<Entry> entries = new ArrayList<>();
    private final Set<String> paths = new HashSet<>();
    private int keyedLine;
    private int maxAge;
    private int maxKey;
    private int defaultLine;
    private int defaultSize;
    private int bucketsLine;
    private int[] buckets;
    private int variantsLine;
    private ImageManifest.Variants variants;

    private ManifestReader(Path file, Path root) {
        this.file = file;
        this.root = root;
    }

    /** Reads and checks {@code directory/manifest.tsv} and every file it lists. */
    static ImageManifest read(Path directory) throws ManifestException {
        Path file = directory.resolve(FILE);
        String text;
        try {
            byte[] bytes = Files.readAllBytes(file);
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (NoSuchFileException e) {
            throw new ManifestException("no " + FILE + " in " + directory
                    + " (the image set's manifest, made by `make images`; --images names its directory)");
        } catch (CharacterCodingException e) {
            throw new ManifestException(file + ": not UTF-8 text");
        } catch (IOException e) {
            throw new ManifestException(file + ": cannot read: "
                    + (e instanceof AccessDeniedException ? "permission denied" : e.getMessage()));
        }
        Path root;
        try {
            root = directory.toRealPath();
        } catch (IOException e) {
            throw new ManifestException(file + ": cannot resolve the directory " + directory + ": " + e.getMessage());
        }
        ManifestReader reader = new ManifestReader(file, root);
        String[] lines = text.split("\n", -1);
        for (int n = 1; n <= lines.length; n++) {
            reader.line(n, lines[n - 1]);
        }
        return reader.whole();
    }

    private void line(int n, String raw) throws ManifestException {
        String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c < 0x20 && c != '\t' || c >= 0x7f && c <= 0x9f) {
                throw fault(n, String.format("control character U+%04X (a manifest is lines of tab-separated text)", (int) c));
            }
        }
        if (line.chars().allMatch(c -> c == ' ' || c == '\t') || line.startsWith("#")) {
            return;
        }
        String[] f = line.split("\t", -1);
        switch (f[0]) {
            case "format" -> {
                expect(n, f, f.length == 3, "format<TAB>extension<TAB>media type");
                check(n, EXTENSION.matcher(f[1]).matches(), "extension '" + f[1] + "' is not [a-z0-9]+");
                check(n, MEDIA_TYPE.matcher(f[2]).matches(), "'" + f[2] + "' is not a media type");
                check(n, formats.stream().noneMatch(x -> x.extension().equals(f[1])), "format " + f[1] + " listed twice");
                formats.add(new ImageManifest.Format(f[1], f[2]));
            }
            case "keyed" -> {
                expect(n, f, f.length == 3, "keyed<TAB>max-age<TAB>max key length");
                check(n, keyedLine == 0, "a second keyed line (the first is line " + keyedLine + ")");
                maxAge = number(n, f[1], "max-age", 0, MAX_AGE);
                maxKey = number(n, f[2], "max key length", 1, MAX_KEY_LENGTH);
                keyedLine = n;
            }
            case "default" -> {
                expect(n, f, f.length == 2, "default<TAB>size");
                check(n, defaultLine == 0, "a second default line (the first is line " + defaultLine + ")");
                defaultSize = number(n, f[1], "default size", 1, MAX_SIZE);
                defaultLine = n;
            }
            case "buckets" -> {
                expect(n, f, f.length == 2, "buckets<TAB>" + BUCKETS + " space-separated picture numbers");
                check(n, bucketsLine == 0, "a second buckets line (the first is line " + bucketsLine + ")");
                String[] b = f[1].split(" ", -1);
                check(n, b.length == BUCKETS, b.length + " buckets, expected " + BUCKETS);
                buckets = new int[BUCKETS];
                for (int i = 0; i < BUCKETS; i++) {
                    buckets[i] = number(n, b[i], "bucket " + i + "'s picture", 1, MAX_FOX);
                }
                bucketsLine = n;
            }
            case "image", "legacy" -> {
                expect(n, f, f.length == 5, f[0] + "<TAB>path<TAB>fox<TAB>size<TAB>format");
                Entry e = new Entry(n, f[0].equals("image"), f[1], number(n, f[2], "fox", 1, MAX_FOX),
                        number(n, f[3], "size", 1, MAX_SIZE), f[4]);
                checkPath(n, e.path(), true);
                check(n, paths.add(e.path()), "path " + e.path() + " listed twice");
                entries.add(e);
            }
            case "variants" -> {
                expect(n, f, f.length == 5, "variants<TAB>directory<TAB>prefix<TAB>count<TAB>sizes");
                check(n, variantsLine == 0, "a second variants line (the first is line " + variantsLine + ")");
                checkPath(n, f[1], false); // the identities are drawn where they are served
                check(n, PREFIX.matcher(f[2]).matches(), "prefix '" + f[2] + "' is not letters, digits, '_' or '-'");
                int count = number(n, f[3], "variant count", 1, BUCKETS);
                check(n, BUCKETS % count == 0, "variant count " + count + " does not divide " + BUCKETS);
                String[] s = f[4].split(" ", -1);
                int[] sizes = new int[s.length];
                for (int i = 0; i < s.length; i++) {
                    sizes[i] = number(n, s[i], "identity size", 1, MAX_SIZE);
                }
                for (int i = 1; i < s.length; i++) {
                    check(n, sizes[i] > sizes[i - 1], "identity sizes '" + f[4] + "' are not ascending");
                }
                variants = new ImageManifest.Variants(f[1], f[2], count, sizes);
                variantsLine = n;
            }
            default -> throw fault(n, "unknown record type '" + f[0]
                    + "' (format, keyed, default, image, legacy, buckets, variants)");
        }
    }

    /**
     * A relative, URL-safe path without empty, . or .. segments or hidden files; with {@code file}, naming a
     * readable regular file inside the set.
     */
    private void checkPath(int n, String path, boolean file) throws ManifestException {
        List<String> segments = Arrays.asList(path.split("/", -1));
        check(n, !path.startsWith("/"), "path '" + path + "' is absolute (must be relative to the directory)");
        check(n, !segments.contains(".."), "path '" + path + "' has a .. segment");
        check(n, !segments.contains("."), "path '" + path + "' has a . segment");
        check(n, segments.stream().noneMatch(s -> s.startsWith(".")), "path '" + path + "' has a segment starting with a dot");
        check(n, PATH.matcher(path).matches(), "path '" + path
                + "' has an empty segment or a character outside A-Z a-z 0-9 . _ ~ - /");
        if (!file) {
            return;
        }
        Path target = root.resolve(path);
        boolean inside;
        try {
            Path real = target.toRealPath();
            inside = real.startsWith(root) && Files.isRegularFile(real) && Files.isReadable(real);
        } catch (IOException e) {
            inside = false;
        }
        check(n, inside, "missing file: " + path + " is not a readable regular file inside " + root);
    }

    /** What the records say together; then the [picture][size][format] table, filled by the fill rule. */
    private ImageManifest whole() throws ManifestException {
        if (formats.isEmpty()) {
            throw new ManifestException(file + ": no format line");
        }
        List<Entry> images = entries.stream().filter(Entry::image).toList();
        if (keyedLine == 0) {
            throw new ManifestException(file + ": no keyed line (keyed<TAB>max-age<TAB>max key length)");
        }
        if (images.isEmpty()) {
            throw new ManifestException(file + ": no image line");
        }
        if (defaultLine == 0) {
            throw new ManifestException(file + ": no default line (default<TAB>size)");
        }
        if (bucketsLine == 0) {
            throw new ManifestException(file + ": no buckets line (buckets<TAB>" + BUCKETS
                    + " picture numbers; made by `make images`)");
        }
        Map<String, Integer> formatIndex = new HashMap<>();
        for (int i = 0; i < formats.size(); i++) {
            formatIndex.put(formats.get(i).extension(), i);
        }
        for (Entry e : entries) {
            check(e.line(), formatIndex.containsKey(e.format()), "format " + e.format() + " has no format line");
        }
        TreeSet<Integer> foxSet = new TreeSet<>();
        TreeSet<Integer> sizeSet = new TreeSet<>();
        for (Entry e : images) {
            foxSet.add(e.fox());
            sizeSet.add(e.size());
        }
        int[] foxes = foxSet.stream().mapToInt(Integer::intValue).toArray();
        int[] sizes = sizeSet.stream().mapToInt(Integer::intValue).toArray();
        for (int f = 0; f < foxes.length; f++) {
            if (foxes[f] != f + 1) {
                throw new ManifestException(file + ": the image lines' pictures are not numbered 1.."
                        + foxes.length + " (no picture " + (f + 1) + ")");
            }
        }
        check(defaultLine, sizeSet.contains(defaultSize), "default size " + defaultSize
                + " is not a size of the ladder " + sizeSet);
        String[][][] table = new String[foxes.length][sizes.length][formats.size()];
        for (Entry e : images) {
            String[] cell = table[e.fox() - 1][Arrays.binarySearch(sizes, e.size())];
            int format = formatIndex.get(e.format());
            check(e.line(), cell[format] == null,
                    "a second image for picture " + e.fox() + " at " + e.size() + " px in " + e.format());
            cell[format] = e.path();
        }
        int[] largest = new int[foxes.length];
        for (int f = 0; f < foxes.length; f++) {
            int top = sizes.length - 1;
            while (top > 0 && Arrays.stream(table[f][top]).allMatch(p -> p == null)) {
                top--;
            }
            largest[f] = top;
            for (int s = 0; s < sizes.length; s++) {
                for (int x = 0; x < formats.size(); x++) {
                    if (s > top) {
                        table[f][s][x] = table[f][top][x];
                    } else if (table[f][s][x] == null) {
                        throw new ManifestException(file + ": picture " + foxes[f] + " has no " + sizes[s] + " px "
                                + formats.get(x).extension() + " image (every picture needs every format at every"
                                + " size of the ladder up to its largest, " + sizes[top] + " px)");
                    }
                }
            }
        }
        int[] bucketIndex = new int[BUCKETS];
        for (int b = 0; b < BUCKETS; b++) {
            check(bucketsLine, buckets[b] <= foxes.length, "bucket " + b + " names picture " + buckets[b]
                    + ", but the image lines have pictures 1.." + foxes.length);
            bucketIndex[b] = buckets[b] - 1;
        }
        return new ImageManifest(formats, maxAge, maxKey, defaultSize, foxes, sizes, table, largest, bucketIndex,
                variants);
    }

    private int number(int n, String text, String what, int min, int max) throws ManifestException {
        boolean ok = NUMBER.matcher(text).matches() && Integer.parseInt(text) >= min && Integer.parseInt(text) <= max;
        check(n, ok, what + " '" + text + "' is not a whole number from " + min + " to " + max);
        return Integer.parseInt(text);
    }

    private void expect(int n, String[] fields, boolean ok, String shape) throws ManifestException {
        check(n, ok, fields.length + " tab-separated fields, expected " + shape);
    }

    private void check(int n, boolean ok, String problem) throws ManifestException {
        if (!ok) {
            throw fault(n, problem);
        }
    }

    private ManifestException fault(int n, String problem) {
        return new ManifestException(file + " line " + n + ": " + problem);
    }
}
