package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.undertow.server.HttpHandler;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The router of both listeners, in a real server: which handler each request path reaches. */
class PathsTest extends ServerOverHttp {
    /** A handler that answers its name. */
    private static HttpHandler named(String name) {
        return exchange -> exchange.getResponseSender().send(name);
    }

    private void assertReached(Map<String, String> handlerByTarget) throws Exception {
        for (Map.Entry<String, String> expected : handlerByTarget.entrySet()) {
            String answer = answer("GET", expected.getKey());
            assertEquals(expected.getValue(), answer.substring(answer.indexOf("\n\n") + 2), expected.getKey());
        }
    }

    @Test
    void an_exact_path_is_that_path_alone_whatever_the_query() throws Exception {
        start(new Paths(named("other"), Paths.exact("/healthz", named("health")), Paths.exact("/", named("root"))));
        assertReached(Map.of("/healthz", "health", "/healthz?x=1", "health", "/", "root", "/?u=abc", "root",
                "/healthz/", "other", "/HEALTHZ", "other", "/healthzz", "other", "//", "other", "/x/", "other"));
    }

    @Test
    void a_prefix_takes_every_path_that_starts_with_it() throws Exception {
        start(new Paths(named("other"), Paths.prefix("/avatar/", named("gravatar"))));
        assertReached(Map.of("/avatar/", "gravatar", "/avatar/abc.png", "gravatar", "/avatar/a/b/../c", "gravatar",
                "/avatar", "other", "/Avatar/abc", "other", "/x/avatar/abc", "other"));
    }

    @Test
    void the_first_route_that_matches_answers() throws Exception {
        start(new Paths(named("other"), Paths.exact("/a/b", named("exact")), Paths.prefix("/a/", named("prefix"))));
        assertReached(Map.of("/a/b", "exact", "/a/bc", "prefix", "/a/", "prefix", "/a", "other"));
    }
}
