package dev.foxavatar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The image set's identity for {@code fox_avatar_image_set_info}: manifest.tsv's SHA-256, first 12 hex digits. */
final class ManifestDigest {
    static final int HEX_DIGITS = 12;

    private ManifestDigest() {
    }

    static String of(Path imagesDirectory) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256")
                    .digest(Files.readAllBytes(imagesDirectory.resolve(ManifestReader.FILE)));
            return HexFormat.of().formatHex(sha, 0, HEX_DIGITS / 2);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
