"""Prometheus really scrapes the stack: Debian 12's Prometheus, run with the operator's file
(monitoring/prometheus/prometheus.yml, its addresses moved to the loopback ports) and the real rules
file, scrapes the sidecar's /metrics listener, nginx-exporter, mtail and blackbox_exporter beside the
loopback stack; it sees every target up, loads every alert, counts exactly the requests sent, and its
own UI graphs the stack under a wrk load in headless Chromium.

FOX_AVATAR_SCREENSHOT=PATH makes the load 30 s long, in steps, and saves the graph page as PNG
(docs/prometheus.png in docs/monitoring.md is made so: FOX_AVATAR_SCREENSHOT=$PWD/docs/prometheus.png
CI=true tests/monitoring/run.sh -k browser, then optipng -o5 docs/prometheus.png)."""
import os
import re
import subprocess
import time
import urllib.parse
import urllib.request
from collections import Counter

import yaml

from monitoring.conftest import need
from monitoring.edge import RULES, parse_metrics, wait_until
from monitoring.prometheus_server import CONFIG, JOBS, LOAD, WRK, rfc3339_seconds, run_load
from stack.client import request

SCREENSHOT = os.environ.get("FOX_AVATAR_SCREENSHOT")


def alerts_of_the_rules_file():
    return set(re.findall(r"^\s+- alert: (\w+)$", RULES.read_text(), re.M))


def test_the_operators_file_passes_promtool_check_with_the_rules_it_names(promtool):
    r = subprocess.run([promtool, "check", "config", str(CONFIG)], capture_output=True, text=True)
    rules_found = f"SUCCESS: {len(alerts_of_the_rules_file())} rules found"
    assert r.returncode == 0 and rules_found in r.stdout, r.stdout + r.stderr


def test_its_jobs_are_the_ones_the_rules_select():
    jobs = [job["job_name"] for job in yaml.safe_load(CONFIG.read_text())["scrape_configs"]]
    assert sorted(jobs) == sorted(JOBS)
    selectors = re.findall(r'job(=~|=)"([^"]+)"', RULES.read_text())

    def selects(op, value, job):
        return re.fullmatch(value, job) if op == "=~" else value == job
    for op, value in selectors:
        assert any(selects(op, value, job) for job in jobs), f'job{op}"{value}" selects no job of {CONFIG.name}'
    for job in jobs:
        assert any(selects(op, value, job) for op, value in selectors), f"no rule reads {job}"


def test_every_target_is_up(prometheus):
    up = prometheus.query("up")
    assert Counter(dict(labels)["job"] for labels in up) == {
        "fox-avatar-app": 1, "fox-avatar-nginx": 1, "fox-avatar-mtail": 1, "fox-avatar-probe": 2}, up
    # Every one up, and what the exporters report through it: Nginx read, both probes passed. Waited
    # for: a scrape slower than the 1 s interval on a busy machine counts as down until the next.
    def healthy():
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
        return rules if groups and all(rfc3339_seconds(g["lastEvaluation"]) > since for g in groups) else None
    rules = wait_until(evaluated, 10)
    assert rules, "no evaluation of the rules within 10 s"
    assert set(rules) == alerts
    for name, rule in rules.items():
        assert rule["health"] == "ok", (name, rule.get("lastError"))
    # With every part up nothing is down: absent(up{job="fox-avatar-app"}) is empty only when the
    # sidecar's job is named as the rules expect (waited for, as a slow scrape may count as down).
    def inactive():
        groups = prometheus.api("rules", type="alert")["groups"]
        states = {r["name"]: r["state"] for g in groups for r in g["rules"]}
        return all(states[name] == "inactive" for name in ("FoxAvatarSidecarDown", "FoxAvatarExporterDown"))
    assert wait_until(inactive, 10), prometheus.api("rules", type="alert")


HASH = "0123456789abcdef0123456789abcdef"
ACCEPT = {"avif": "image/avif,image/webp,image/png,*/*;q=0.8", "webp": "image/webp,image/png,*/*;q=0.8",
          "png": "image/png"}
# (route, method, path, Accept, times): routes the probes do not take (they ask for `/` and `/?s=64`).
SENT = [("keyed", "GET", "/?s=64&u=ada%40example.org", ACCEPT["avif"], 3),
        ("keyed", "GET", "/?s=80&u=alan%40example.org", ACCEPT["webp"], 2),
        ("gravatar", "GET", f"/avatar/{HASH}?s=64", ACCEPT["png"], 2),
        ("gravatar", "GET", f"/avatar/{HASH}?s=128", ACCEPT["avif"], 1),
        ("random", "POST", "/", None, 2)]


