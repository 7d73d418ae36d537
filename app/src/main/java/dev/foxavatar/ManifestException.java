package dev.foxavatar;

/**
 * A fault of the image set ({@code <images>/manifest.tsv} or a file it lists), found by
 * {@link ManifestReader}: the message is one line naming the manifest file, the line at fault if there
 * is one, and the fault, in the words of the image set's Python owner, which makes the same checks.
 */
public final class ManifestException extends Exception {
    private static final long serialVersionUID = 1L;

    ManifestException(String message) {
        super(message);
    }
}
