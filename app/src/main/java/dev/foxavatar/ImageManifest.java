package dev.foxavatar;

import java.util.List;

/**
 * The image set as the sidecar answers from it, made once at start by {@link ManifestReader#read} after
 * every check of {@code <images>/manifest.tsv}, and immutable (the arrays are copied in and out;
 * {@link #path} reads them without copying). A picture's sizes are a prefix
 * of the ladder; asked for a size above its largest, it answers its largest (the fill rule, applied once
 * by the reader: {@link #path}).
 *
 * @param formats in order of preference; the last is served when Accept lists none of the others
 * @param keyedMaxAge {@code Cache-Control: max-age} of a keyed answer, seconds
 * @param maxKeyLength the longest key accepted, in characters
 * @param defaultSize the size (px) answered when no valid size is asked: one of {@code sizes}
 * @param foxes the picture numbers, ascending: 1..N, index i is picture i + 1
 * @param sizes the size ladder, ascending (px)
 * @param paths the [picture index][size index][format index] table of paths, the fill rule applied
 * @param largest the size index of each picture's largest image
 * @param buckets the picture index (0-based) of each of the {@link KeyBuckets#BUCKETS} key buckets
 * @param variants the keyed identities of a drawn set, or null
 */
record ImageManifest(List<Format> formats, int keyedMaxAge, int maxKeyLength, int defaultSize, int[] foxes,
        int[] sizes, String[][][] paths, int[] largest, int[] buckets, Variants variants) {

    public record Format(String extension, String mediaType) {
    }

    /**
     * The {@code variants} record: each picture's keyed identities, {@code directory/STEM.svg} and
     * {@code directory/STEM-SIZE.png} for each of {@code sizes}, STEM {@code prefix-FOX-vV} (V below
     * {@code count}) or {@link #MP}, {@link #BLANK} (Gravatar's d=mp and d=blank); the SVG for a request
     * whose Accept lists {@link #SVG}.
     */
    record Variants(String directory, String prefix, int count, int[] sizes) {
        static final String MP = "mp";
        static final String BLANK = "blank";
        static final String SVG = "image/svg+xml";

        Variants {
            sizes = sizes.clone();
        }

        @Override
        public int[] sizes() {
            return sizes.clone();
        }

        String stem(int fox, int variant) {
            return prefix + "-" + fox + "-v" + variant;
        }

        /** The path of a stem's SVG ({@code size} 0) or of its PNG of {@code size} px. */
        String path(String stem, int size) {
            return directory + "/" + stem + (size == 0 ? ".svg" : "-" + size + ".png");
        }
    }

    ImageManifest {
        formats = List.copyOf(formats);
        foxes = foxes.clone();
        sizes = sizes.clone();
        paths = copy(paths);
        largest = largest.clone();
        buckets = buckets.clone();
    }

    private static String[][][] copy(String[][][] table) {
        String[][][] copy = new String[table.length][][];
        for (int f = 0; f < table.length; f++) {
            copy[f] = new String[table[f].length][];
            for (int s = 0; s < table[f].length; s++) {
                copy[f][s] = table[f][s].clone();
            }
        }
        return copy;
    }

    @Override
    public int[] foxes() {
        return foxes.clone();
    }

    @Override
    public int[] sizes() {
        return sizes.clone();
    }

    /**
     * The path (relative to the images directory) of picture index f, size index s, format index x; for
     * a size above the picture's largest, its largest (the fill rule).
     */
    public String path(int fox, int size, int format) {
        return paths[fox][size][format];
    }

    @Override
    public String[][][] paths() {
        return copy(paths);
    }

    @Override
    public int[] largest() {
        return largest.clone();
    }

    @Override
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
