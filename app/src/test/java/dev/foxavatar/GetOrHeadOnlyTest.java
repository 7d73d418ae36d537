package dev.foxavatar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The method filter both listeners share, in a real server: GET and HEAD go on, any other method is refused
 * (with a refused handler of the router's own, counted: {@link RoutesTest}).
 */
class GetOrHeadOnlyTest extends ServerOverHttp {
    static final List<String> OTHER_METHODS = List.of("POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "BREW");
    private static final String NEXT = "HTTP/1.1 200 OK\nConnection: close\nContent-Length: 4\n\n";

    @Test
    void get_and_head_go_on_and_every_other_method_gets_405_with_allow_get_head_and_no_body() throws Exception {
        start(new GetOrHeadOnly(exchange -> exchange.getResponseSender().send("next")));
        assertEquals(NEXT + "next", answer("GET", "/"));
        assertEquals(NEXT, answer("HEAD", "/"));
        for (String method : OTHER_METHODS) {
            assertEquals("HTTP/1.1 405 Method Not Allowed\nAllow: GET, HEAD\nConnection: close\nContent-Length: 0\n\n",
                    answer(method, "/"), method);
        }
    }
}
