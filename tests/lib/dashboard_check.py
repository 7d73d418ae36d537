"""The Grafana dashboard (monitoring/grafana/fox-avatar.json) against a real Prometheus: every query of
every panel, its variables substituted as Grafana would, returns at least one series, and so does each
metric selector in it; each variable's label_values(...) resolves to at least one value. Used by the
monitoring, compose and Molecule layers, each with its own way to reach the Prometheus API:

    problems = dashboard_check.problems(api)      # api(path, params) -> the answer's "data"

A metric renamed or dropped, or a selector whose labels no longer match, leaves a query empty.
The alerts panel needs an alert pending: FoxAvatarFallbackAnswering is, once Prometheus has seen the
fallback's counter rise between two scrapes (a series is born with the count of its first scrape, no
rise): send fallback answers, wait until fallback_answers_seen() counts them, then send more."""
import json
import re
from pathlib import Path

DASHBOARD = Path(__file__).resolve().parents[2] / "monitoring" / "grafana" / "fox-avatar.json"
# What Grafana puts in place of each variable with "All" selected (their allValue), and of
# $__rate_interval on a 15 s scrape interval (four scrapes).
VALUES = {"job": "fox-avatar-.*", "instance": ".*", "__rate_interval": "1m", "datasource": ""}
_VARIABLE = re.compile(r"\$\{?(\w+)\}?")
# metric{labels}: each vector selector the expression names (every query names its labels).
_SELECTOR = re.compile(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})")
_LABEL_VALUES = re.compile(r"^label_values\((.+),\s*(\w+)\)$")


def load(path=DASHBOARD):
    return json.loads(Path(path).read_text())


def substitute(text, values=None):
    values = {**VALUES, **(values or {})}

    def one(m):
        assert m.group(1) in values, f"unknown variable ${m.group(1)} in {text}"
        return values[m.group(1)]
    return _VARIABLE.sub(one, text)


def panel_queries(board):
    """[(panel title, refId, expression as written)] of every panel, rows' collapsed panels included."""
    panels = [p for top in board["panels"] for p in [top, *top.get("panels", [])]]
    return [(p["title"], t["refId"], t["expr"]) for p in panels for t in p.get("targets", [])]


def variable_queries(board):
    """[(name, selector, label)] of each query variable's label_values(selector, label)."""
    out = []
    for v in board["templating"]["list"]:
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            m = _LABEL_VALUES.match(q)
            assert m, f"variable {v['name']}: not label_values(selector, label): {q}"
            out.append((v["name"], m.group(1), m.group(2)))
    return out


def selectors(expr):
    return [m.group(0) for m in _SELECTOR.finditer(expr)]


def fallback_answers_seen(api):
    """The fallback's answers in Prometheus' last scrape of mtail (0 before the first one)."""
    result = series(api, 'sum(fox_avatar_fallback_answers_total{job=~"fox-avatar-.*"})')
    return float(result[0]["value"][1]) if result else 0.0


def series(api, expr):
    return api("query", {"query": expr})["result"]


def problems(api, board=None, values=None):
    """What is wrong, one line each; empty when every query and variable has data."""
    board = board or load()
    found = []
    for name, selector, label in variable_queries(board):
        expr = f"count by ({label}) ({substitute(selector, values)})"
        if not [r for r in series(api, expr) if r["metric"].get(label)]:
            found.append(f"variable ${name}: label_values({selector}, {label}) has no value")
    for title, ref, expr in panel_queries(board):
        concrete = substitute(expr, values)
        if not series(api, concrete):
            found.append(f"panel {title!r} query {ref}: no series: {concrete}")
        for selector in selectors(concrete):
            if not series(api, f"count({selector})"):
                found.append(f"panel {title!r} query {ref}: nothing matches {selector}")
    return found


def counts(api, board=None, values=None):
    """{(panel title, refId): number of series} for the report."""
    board = board or load()
    return {(title, ref): len(series(api, substitute(expr, values))) for title, ref, expr in panel_queries(board)}
