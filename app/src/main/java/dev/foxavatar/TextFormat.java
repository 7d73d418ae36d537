package dev.foxavatar;

/**
 * Prometheus text format 0.0.4, the little of it {@code /metrics} needs: a family's HELP and TYPE lines,
 * escaped label values, and numbers as Prometheus reads them. Appends to a StringBuilder that the scrape
 * owns; nothing here runs in the request path.
 */
final class TextFormat {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private TextFormat() {
    }

    /** {@code # HELP name help} and {@code # TYPE name type}: once per family, before its samples. */
    static StringBuilder family(StringBuilder out, String name, String type, String help) {
        return out.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name)
                .append(' ').append(type).append('\n');
    }

    /** A label value with {@code \}, {@code "} and newlines escaped. */
    static String escape(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    static void sample(StringBuilder out, String name, double value) {
        number(out.append(name).append(' '), value).append('\n');
    }

    static void sample(StringBuilder out, String name, String label, String value, double v) {
        number(out.append(name).append('{').append(label).append("=\"").append(escape(value)).append("\"} "), v)
                .append('\n');
    }

    /** Whole numbers without a fraction (counters read better), others as Java prints doubles. */
    static StringBuilder number(StringBuilder out, double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return out.append((long) value);
        }
        return out.append(Double.isInfinite(value) ? (value > 0 ? "+Inf" : "-Inf") : Double.toString(value));
    }
}
