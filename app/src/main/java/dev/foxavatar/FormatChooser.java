package dev.foxavatar;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Picks the image format from a request's {@code Accept} header: the first of the manifest's formats
 * whose Accept regex (case-insensitive) finds a match, else the last one (no regex). Each thread (an
 * Undertow IO thread) reuses its own Matchers, reset per request: nothing is allocated per request.
 */
final class FormatChooser {
    private final Pattern[] patterns;
    private final ThreadLocal<Matcher[]> matchers;

    /** @param acceptRegexes one per format, in order of preference; the last is not used */
    FormatChooser(List<String> acceptRegexes) {
        if (acceptRegexes.isEmpty()) {
            throw new IllegalArgumentException("no format");
        }
        patterns = acceptRegexes.subList(0, acceptRegexes.size() - 1).stream()
                .map(r -> Pattern.compile(r, Pattern.CASE_INSENSITIVE)).toArray(Pattern[]::new);
        matchers = ThreadLocal.withInitial(() -> {
            Matcher[] m = new Matcher[patterns.length];
            for (int i = 0; i < m.length; i++) {
                m[i] = patterns[i].matcher("");
            }
            return m;
        });
    }

    /** The format index for an {@code Accept} value ({@code null}: no header, the last format). */
    int choose(String accept) {
        if (accept == null) {
            return patterns.length;
        }
        Matcher[] mine = matchers.get();
        for (int i = 0; i < mine.length; i++) {
            Matcher m = mine[i].reset(accept);
            boolean found = m.find();
            m.reset(""); // do not hold on to the request's header until the next request
            if (found) {
                return i;
            }
        }
        return patterns.length;
    }
}
