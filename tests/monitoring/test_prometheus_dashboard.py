"""The Grafana dashboard (monitoring/grafana/): the committed JSON is what its code writes, and every
query of every panel has data in Debian 12's Prometheus scraping the edge after real traffic: the
fallback's while the app is stopped, then the service's answers and errors (tests/lib/dashboard_check.py).
After test_prometheus.py (file order): the stopped app must not count in its quiet alerts."""
import subprocess
import sys

from settle import until
from stack.client import get, request, wait_for_sidecar
from stack.stacks import REPO

sys.path.insert(0, str(REPO / "tests" / "lib"))
import dashboard_check  # noqa: E402

HASH = "0123456789abcdef0123456789abcdef"


def test_the_committed_dashboard_is_what_its_code_generates():
    generated = subprocess.run([sys.executable, str(REPO / "monitoring" / "grafana" / "dashboard.py")],
                               capture_output=True, text=True)
    assert generated.returncode == 0, generated.stderr
    assert generated.stdout == dashboard_check.DASHBOARD.read_text(), "fox-avatar.json is stale: run make dashboard"


def test_every_panel_and_variable_of_the_dashboard_has_data_after_real_traffic(edge, prometheus):
    def api(path, params):
        return prometheus.api(path, **params)
    seen = dashboard_check.fallback_answers_seen(api)
    edge.stop_app()
    try:
        for batch in (1, 2):    # the second after a scrape saw the first: a rise, its alert pending
            assert get(edge, "/?s=64").status == 302                    # the fallback's answers
            assert request(edge, "POST", "/", body=b"x").status == 405
            if batch == 1:
                until(lambda: dashboard_check.fallback_answers_seen(api) >= seen + 2, "the fallback's answers scraped", 30)
    finally:
        edge.start_app()
        wait_for_sidecar(edge)
    # The service's after its restart, which started its counters again.
    assert [get(edge, p).status for p in ("/?s=64", "/?s=64&u=ada%40example.org", f"/avatar/{HASH}")] == [302] * 3
    assert request(edge, "POST", "/", body=b"x").status == 405          # its 4xx

    try:
        until(lambda: not dashboard_check.problems(api), "every dashboard query with data", 60)
    finally:
        print(dashboard_check.problems(api))
    counts = dashboard_check.counts(api)
    print(f"{len(counts)} queries, {sum(counts.values())} series:", counts)
