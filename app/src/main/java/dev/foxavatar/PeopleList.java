package dev.foxavatar;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The list of people ({@code --people}: people.tsv, made by {@code python3 -m imageset people}): the
 * picture each listed MD5 or SHA-256 hash gets, a picture of the set or one of its identities. Read and
 * checked against the set once at start, as imageset/people.py's {@code read_people} checks it; a lookup
 * is a binary search over the sorted hashes that compares the key's characters in place and
 * case-insensitively (an app may send upper-case hex): nothing is allocated.
 */
final class PeopleList {
    static final PeopleList NONE = new PeopleList(new TreeMap<>());
    private static final Pattern HASH = Pattern.compile("[0-9a-f]{32}|[0-9a-f]{64}");
    private static final Pattern PICTURE = Pattern.compile("([1-9][0-9]{0,3})(?:-v([0-9]{1,4}))?");
    /** Ends a fault of the set: a list naming what the set lacks was made for another set. */
    private static final String MADE_FOR_ANOTHER_SET = ": make the list again for the set served (make people)";

    /** Sorted by length, then text. */
    private final String[] hashes;
    /** The picture index (0-based) and variant (-1: the picture itself) of each hash. */
    private final int[] pictures;
    private final int[] variants;

    /** @param rows hash (in {@link #find}'s order) to picture index and variant */
    private PeopleList(TreeMap<String, int[]> rows) {
        hashes = rows.keySet().toArray(String[]::new);
        pictures = rows.values().stream().mapToInt(r -> r[0]).toArray();
        variants = rows.values().stream().mapToInt(r -> r[1]).toArray();
    }

    /** The list in {@code file} ({@code null}: {@link #NONE}) checked against the set; faults name {@code setting}. */
    static PeopleList read(Path file, String setting, ImageManifest set) throws SettingsException {
        if (file == null) {
            return NONE;
        }
        String[] lines;
        try {
            lines = Files.readString(file, StandardCharsets.UTF_8).split("\n", -1);
        } catch (IOException e) {
            throw new SettingsException(setting, file + ": cannot read: " + e.getMessage());
        }
        TreeMap<String, int[]> rows = new TreeMap<>(Comparator.comparing(String::length).thenComparing(h -> h));
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isEmpty() || lines[i].startsWith("#")) {
                continue;
            }
            String[] f = lines[i].split("\t", -1);
            Matcher p = PICTURE.matcher(f.length == 2 ? f[1] : "");
            String problem = problem(f, p, rows, set);
            if (problem != null) {
                throw new SettingsException(setting, file.getFileName() + " line " + (i + 1) + ": " + problem);
            }
            int variant = p.group(2) == null ? -1 : Integer.parseInt(p.group(2));
            rows.put(f[0], new int[] {Integer.parseInt(p.group(1)) - 1, variant});
        }
        return new PeopleList(rows);
    }

    /** Why a line's fields are wrong (in imageset/people.py's words), or null; {@code p} matched the picture. */
    private static String problem(String[] f, Matcher p, TreeMap<String, int[]> rows, ImageManifest set) {
        if (f.length != 2 || !HASH.matcher(f[0]).matches()) {
            return "expected a lower-case MD5 or SHA-256 hash, a tab and a picture";
        }
        if (rows.containsKey(f[0])) {
            return f[0] + " is listed twice";
        }
        if (!p.matches()) {
            return "picture '" + f[1] + "' is not F or F-vV";
        }
        if (Integer.parseInt(p.group(1)) > set.foxes().length) {
            return "picture " + p.group(1) + " is not in the set (pictures 1.." + set.foxes().length + ")" + MADE_FOR_ANOTHER_SET;
        }
        if (p.group(2) != null && set.variants() == null) {
            return "picture '" + f[1] + "' names an identity, but the set has none (no variants record)" + MADE_FOR_ANOTHER_SET;
        }
        if (p.group(2) != null && Integer.parseInt(p.group(2)) >= set.variants().count()) {
            return "variant " + p.group(2) + " is not below the set's " + set.variants().count() + MADE_FOR_ANOTHER_SET;
        }
        return null;
    }

    int size() {
        return hashes.length;
    }

    /** The index of the hash {@code s.charAt(from) .. s.charAt(to - 1)} (any case), or -1. */
    int find(String s, int from, int to) {
        int lo = 0;
        int hi = hashes.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compare(hashes[mid], s, from, to);
            if (c == 0) {
                return mid;
            }
            if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return -1;
    }

    private static int compare(String hash, String s, int from, int to) {
        if (hash.length() != to - from) {
            return hash.length() - (to - from);
        }
        for (int i = 0; i < hash.length(); i++) {
            char c = s.charAt(from + i);
            int d = hash.charAt(i) - (c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }

    /** The picture index (0-based) of listed hash i. */
    int picture(int i) {
        return pictures[i];
    }

    /** The variant of listed hash i, or -1: the picture itself. */
    int variant(int i) {
        return variants[i];
    }
}
