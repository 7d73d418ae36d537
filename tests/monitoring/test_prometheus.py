"""Debian 12's Prometheus scrapes the edge with the operator's file (its addresses moved to the
loopback ports) and the real rules: every target up, every alert loaded and quiet (every panel's query
with data: test_prometheus_dashboard.py)."""
import re
import subprocess
import time
from collections import Counter

from monitoring.conftest import CONFIG, RULES, seconds
from settle import until



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
    until(healthy, "every target up and both probes passing", 10)


def test_every_alert_of_the_rules_file_is_loaded_and_evaluated(prometheus):
    alerts = alerts_of_the_rules_file()
    since = time.time()

    def evaluated():
        groups = prometheus.api("rules", type="alert")["groups"]
        rules = {r["name"]: r for g in groups for r in g["rules"]}
        return rules if groups and all(seconds(g["lastEvaluation"]) > since for g in groups) else None
    rules = until(evaluated, "every alert evaluated", 10)
    assert set(rules) == alerts, (set(rules), alerts)
    for name, rule in rules.items():
        assert rule["health"] == "ok", (name, rule.get("lastError"))

    # With every part up nothing is down (absent(up{job=...}) is empty only when the jobs are named as
    # the rules select them; the earlier tests' fallback answers may have the fallback alert pending).
    # Waited for: a slow scrape may count as down until the next.
    def quiet():
        states = {r["name"]: r["state"] for g in prometheus.api("rules", type="alert")["groups"] for r in g["rules"]}
        return all(states[name] == "inactive" for name in ("FoxAvatarSidecarDown", "FoxAvatarExporterDown"))
    until(quiet, "the down alerts inactive", 10)
