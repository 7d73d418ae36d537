package dev.foxavatar;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Accept regexes' common subset: what Java (this sidecar), PCRE (Nginx's fallback map) and Python
 * (the image set's owner) read alike, as imageset/contract.py defines it (its tokens:
 * {@link ImageSetContract#ACCEPT_TOKEN}, {@link ImageSetContract#ACCEPT_CLASS_TOKEN}). The same walk as
 * the owner's {@code accept_regex_problem}, with the same words.
 */
final class AcceptRegex {
    private static final Pattern TOKEN = Pattern.compile(ImageSetContract.ACCEPT_TOKEN);
    private static final Pattern CLASS_TOKEN = Pattern.compile(ImageSetContract.ACCEPT_CLASS_TOKEN);

    private AcceptRegex() {
    }

    /** Why a regex is outside the subset, or null. */
    static String problem(String regex) {
        Deque<String> groups = new ArrayDeque<>();
        String last = "start"; // what came before: "atom" if a quantifier may follow it
        Matcher token = TOKEN.matcher(regex);
        Matcher member = CLASS_TOKEN.matcher(regex);
        int i = 0;
        while (i < regex.length()) {
            if (regex.charAt(i) == '[') {
                int j = regex.startsWith("[^", i) ? i + 2 : i + 1;
                int start = j;
                while (j < regex.length() && regex.charAt(j) != ']') {
                    if (regex.startsWith("-]", j) && j > start) {
                        j++;
                        continue;
                    }
                    if (!member.region(j, regex.length()).lookingAt()) {
                        return "'" + Character.toString(regex.codePointAt(j)) + "' at character " + (j + 1)
                                + " is not in the subset's character classes";
                    }
                    String lo = member.group();
                    int end = member.end();
                    if (lo.length() == 1 && regex.startsWith("-", end) && !regex.startsWith("-]", end)) {
                        boolean hi = member.region(end + 1, regex.length()).lookingAt();
                        if (!hi || member.group().length() != 1 || member.group().compareTo(lo) < 0) {
                            return "the range at character " + (j + 1) + " is not two characters in order";
                        }
                        j = member.end();
                    } else {
                        j = end;
                    }
                }
                if (j >= regex.length() || j == start) {
                    return "the class at character " + (i + 1) + " is empty or not closed";
                }
                i = j + 1;
                last = "atom";
                continue;
            }
            if (!token.region(i, regex.length()).lookingAt()) {
                return "'" + Character.toString(regex.codePointAt(i)) + "' at character " + (i + 1) + " is not in the subset";
            }
            String t = token.group();
            if (t.equals("(") && regex.startsWith("?", token.end())) {
                return "the group at character " + (i + 1) + " is of a kind outside the subset (only (, (?:, (?= and (?!)";
            }
            switch (t) {
                case "(", "(?:", "(?=", "(?!" -> {
                    groups.push(t);
                    last = "open";
                }
                case ")" -> {
                    if (groups.isEmpty()) {
                        return "the ) at character " + (i + 1) + " closes no group";
                    }
                    String kind = groups.pop();
                    last = kind.equals("(") || kind.equals("(?:") ? "atom" : "assertion";
                }
                case "|" -> last = "open";
                case "^", "$", "\\b", "\\B" -> last = "assertion";
                default -> {
                    if ("*+?{".indexOf(t.charAt(0)) >= 0) {
                        if (!last.equals("atom")) {
                            return "the quantifier at character " + (i + 1) + " follows nothing it can repeat";
                        }
                        String[] bounds = t.replaceAll("[{}?]", "").split(",", -1);
                        if (bounds.length == 2 && !bounds[1].isEmpty()
                                && Integer.parseInt(bounds[0]) > Integer.parseInt(bounds[1])) {
                            return "the quantifier at character " + (i + 1) + " has its bounds in the wrong order";
                        }
                        last = "quantifier";
                    } else {
                        last = "atom";
                    }
                }
            }
            i = token.end();
        }
        return groups.isEmpty() ? null : groups.size() + " group(s) not closed";
    }
}
