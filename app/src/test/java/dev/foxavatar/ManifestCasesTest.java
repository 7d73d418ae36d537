package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The manifest table ({@code tests/images/manifest-cases.txt}) through the sidecar's reader: every case
 * made as a real set in a temporary directory, then read as the sidecar reads it at start. A valid set
 * reads as the table says; a faulty one is refused with one line holding the table's text (the fault and
 * its line). The image set's Python owner runs the same table (tests/images/test_manifest_cases.py):
 * the two readers give the same verdict.
 */
class ManifestCasesTest {
    static final Path TABLE = Path.of(System.getProperty("avatar.repo.images", "../images"))
            .resolveSibling("tests/images/manifest-cases.txt");
    private static final Pattern REPEAT = Pattern.compile("\\{(\\d+)\\*(\\d+)\\}");

    @TempDir
    Path tmp;

    /** One case of the table. */
    record Case(String name, String expect, List<String> files, List<String[]> links,
            byte[] manifest) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() throws IOException {
        List<Case> out = new ArrayList<>();
        List<String> lines = Arrays.asList(Files.readString(TABLE, StandardCharsets.UTF_8).split("\n", -1));
        int i = 0;
        while (i < lines.size()) {
            if (!lines.get(i).startsWith("== ")) {
                i++;
                continue;
            }
            String name = lines.get(i++).substring(3);
            String expect = null;
            List<String> files = new ArrayList<>();
            List<String[]> links = new ArrayList<>();
            List<Object> parts = new ArrayList<>();
            String eol = "\n";
            for (; i < lines.size() && !lines.get(i).startsWith("== "); i++) {
                String line = lines.get(i);
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                } else if (line.startsWith("expect ")) {
                    expect = line.substring("expect ".length());
                } else if (line.startsWith("file ")) {
                    files.add(line.substring("file ".length()));
                } else if (line.startsWith("files ")) {
                    files.addAll(List.of(line.substring("files ".length()).split(" ")));
                } else if (line.startsWith("link ")) {
                    links.add(line.substring("link ".length()).split(" "));
                } else if (line.equals("eol crlf")) {
                    eol = "\r\n";
                } else if (line.equals("|") || line.startsWith("| ")) {
                    Matcher m = REPEAT.matcher(line.substring(Math.min(2, line.length())).replace("→", "\t"));
                    parts.add(m.replaceAll(r -> String.join(" ",
                            java.util.Collections.nCopies(Integer.parseInt(r.group(2)), r.group(1)))));
                } else if (line.startsWith("% ")) {
                    parts.add(HexFormat.ofDelimiter(" ").parseHex(line.substring(2)));
                } else {
                    throw new AssertionError(TABLE + ": cannot read " + line);
                }
            }
            ByteArrayOutputStream manifest = new ByteArrayOutputStream();
            for (Object part : parts) {
                manifest.writeBytes(part instanceof String s ? (s + eol).getBytes(StandardCharsets.UTF_8) : (byte[]) part);
            }
            out.add(new Case(name, expect, files, links, manifest.toByteArray()));
        }
        return out;
    }

    /** The case's set in tmp/set, beside a file tmp/outside.png that no set may list. */
    private Path makeSet(Case c) throws IOException {
        Files.writeString(tmp.resolve("outside.png"), "outside");
        Path dir = Files.createDirectory(tmp.resolve("set"));
        for (String path : c.files()) {
            Files.createDirectories(dir.resolve(path).getParent());
            Files.writeString(dir.resolve(path), path);
        }
        for (String[] link : c.links()) {
            Files.createDirectories(dir.resolve(link[0]).getParent());
            Files.createSymbolicLink(dir.resolve(link[0]), Path.of(link[1]));
        }
        Files.write(dir.resolve(ManifestReader.FILE), c.manifest());
        return dir;
    }

    /** What a valid set read as, in the table's words. */
    static String summary(ImageManifest m) {
        return m.foxes().length + " pictures; ladder "
                + IntStream.of(m.sizes()).mapToObj(String::valueOf).collect(Collectors.joining(" "))
                + "; formats " + m.formats().stream().map(ImageManifest.Format::extension).collect(Collectors.joining(" "))
                + "; keyed " + m.keyedMaxAge() + " " + m.maxKeyLength() + "; default " + m.defaultSize()
                + (m.variants() == null ? "" : "; variants " + m.variants().directory() + " " + m.variants().prefix() + " "
                        + m.variants().count() + " " + IntStream.of(m.variants().sizes()).mapToObj(String::valueOf)
                                .collect(Collectors.joining(" ")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void the_sidecar_gives_the_tables_verdict(Case c) throws Exception {
        Path dir = makeSet(c);
        if (c.expect().startsWith("ok ")) {
            assertEquals(c.expect().substring("ok ".length()), summary(ManifestReader.read(dir)));
            return;
        }
        String want = c.expect().substring("refused ".length());
        try {
            ImageManifest m = ManifestReader.read(dir);
            fail("accepted: " + summary(m));
        } catch (ManifestException refused) {
            String message = refused.getMessage();
            assertFalse(message.contains("\n"), "one line: " + message);
            assertTrue(message.contains(want), message);
        }
    }
}
