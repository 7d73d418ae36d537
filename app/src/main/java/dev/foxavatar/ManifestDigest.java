package dev.foxavatar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The image set's identity for {@code fox_avatar_image_set_info}: manifest.tsv's SHA-256, first 12 hex digits. */
final class ManifestDigest {
    static final int HEX_DIGITS = 12;

    private ManifestDigest() {
    }

    static String of(Path imagesDirectory) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256")
                    .digest(Files.readAllBytes(imagesDirectory.resolve(ManifestReader.FILE)));
            StringBuilder hex = new StringBuilder(HEX_DIGITS);
            for (int i = 0; i < HEX_DIGITS / 2; i++) {
                hex.append(Character.forDigit((sha[i] >> 4) & 0xf, 16)).append(Character.forDigit(sha[i] & 0xf, 16));
            }
            return hex.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
