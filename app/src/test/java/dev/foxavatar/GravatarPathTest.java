package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The Gravatar path: which strings under /avatar/ are a hash (a key), and which key. */
class GravatarPathTest {
    private static final String MD5 = "0bc83cb571cd1c50ba6f3e8a78ef1346";
    private static final String SHA256 = "a6e5d7f7a1a5e1b5f0e1e0d7a6c0e3f5b4a3d2c1e0f9a8b7c6d5e4f3a2b1c0d9";

    /** The key a path names (test side only), or null. */
    private static String key(String path) {
        long hash = GravatarPath.hash(path);
        return hash == AvatarQuery.NONE ? null : path.substring(AvatarQuery.keyStart(hash), AvatarQuery.keyEnd(hash));
    }

    @ParameterizedTest(name = "{0} is the key {1}")
    @CsvSource({
        "/avatar/" + MD5 + ", " + MD5,
        "/avatar/" + SHA256 + ", " + SHA256,
        "/avatar/0BC83CB571CD1C50BA6F3E8A78EF1346, 0BC83CB571CD1C50BA6F3E8A78EF1346",
        "/avatar/" + MD5 + ".png, " + MD5,
        "/avatar/" + MD5 + ".JPEG, " + MD5,
        "/avatar/" + SHA256 + ".gif, " + SHA256,
        "/avatar/" + MD5 + ".a, " + MD5,
        "/avatar/" + MD5 + ".abcde, " + MD5,
    })
    void a_hash_with_an_optional_extension_is_the_key_as_written(String path, String key) {
        assertEquals(key, key(path));
    }

    @ParameterizedTest(name = "{0} has no key")
    @ValueSource(strings = {
        "/avatar/",
        "/avatar/0bc83cb571cd1c50ba6f3e8a78ef134",                       // 31 digits
        "/avatar/0bc83cb571cd1c50ba6f3e8a78ef13460",                     // 33
        "/avatar/" + SHA256 + "0",                                        // 65
        "/avatar/6e5d7f7a1a5e1b5f0e1e0d7a6c0e3f5b4a3d2c1e0f9a8b7c6d5e4f3a2b1c0d9", // 63
        "/avatar/0bc83cb571cd1c50ba6f3e8a78ef134g",                      // not hex
        "/avatar/" + MD5 + "/",                                           // trailing slash
        "/avatar/" + MD5 + "/x.png",
        "/avatar/" + MD5 + ".",                                           // empty extension
        "/avatar/" + MD5 + ".abcdef",                                     // extension too long
        "/avatar/" + MD5 + ".png.png",
        "/avatar/" + MD5 + ".p-g",
        "/avatar/" + MD5 + "junk",                                        // hash followed by junk
        "/avatar/" + MD5 + " ",
        "/avatar/" + MD5 + "%00",
        "/avatar/" + MD5 + "\u0000",
        "/avatar/" + MD5 + ".png\u0000.txt",
        "/avatar/%30bc83cb571cd1c50ba6f3e8a78ef1346",                    // an encoding Undertow did not decode
        "/avatar/x" + MD5,
        "/avatar/.png",
        "/avatar/../" + MD5,                                              // traversal
        "/avatar/../../etc/passwd",
        "/avatar/..%2f..%2fetc%2fpasswd",
        "/avatar/" + MD5 + "/../../images/manifest.tsv",
        "/avatar//" + MD5,
        "/avatar/\u00e90bc83cb571cd1c50ba6f3e8a78ef1346",
    })
    void anything_else_under_avatar_is_no_key(String path) {
        assertEquals(null, key(path), path);
    }
}
