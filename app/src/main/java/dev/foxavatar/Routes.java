package dev.foxavatar;

import io.undertow.server.HttpHandler;

/**
 * The two listeners' URL spaces, chained once at start-up from small handlers (nothing is decided twice
 * per request, nothing allocated). The avatar port:
 *
 * <pre>
 * /            PrivateErrors → GetOrHeadOnly → AvatarRedirectHandler     (302, counted by the redirect)
 *                                            ↘ 405, counted "random"
 * /avatar/...  PrivateErrors → GetOrHeadOnly → GravatarHandler           (302, counted by the redirect)
 *                                            ↘ 405, counted "gravatar"
 * /healthz     PrivateErrors → CountedAnswers "health" → GetOrHeadOnly → HealthHandler (200) or 405
 * other paths  PrivateErrors → CountedAnswers "other" → 404, whatever the method
 * </pre>
 *
 * {@link PrivateErrors} on each path answers a handler that throws with a {@code 500}, counted under the
 * path's route, and logs the path it serves, never the request's. The metrics port: {@code /metrics}
 * behind the same method filter, {@code 404} for other paths, nothing counted.
 */
final class Routes {
    static final String AVATAR_PATH = "/";
    static final String HEALTH_PATH = "/healthz";
    static final String METRICS_PATH = "/metrics";

    private Routes() {
    }

    /**
     * The avatar port for an image set: one redirect table behind {@code /} and {@code /avatar/}, with a list
     * of people and Gravatar's defaults on or off ({@link AvatarRedirectHandler}), counted in {@code metrics}.
     */
    static HttpHandler avatarPort(ImageManifest images, PeopleList people, boolean gravatarDefaults,
            RequestMetrics metrics) {
        AvatarRedirectHandler avatar = new AvatarRedirectHandler(images, people, gravatarDefaults, metrics);
        return avatarPort(avatar, new GravatarHandler(avatar), new HealthHandler(), metrics);
    }

    /**
     * The avatar port with these handlers on its paths. The redirects ({@code avatar}, {@code gravatar})
     * count their own answers in {@code metrics}; every other answer is counted here.
     */
    static HttpHandler avatarPort(HttpHandler avatar, HttpHandler gravatar, HttpHandler health, RequestMetrics metrics) {
        HttpHandler refusedOnAvatar = new CountedAnswers(metrics, RequestMetrics.RANDOM, GetOrHeadOnly.METHOD_NOT_ALLOWED);
        HttpHandler refusedOnGravatar = new CountedAnswers(metrics, RequestMetrics.GRAVATAR, GetOrHeadOnly.METHOD_NOT_ALLOWED);
        return new Paths(
                guarded("another path", metrics, RequestMetrics.OTHER,
                        new CountedAnswers(metrics, RequestMetrics.OTHER, EmptyAnswer.NOT_FOUND)),
                Paths.exact(AVATAR_PATH, guarded(AVATAR_PATH, metrics, RequestMetrics.RANDOM,
                        new GetOrHeadOnly(avatar, refusedOnAvatar))),
                Paths.prefix(GravatarPath.PREFIX, guarded(GravatarPath.PREFIX, metrics, RequestMetrics.GRAVATAR,
                        new GetOrHeadOnly(gravatar, refusedOnGravatar))),
                Paths.exact(HEALTH_PATH, guarded(HEALTH_PATH, metrics, RequestMetrics.HEALTH,
                        new CountedAnswers(metrics, RequestMetrics.HEALTH, new GetOrHeadOnly(health)))));
    }

    /** The metrics port: {@code GET}/{@code HEAD /metrics}, {@code 404} for other paths, {@code 405} for other methods. */
    static HttpHandler metricsPort(RequestMetrics metrics) {
        return new Paths(EmptyAnswer.NOT_FOUND, Paths.exact(METRICS_PATH, new GetOrHeadOnly(new MetricsHandler(metrics))));
    }

    /** {@code next}, a failure of which is logged as {@code path} and answered {@code 500}, counted under {@code route}. */
    private static HttpHandler guarded(String path, RequestMetrics metrics, int route, HttpHandler next) {
        return new PrivateErrors(path, next, new CountedAnswers(metrics, route, EmptyAnswer.INTERNAL_SERVER_ERROR));
    }
}
