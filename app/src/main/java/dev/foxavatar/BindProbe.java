package dev.foxavatar;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Whether a listener's address can be bound, tried once at start before the server binds anything:
 * a port another process holds is reported as the setting that chose it, with its address.
 */
final class BindProbe {
    private BindProbe() {
    }

    /** Null when the address can be bound (it is released again at once), else one line saying why not. */
    static String problem(Settings.Listener listener) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(listener.address(), listener.port()));
            return null;
        } catch (IOException taken) {
            return "cannot listen on " + listener + ": " + taken.getMessage();
        }
    }
}
