package dev.foxavatar;

/** A setting with a wrong value: the message is one line that names the setting. */
public final class SettingsException extends Exception {
    private static final long serialVersionUID = 1L;

    public SettingsException(String setting, String problem) {
        super(setting + ": " + problem);
    }
}
