"""The site through the proxy: the shared HTTP suite, and what Debian 13's clients get from a
Debian 12 proxy (no HTTP/3, no Alt-Svc, a classic TLS group)."""
import re

import foxmol


# Nginx's upstream failure marks (max_fails=1 fail_timeout=10s, nginx/fox-avatar/upstream-keepalive.conf)
# count with more than one server, and each worker keeps its own: after the suite's fallback test
# stopped both services, a worker that marked both failed sends to the fallback for 10 s even once
# another worker is served by an app host again, and an app host whose JVM is still starting fails
# its first requests. So the suite's start returns once each service answers and the marks are over.
FAIL_TIMEOUT_S = 10


def test_shared_http_suite_through_the_proxy(site, proxy, proxy_addr, proxy_ca, apps, app_address, network):
    ready = " && ".join(
        f"timeout 90 sh -c 'until curl -sf -o /dev/null http://{app_address[app]}:8080/healthz; do sleep 0.5; done'"
        for app in apps) + f" && sleep {FAIL_TIMEOUT_S}"
    run = foxmol.stack_suite("stack-through-proxy", site=site, addr=proxy_addr, ca=proxy_ca,
                             proxy=proxy, apps=apps, http3=False, pq=False, network=network, app_ready=ready)
    assert run.rc == 0, foxmol.pytest_tail(run)


def test_debian_12_proxy_serves_no_http3(site, proxy_addr, proxy_ca, network):
    res = foxmol.trixie_client(network, proxy_ca, "curl", "-s", "-o", "/dev/null", "-w",
                               "%{http_code} %{http_version}", "--http3-only", "--max-time", "10",
                               "--cacert", "/ca.pem", "--resolve", f"{site}:443:{proxy_addr}",
                               f"https://{site}/")
    # curl --http3-only finds no QUIC listener: "000 0" (anything but the 302 over HTTP/3 passes)
    assert res.stdout.strip() != "302 3", res


def test_debian_12_proxy_sends_no_alt_svc(site, proxy_addr, proxy_ca):
    code, headers = foxmol.https(proxy_addr, site, "/", proxy_ca)
    assert code == "302"
    assert not re.search(r"^alt-svc:", headers, re.I | re.M), headers


def test_debian_12_proxy_gives_debian_13_openssl_x25519_when_it_offers_x25519mlkem768(
        site, proxy_addr, proxy_ca, network):
    res = foxmol.trixie_client(
        network, proxy_ca, "sh", "-c",
        'openssl s_client -connect "$1:443" -servername "$2" -groups X25519MLKEM768:X25519 '
        "-CAfile /ca.pem </dev/null 2>&1", "sh", proxy_addr, site)
    # OpenSSL 3.5 names a hybrid KEM "Negotiated TLS1.3 group: ...", a classic group "Peer Temp Key: X25519, ..."
    groups = re.findall(r"^(?:Negotiated TLS1\.3 group: (\S+)|Peer Temp Key: ([^,]+),)", res.stdout, re.M)
    assert [a or b for a, b in groups][:1] == ["X25519"], res.stdout[-2000:]
