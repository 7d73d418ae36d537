"""Debian 12's Prometheus scrapes the edge with the operator's file (its addresses moved to the
loopback ports) and the real rules: every target up, every alert loaded and quiet, and its own UI
graphs the stack under a short wrk load in headless Chromium."""
import os
import re
import subprocess
import threading
import time
import urllib.parse
from collections import Counter

from monitoring.conftest import CONFIG, RULES, WRK, need, seconds, wait_until



def alerts_of_the_rules_file():
    return set(re.findall(r"^\s+- alert: (\w+)$", RULES.read_text(), re.M))


def test_the_operators_file_passes_promtool_check_with_the_rules_it_names(promtool):
    r = subprocess.run([promtool, "check", "config", str(CONFIG)], capture_output=True, text=True)
    rules_found = f"SUCCESS: {len(alerts_of_the_rules_file())} rules found"
    assert r.returncode == 0 and rules_found in r.stdout, r.stdout + r.stderr


def test_every_target_is_up(prometheus):
    up = prometheus.query("up")
    assert Counter(dict(labels)["job"] for labels in up) == {
        "fox-avatar-app": 1, "fox-avatar-nginx": 1, "fox-avatar-mtail": 1, "fox-avatar-probe": 2}, up

    def healthy():   # waited for: a scrape slower than 1 s on a busy machine counts as down until the next
        probes = {dict(labels)["module"]: v
                  for labels, v in prometheus.query('probe_success{job="fox-avatar-probe"}').items()}
        return (set(prometheus.query("up").values()) == {1.0}
                and list(prometheus.query('nginx_up{job="fox-avatar-nginx"}').values()) == [1.0]
                and probes == {"fox_avatar_redirect": 1.0, "fox_avatar_image": 1.0})
    assert wait_until(healthy, 10), (prometheus.query("up"), prometheus.query("nginx_up"),
                                     prometheus.query("probe_success"))


def test_every_alert_of_the_rules_file_is_loaded_and_evaluated(prometheus):
    alerts = alerts_of_the_rules_file()
    since = time.time()

    def evaluated():
        groups = prometheus.api("rules", type="alert")["groups"]
        rules = {r["name"]: r for g in groups for r in g["rules"]}
        return rules if groups and all(seconds(g["lastEvaluation"]) > since for g in groups) else None
    rules = wait_until(evaluated, 10)
    assert rules and set(rules) == alerts, "not every alert evaluated within 10 s"
    for name, rule in rules.items():
        assert rule["health"] == "ok", (name, rule.get("lastError"))

    # With every part up nothing is down (absent(up{job=...}) is empty only when the jobs are named as
    # the rules select them; the earlier tests' fallback answers may have the fallback alert pending).
    # Waited for: a slow scrape may count as down until the next.
    def quiet():
        states = {r["name"]: r["state"] for g in prometheus.api("rules", type="alert")["groups"] for r in g["rules"]}
        return all(states[name] == "inactive" for name in ("FoxAvatarSidecarDown", "FoxAvatarExporterDown"))
    assert wait_until(quiet, 10), prometheus.api("rules", type="alert")


# One wrk (keep-alive) per kind of avatar URL: (path, Accept, connections). wrk follows no 302: every
# request is one answer of the sidecar, counted under its route.
LOAD = {
    "random": ("/?s=64", "image/png", 2),
    "keyed": ("/?s=64&u=ada%40example.org", "image/avif,image/webp,image/png,*/*;q=0.8", 2),
    "gravatar": ("/avatar/0123456789abcdef0123456789abcdef?s=80", "image/webp,image/png,*/*;q=0.8", 1),
}


def run_load(edge, seconds=3):
    """Each kind of LOAD at once, a wrk against the stack's HTTPS port for seconds."""
    def one(kind):
        path, accept, conns = LOAD[kind]
        results[kind] = subprocess.run([WRK, "-t1", f"-c{conns}", f"-d{seconds}s", "--timeout", "5s", "-H",
                                        f"Accept: {accept}", f"https://127.0.0.1:{edge.https_port}{path}"],
                                       capture_output=True, text=True, timeout=seconds + 60)
    results, threads = {}, [threading.Thread(target=one, args=(kind,)) for kind in LOAD]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for kind, out in results.items():
        assert out.returncode == 0, f"wrk ({kind}): {out.stdout[-300:]} {out.stderr[-300:]}"


# The graph page's panels: the sidecar's answers by route, and its redirects by image format.
PANELS = ['sum by (route) (rate(fox_avatar_requests_total{job="fox-avatar-app"}[5s]))',
          'sum by (format) (rate(fox_avatar_requests_total{job="fox-avatar-app",status="302"}[5s]))']


def graph_url(prometheus, range_input):
    params = {f"g{i}.{k}": v for i, expr in enumerate(PANELS) for k, v in
              (("expr", expr), ("tab", "0"), ("range_input", range_input))}
    return f"{prometheus.url}/graph?{urllib.parse.urlencode(params)}"


def rendered_panels(browser):
    """Each panel of the page once drawn: its error text, legend labels and number of drawn lines."""
    return browser.execute_script("""
        return Array.from(document.querySelectorAll('.graph_wrapper')).map(w => ({
          error: w.querySelector('.error').offsetParent ? w.querySelector('.error').textContent : '',
          legend: Array.from(w.querySelectorAll('.legend .line .label')).map(l => l.textContent),
          lines: w.querySelectorAll('.graph_area svg path').length}));""")


def test_prometheus_graphs_the_stack_under_load_in_a_browser(edge, prometheus, browser):
    need(WRK)
    run_load(edge)
    loaded = time.time()

    def scraped_since():     # a scrape after the load's last second
        r = prometheus.api("query", query='max(timestamp(fox_avatar_requests_total{job="fox-avatar-app"}))')["result"]
        return r and float(r[0]["value"][1]) > loaded
    assert wait_until(scraped_since, 20), "no scrape of the sidecar within 20 s after the load"
    browser.get(graph_url(prometheus, "1m"))

    panels = wait_until(lambda: len(p := rendered_panels(browser)) == len(PANELS)
                        and all(x["error"] or x["lines"] for x in p) and p, 20)
    assert panels, f"the graphs were not drawn within 20 s: {rendered_panels(browser)}"
    by_route, by_format = panels
    for panel in panels:
        assert not panel["error"] and panel["lines"] >= len(panel["legend"]) > 0, panel
    for route in LOAD:
        assert f'{{route="{route}"}}' in by_route["legend"], by_route
    assert {'{format="avif"}', '{format="webp"}', '{format="png"}'} <= set(by_format["legend"]), by_format
    # The curves are the load: the query the page ran had each loaded route above zero in the window.
    end = time.time()
    data = prometheus.api("query_range", query=PANELS[0], start=end - 60, end=end, step=1)["result"]
    peaks = {r["metric"]["route"]: max(float(v) for _, v in r["values"]) for r in data}
    for route in LOAD:
        assert peaks.get(route, 0) > 0, peaks