def probes_own(route, status):
    """The series the probes move every second (GET / and /?s=64: random, 302), left out of the count."""
    return route == "random" and status == "302"


def in_prometheus(prometheus, at):
    """fox_avatar_requests_total as Prometheus has it at time at: {(route, status, format): value}."""
    samples = prometheus.query('fox_avatar_requests_total{job="fox-avatar-app"}', time=at)
    counts = {(d["route"], d["status"], d["format"]): v for d, v in ((dict(k), v) for k, v in samples.items())}
    return {k: v for k, v in counts.items() if not probes_own(*k[:2])}


def at_the_sidecar(edge):
    with urllib.request.urlopen(f"http://127.0.0.1:{edge.metrics_port}/metrics", timeout=10) as r:
        samples = parse_metrics(r.read().decode())
    counts = {(d["route"], d["status"], d["format"]): v for d, v in
              ((dict(labels), v) for (name, labels), v in samples.items() if name == "fox_avatar_requests_total")}
    return {k: v for k, v in counts.items() if not probes_own(*k[:2])}


def durations_count(prometheus, at):
    samples = prometheus.query('fox_avatar_request_duration_seconds_count{job="fox-avatar-app"}', time=at)
    return {dict(k)["route"]: v for k, v in samples.items()}


def test_prometheus_counts_exactly_the_requests_sent_and_the_histogram_agrees(edge, prometheus):
    # Caught up: Prometheus has what the sidecar says now (earlier tests' requests included).
    before = wait_until(
        lambda: (now := at_the_sidecar(edge)) == in_prometheus(prometheus, time.time()) and now, 10)
    assert before, f"Prometheus never caught up with the sidecar: {at_the_sidecar(edge)}"
    durations_before = durations_count(prometheus, time.time())
    sent = Counter()
    for route, method, path, accept, times in SENT:
        for _ in range(times):
            r = request(edge, method, path, headers={"Accept": accept} if accept else {})
            image = re.search(r"\.(avif|webp|png)$", r.header("location") or "")
            sent[(route, str(r.status), image.group(1) if image else "none")] += 1
    assert sent[("random", "405", "none")] == 2 and sum(sent.values()) == 10, sent
    expected = {k: before.get(k, 0) + sent[k] for k in set(before) | set(sent)}
    seen = wait_until(lambda: (got := in_prometheus(prometheus, time.time())) == expected and got, 10)
    assert seen == expected, f"sent {dict(sent)}; Prometheus has {in_prometheus(prometheus, time.time())}, " \
                             f"before {before}"
    # The histogram's _count counts the same requests, per route, in the same scrape.
    at = time.time()
    counts, durations = in_prometheus(prometheus, at), durations_count(prometheus, at)
    for route in ("keyed", "gravatar"):
        by_route = sum(v for (r, _, _), v in counts.items() if r == route)
        assert durations[route] == by_route, (route, durations, counts)
        assert durations[route] - durations_before.get(route, 0) == sum(
            n for (r, _, _), n in sent.items() if r == route), (route, durations, durations_before, sent)


# The graph page's panels: the sidecar's answers by route, and its redirects by image format.
PANELS = ['sum by (route) (rate(fox_avatar_requests_total{job="fox-avatar-app"}[5s]))',
          'sum by (format) (rate(fox_avatar_requests_total{job="fox-avatar-app",status="302"}[5s]))']


def graph_url(prometheus, range_input):
    params = {}
    for i, expr in enumerate(PANELS):
        params.update({f"g{i}.expr": expr, f"g{i}.tab": "0", f"g{i}.range_input": range_input})
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
    if SCREENSHOT:      # steps a reader can tell apart: random alone, then keyed, then gravatar too
        plan, range_input = [("random", 0, 30), ("keyed", 8, 22), ("gravatar", 16, 10)], "45s"
    else:
        plan, range_input = [(kind, 0, 3) for kind in LOAD], "1m"
    run_load(edge, plan, edge.logs)
    time.sleep(2)       # a scrape after the load's last second
    browser.get(graph_url(prometheus, range_input))

    def drawn():
        panels = rendered_panels(browser)
        done = len(panels) == len(PANELS) and all(p["error"] or p["lines"] for p in panels)
        return panels if done else None
    panels = wait_until(drawn, 20)
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

    if SCREENSHOT:      # the whole page in the window, from the top, no text cursor
        width, height = browser.execute_script(
            "document.activeElement.blur(); return [window.outerWidth - window.innerWidth + 1000,"
            " window.outerHeight - window.innerHeight + document.body.scrollHeight]")
        browser.set_window_size(width, height)
        time.sleep(1)   # the graphs drawn again at the new size
        browser.execute_script("window.scrollTo(0, 0)")
        browser.save_screenshot(SCREENSHOT)
