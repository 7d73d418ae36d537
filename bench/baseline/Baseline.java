// Baseline 3 of the benchmark: the original design of the random avatar, written with the JDK's
// built-in com.sun.net.httpserver and its default executor (handlers run on the dispatcher thread).
// Same behaviour as the sidecar for GET /: 302 to a random image of the images directory (the files
// whose whole name matches NAME_RULE, the legacy names of images/manifest.tsv, which the harness passes),
// empty body, Cache-Control: no-store. Anything else: 404.
// The harness compiles it with javac into a temp dir and runs it with -Xmx8m -Xss256k
// (single-file source launch would put the compiler into the measured memory and start-up).
// Usage: java -Xmx8m -Xss256k -cp DIR Baseline IMAGES_DIR PORT BIND NAME_RULE
import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

public class Baseline {
    public static void main(String[] args) throws Exception {
        File[] files = new File(args[0]).listFiles(f -> f.isFile() && f.getName().matches(args[3]));
        if (files == null || files.length == 0) {
            System.err.println("images: no images in " + args[0]);
            System.exit(2);
        }
        String[] locations = Arrays.stream(files).map(f -> "/" + f.getName()).sorted().toArray(String[]::new);
        String bind = args[2];
        HttpServer server = HttpServer.create(new InetSocketAddress(bind, Integer.parseInt(args[1])), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                if ("/".equals(exchange.getRequestURI().getPath())) {
                    exchange.getResponseHeaders().set("Location",
                            locations[ThreadLocalRandom.current().nextInt(locations.length)]);
                    exchange.getResponseHeaders().set("Cache-Control", "no-store");
                    exchange.sendResponseHeaders(302, -1);
                } else {
                    exchange.sendResponseHeaders(404, -1);
                }
            }
        });
        server.start(); // no executor set: the default one, as in the original
    }
}
