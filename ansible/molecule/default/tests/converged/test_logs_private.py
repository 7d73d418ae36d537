"""Private by default (fox_avatar_nginx_access_log unset: anonymous), on the converged host:
requests with a known key, an MD5 and a SHA-256 e-mail hash, a Referer and a User-Agent, from a
known loopback address, with the sidecar up and then stopped (the fallback answers); then none
of those values is in any file of /var/log/nginx/fox-avatar (access, fallback, error) nor in the
journal of the fox-avatar and nginx units, while the access and fallback logs do record the
requests, with the client's /24."""
import logprobe
import pytest
from logprobe import LOG_DIR, NETWORK

VISIT = logprobe.Visit("default-5a9c1e")


@pytest.fixture(scope="module")
def seen(host_name):
    fallback_before = logprobe.lines(host_name, "fallback.log")
    answers = logprobe.visit(host_name, VISIT)
    return {"answers": answers, "logs": logprobe.logs(host_name),
            "fallback_new": logprobe.lines(host_name, "fallback.log") - fallback_before}


def test_requests_were_answered_by_the_sidecar_and_by_the_fallback(seen):
    statuses = [line.split()[2] for line in seen["answers"].splitlines() if line.startswith("/")]
    # per round: / 302, two /avatar/ 302, the unknown path 404; both rounds
    assert statuses == ["302", "302", "302", "404"] * 2, seen["answers"]


@pytest.mark.parametrize("what", list(VISIT.values()))
def test_default_logs_and_journal_hold_no(seen, what):
    value = VISIT.values()[what]
    assert logprobe.found(seen["logs"], value) == [], f"{what} {value!r} logged"


def test_default_access_log_records_each_request_with_the_clients_network_only(seen):
    ours = [line for line in seen["logs"][f"{LOG_DIR}/access.log"].splitlines()
            if line.startswith(f"{NETWORK} ")]
    print("\n".join(ours))
    assert len(ours) >= 8, "the 8 requests are not in the access log with the client's /24"


def test_default_fallback_log_records_the_fallback_answers(seen):
    assert seen["fallback_new"] >= 3, "the fallback's answers are not in fallback.log"
    assert f"{NETWORK} " in seen["logs"][f"{LOG_DIR}/fallback.log"]
