package dev.foxavatar;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

import static dev.foxavatar.ImageSetContract.BUCKETS;
import static dev.foxavatar.ManifestReader.SETTING;
import static dev.foxavatar.ManifestReader.check;

/**
 * The image set's contract, {@code <images>/manifest.tsv} (manifest v2, made by {@code make images}):
 * the formats with their Accept rules, the keyed-answer settings, the default size, the path of every
 * picture ("fox") at every size of its ladder in every format, and the key buckets (which picture each
 * of the {@link ImageSetContract#BUCKETS} key buckets gets). A picture's sizes are a prefix of the set's ladder; asked for a size
 * above its largest, it answers its largest (the fill rule, applied here once: {@link #path}). Read
 * and checked once at start-up; any fault is one {@code --images} line naming it.
 */
public final class ImageManifest {

    /** A {@code format} line: extension, media type, Accept regex (empty for the last, the fallback). */
    public record Format(String extension, String mediaType, String acceptRegex) {
    }

    private final List<Format> formats;
    private final int keyedMaxAge;
    private final int maxKeyLength;
    private final int[] foxes;
    private final int[] sizes;
    private final String[][][] paths;
    private final int[] largest;
    private final int defaultSize;
    private final int[] buckets;

    private ImageManifest(ManifestReader.Read r, int[] foxes, int[] sizes, String[][][] paths, int[] largest, int[] buckets) {
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

    /** Reads and checks {@code directory/manifest.tsv} (the records: {@link ManifestReader}; together: here). */
    public static ImageManifest load(Path directory) throws SettingsException {
        return complete(ManifestReader.read(directory));
    }

    /**
     * Builds the [fox][size][format] table: every picture has every format at every size from the
     * smallest up to its own largest; the cells above are filled with its largest (the fill rule).
     */
    private static ImageManifest complete(ManifestReader.Read r) throws SettingsException {
        Path file = r.file;
        List<Format> formats = r.formats;
        List<ManifestReader.Entry> images = r.images;
        Map<String, Integer> formatIndex = new HashMap<>();
        for (int i = 0; i < formats.size(); i++) {
            formatIndex.put(formats.get(i).extension(), i);
        }
        TreeSet<Integer> foxSet = new TreeSet<>();
        TreeSet<Integer> sizeSet = new TreeSet<>();
        for (ManifestReader.Entry e : images) {
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
        for (ManifestReader.Entry e : images) {
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
