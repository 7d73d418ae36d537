package dev.foxavatar;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Picks the image format from a request's {@code Accept} header: the first of the manifest's formats
 * whose Accept regex (case-insensitive) finds a match, else the last one (no regex). Each thread (an
 * Undertow IO thread) reuses its own Matchers, reset per request: nothing is allocated per request.
 * A browser sends the same Accept with every image, so each thread remembers its last header and
 * answer: a repeat costs one string comparison instead of the regexes.
 */
final class FormatChooser {
    private final Pattern[] patterns;
    private final ThreadLocal<PerThread> perThread;

    /** One IO thread's Matchers and its last header and answer. */
    private static final class PerThread {
        final Matcher[] matchers;
        String lastAccept;
        int lastChoice;

        PerThread(Matcher[] matchers) {
            this.matchers = matchers;
        }
    }

    /** @param acceptRegexes one per format, in order of preference; the last is not used */
    FormatChooser(List<String> acceptRegexes) {
        if (acceptRegexes.isEmpty()) {
            throw new IllegalArgumentException("no format");
        }
        patterns = acceptRegexes.subList(0, acceptRegexes.size() - 1).stream()
                .map(r -> Pattern.compile(r, Pattern.CASE_INSENSITIVE)).toArray(Pattern[]::new);
        perThread = ThreadLocal.withInitial(() -> {
            Matcher[] m = new Matcher[patterns.length];
            for (int i = 0; i < m.length; i++) {
                m[i] = patterns[i].matcher("");
            }
            return new PerThread(m);
        });
    }

    /** The format index for an {@code Accept} value ({@code null}: no header, the last format). */
    int choose(String accept) {
        if (accept == null) {
            return patterns.length;
        }
        PerThread mine = perThread.get();
        if (accept.equals(mine.lastAccept)) {
            return mine.lastChoice;
        }
        int choice = patterns.length;
        for (int i = 0; i < mine.matchers.length; i++) {
            Matcher m = mine.matchers[i].reset(accept);
            boolean found = m.find();
            m.reset(""); // the Matcher does not keep the header; lastAccept does, one per thread
            if (found) {
                choice = i;
                break;
            }
        }
        mine.lastAccept = accept;
        mine.lastChoice = choice;
        return choice;
    }
}
