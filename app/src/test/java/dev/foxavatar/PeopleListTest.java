package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The list of people as the sidecar reads it at start: checked against the set, found in any case. */
class PeopleListTest {
    static final String MD5 = "0bc83cb571cd1c50ba6f3e8a78ef1346";
    static final String SHA256 = "a6e5d7f7a1a5e1b5f0e1e0d7a6c0e3f5b4a3d2c1e0f9a8b7c6d5e4f3a2b1c0d9";

    @TempDir
    static Path dir;
    /** The sets a list is checked against: 21 pictures, and the same drawn (with identities). */
    static ImageManifest plain;
    static ImageManifest drawn;

    @BeforeAll
    static void sets() throws Exception {
        TestImages.create(dir, 21);
        plain = ManifestReader.read(dir);
        TestImages.addVariants(dir);
        drawn = ManifestReader.read(dir);
    }

    private PeopleList read(String text, boolean identities) throws Exception {
        return PeopleList.read(Files.writeString(dir.resolve("people.tsv"), text), "--people", identities ? drawn : plain);
    }

    @Test
    void a_listed_hash_is_found_in_any_case_and_an_unlisted_one_is_not() throws Exception {
        PeopleList people = read("# generated\n" + SHA256 + "\t7-v23\n" + MD5 + "\t3\n", true);
        String query = "u=" + MD5.toUpperCase() + "&s=64";
        int md5 = people.find(query, 2, 2 + MD5.length());
        assertEquals(2, people.picture(md5));
        assertEquals(-1, people.variant(md5), "picture 3 itself");
        int sha = people.find(SHA256, 0, SHA256.length());
        assertEquals(6, people.picture(sha));
        assertEquals(23, people.variant(sha));
        assertEquals(-1, people.find(MD5.replace('0', 'f'), 0, 32));
        assertEquals(-1, people.find(MD5, 0, 31));
        assertEquals(-1, PeopleList.NONE.find(MD5, 0, 32));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        MD5 + "\t22|people.tsv line 1: picture 22 is not in the set (pictures 1..21): make the list again for the set served (make people)",
        MD5 + "\t7-v80|people.tsv line 1: variant 80 is not below the set's 80: make the list again for the set served (make people)",
        MD5 + "\tRenard-7|people.tsv line 1: picture 'Renard-7' is not F or F-vV",
        MD5 + "\t7\\n" + MD5 + "\t8|people.tsv line 2: " + MD5 + " is listed twice",
        "0BC83CB571CD1C50BA6F3E8A78EF1346\t7|people.tsv line 1: expected a lower-case MD5 or SHA-256 hash, a tab and a picture",
        "alice@example.org\t7|people.tsv line 1: expected a lower-case MD5 or SHA-256 hash",
        MD5 + "\t7-v1|people.tsv line 1: picture '7-v1' names an identity, but the set has none (no variants record): make the list again for the set served (make people)",
    })
    void a_faulty_list_is_refused_naming_the_setting_and_the_line(String text, String fault) {
        // The fault about an identity is the plain set's; the others are checked against the drawn one.
        boolean drawnSet = !fault.contains("names an identity");
        SettingsException e = assertThrows(SettingsException.class, () -> read(text.replace("\\n", "\n"), drawnSet));
        assertEquals("--people: " + fault, e.getMessage().substring(0, Math.min(e.getMessage().length(), 10 + fault.length())));
    }
}
