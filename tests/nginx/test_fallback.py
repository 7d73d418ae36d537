"""Nginx's fallback gives the sidecar's answers, on the loopback stack: for every form of the avatar
URL, size rule, Accept (an identity's SVG or PNG), Accept-Encoding and method (status, Location, Allow,
Cache-Control, Vary, Content-Encoding and the header set), with a list of people and Gravatar's
defaults off and on, and for every one of the 10,000 key buckets; when the sidecar is stopped, too
slow, or stopping. And which keys move when the set changes (the buckets table both answerers read)."""
import hashlib
import http.client
import signal
import socket
import ssl
import time

import pytest

from imageset.buckets import bucket_of, table, variant_of
from imageset.contract import BUCKETS
from imageset.nginx import people_rows
from imageset.people import people, read_people
from settle import until
from stack.client import get, request, wait_for_sidecar, while_stopped
from stack.headers import assert_header_set, header_set
from stack.images import ACCEPT, identity_locations, manifest, redirect_entry  # noqa: F401 (fixture)
from stack.stacks import LoopbackStack

KEY = "0bc83cb571cd1c50ba6f3e8a78ef1346"
SHA = "9f3c2e8a4b1d7f6e5c0a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f"
GRAFANA = "text/html,application/xhtml+xml,application/xml;q=0.9,image/jpeg,image/png,*/*;q=0.8"
ACCEPTS = [accept for accept, _ in ACCEPT.values()]
# Keyed answers name one file: the fallback's Location must be the sidecar's.
KEYED = [(f"/?u={KEY}{i}&{q}", a) for i, q in enumerate(
    ["s=64", "size=100", "s=0", "s=9999", "s=abc", "S=32", "s=&size=48", "x=1", "s=300", "s=512", "s=2048",
     "s=99999999999999999999", "s=0064", "s=64&s=128", "size=48&s=96", "s=%36%34", "s=6.4"]) for a in ACCEPTS] + [
    (f"/?u={k}", None) for k in ["a", "ab", "A@b.c", "%41", "~!*()'", "x" * 128]] + [
    (f"/avatar/{h}{q}", a) for h, q in [
        (KEY, ""), (KEY, "?s=80"), (KEY, "?s=1"), (KEY, "?s=2049"), (KEY, "?s=-1"), (KEY, "?size=24&rating=PG&default=mm"),
        (KEY.upper(), "?s=48"), (KEY + ".png", "?s=360&d=404&reset_cache=Vx2kQ_8"), (KEY + ".jpg", "?s=40&d=identicon"),
        (SHA, "?d=retro&size=200&r=pg"), (SHA + ".png", ""), ("%30" + KEY[1:], "?s=96"), ("./" + KEY, "?s=64"),
        ("x/../" + KEY, "?s=64"), ("/" + KEY, "?s=64"), (KEY, "?s=02048&S=32"), (KEY, "?s=&size=300"),
        (KEY, "?s=64&d=https%3A%2F%2Fevil.example%2Fx.png&default=//evil.example/x.png"),
    ] for a in [ACCEPT["chromium"][0], ACCEPT["old-safari"][0], "*/*", GRAFANA, None]]
# Not keyed (a random picture, no-store) in both: compared on everything but the picture.
UNKEYED = ["/", "/?s=64", "/?s=abc&size=", "/?u=", "/?u=" + "x" * 129, "/avatar/", "/avatar/abc?s=64",
           f"/avatar/{KEY}/?s=32", f"/avatar/{KEY}junk", f"/avatar/{KEY}.png.png?s=2048", "/avatar/x/%2e%2e/abc"]
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
CASES = ([("GET", path, accept, True) for path, accept in KEYED]
         + [("GET", path, ACCEPT["chromium"][0], False) for path in UNKEYED]
         + [(method, path, ACCEPT["chromium"][0], keyed) for method in METHODS[1:]
            for path, keyed in [("/", False), (f"/?u={KEY}&s=64", True), (f"/avatar/{KEY}.png?s=0", True),
                                ("/avatar/not-a-hash?s=64", False)]])
CASES += [case + ("gzip",) for case in CASES[::7]]      # Accept-Encoding: gzip changes nothing


def send(stack, method, path, accept, keyed=None, encoding=None):
    headers = {"Origin": "https://forum.example", **({"Accept": accept} if accept else {}),
               **({"Accept-Encoding": encoding} if encoding else {})}
    if method == "OPTIONS":         # a CORS preflight, as a browser sends it
        headers.update({"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-fox"})
    return request(stack, method, path, headers=headers, body=b"x" if method in ("POST", "PUT", "PATCH") else None)


def answer(stack, manifest, case, r):
    """What the two answerers must agree on."""
    method, path, _, keyed = case[:4]
    assert_header_set(stack, r, what=f"{method} {path}")
    if r.status == 404:                 # Gravatar's d=404: nothing but the status and its caching
        assert method in ("GET", "HEAD") and keyed and r.header("Content-Length") == "0", (case, r.headers)
        location = (r.header("Content-Type"), r.body)
    elif method in ("GET", "HEAD"):
        assert r.status == 302, (case, r.status)
        location = r.header("Location")
        if location not in identity_locations(manifest):
            e = redirect_entry(stack, manifest, r)
            location = location if keyed else (e.size, e.fmt)
        else:
            assert keyed, (case, location)
    else:
        assert r.status == 405, (case, r.status)
        location = r.header("Location")
    return (r.status, location, r.header("Allow"), r.header("Cache-Control"), r.header("Vary"),
            r.header("Content-Encoding"), header_set(r))


def sidecar_and_fallback(stack, manifest, cases):
    """Each case's answer from the sidecar, then from the fallback with the sidecar stopped: they must agree."""
    sidecar = {}
    for case in cases:
        r = send(stack, *case)
        assert b"<html>" not in r.body, f"{case}: the sidecar should be answering"
        sidecar[case] = answer(stack, manifest, case, r)
    log_before = stack.fallback_log()
    stack.stop_app()
    try:
        (answers,) = while_stopped([lambda c=c: send(stack, *c) for c in cases])
        for case, r in zip(cases, answers):
            assert case[0] == "HEAD" or r.status == 404 or b"<html>" in r.body, f"{case}: the answer must be Nginx's"
            assert answer(stack, manifest, case, r) == sidecar[case], case
        until(lambda: len(stack.fallback_log()[len(log_before):].splitlines()) == len(cases),
              "a fallback log line for each answer, the 405s too")
    finally:
        stack.start_app()
    wait_for_sidecar(stack)
    return sidecar


def test_the_fallback_gives_the_sidecars_answer_to_every_form_size_accept_and_method(loopback, manifest):
    sidecar_and_fallback(loopback, manifest, CASES)


def md5(address):
    return hashlib.md5(address.encode()).hexdigest()


def sha256(address):
    return hashlib.sha256(address.encode()).hexdigest()


# alice gets an identity of her own, bob picture 3 itself, carol the identity 5-v7
TEAM = "alice@example.org\n BOB@example.org 3\n" + sha256("carol@example.org") + " 5-v7\n"
STRANGER = md5("stranger@example.org")
HASHES = [md5("alice@example.org"), sha256("alice@example.org").upper(), md5("bob@example.org"),
          sha256("carol@example.org"), STRANGER]
QUERIES = ["", "d=404", "default=404&s=40", "D=404", "d=mp", "default=mm", "d=blank&s=200", "d=identicon",
           "d=MP", "d=404&f=y", "forcedefault=y&d=blank", "f=Y&d=404", "d=https%3A%2F%2Fx.example%2Fa.png"]


@pytest.fixture(scope="module", params=["off", "on"])
def listed(request, manifest, tmp_path_factory):
    """A loopback stack with TEAM's list of people and Gravatar's defaults off or on."""
    tsv = tmp_path_factory.mktemp("people") / "people.tsv"
    tsv.write_text(people(TEAM, manifest))
    stack = LoopbackStack(app_args=["--people", str(tsv), "--gravatar-defaults", request.param], extra_variables={
        "avatar_people": people_rows(read_people(tsv.read_text(), manifest)), "avatar_gravatar_defaults": request.param})
    try:
        yield request.param, read_people(tsv.read_text(), manifest), stack
    finally:
        stack.close()


def test_the_fallback_gives_the_sidecars_answer_with_a_list_of_people_and_gravatars_defaults(listed, manifest):
    mode, listing, stack = listed
    cases = [("GET", f"/avatar/{h}?{q}", accept, True, encoding)
             for h in HASHES for q in QUERIES for accept, encoding in [(ACCEPT["chromium"][0], "gzip"), ("*/*", None)]]
    cases += [("GET", f"/?u={h}&d=404", "*/*", True) for h in HASHES] + [("HEAD", f"/?u={STRANGER}&d=404", None, True)]
    cases += [("GET", "/?d=404&f=y", "*/*", False)]
    answers = sidecar_and_fallback(stack, manifest, cases)

    def status_location(h, q, accept="*/*", encoding=None):
        return answers[("GET", f"/avatar/{h}?{q}", accept, True, encoding)][:2]
    on = mode == "on"
    alice, bob, carol = HASHES[0], HASHES[2], HASHES[3]
    (fox, v), svg = listing[alice], (ACCEPT["chromium"][0], "gzip")
    assert status_location(alice, "d=404") == (302, manifest.identity(fox, v, 96, False))
    assert status_location(HASHES[1], "d=blank&s=200", *svg) == (302, manifest.identity(fox, v, 200, True))
    assert status_location(bob, "") == (302, manifest.answer(3, 96, "png"))
    assert status_location(carol, "d=404", *svg) == (302, manifest.identity(5, 7, 96, True))
    own = manifest.identity(*own_of(manifest, STRANGER), 96, False)
    assert status_location(STRANGER, "d=identicon") == (302, own)
    assert status_location(STRANGER, "d=MP") == (302, own)
    assert status_location(alice, "d=404&f=y")[0] == (404 if on else 302)
    assert status_location(STRANGER, "d=404")[0] == status_location(STRANGER, "D=404")[0] == (404 if on else 302)
    assert status_location(STRANGER, "default=mm") == (302, manifest.variants.location("mp", 96, False) if on else own)
    assert status_location(STRANGER, "d=blank&s=200", *svg) == (302, manifest.variants.location("blank", 200, True)
                                                                 if on else manifest.identity(*own_of(manifest, STRANGER), 256, True))
    if on:
        assert answers[("GET", f"/avatar/{STRANGER}?d=404", "*/*", True, None)][3] == "max-age=300"


def own_of(manifest, key):
    return manifest.keyed_fox(murmur2(key.encode())), variant_of(key.encode(), manifest.variants.count)


def murmur2(data):
    """Nginx's ngx_murmur_hash2, what split_clients hashes a key with."""
    m, h, i = 0x5BD1E995, len(data), 0
    while len(data) - i >= 4:
        k = (int.from_bytes(data[i:i + 4], "little") * m) & 0xFFFFFFFF
        k = ((k ^ (k >> 24)) * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
        i += 4
    for shift in range(len(data) - i - 1, -1, -1):
        h ^= data[i + shift] << (8 * shift)
    if len(data) > i:
        h = (h * m) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * m) & 0xFFFFFFFF
    return h ^ (h >> 15)


def key_per_bucket():
    keys, n = {}, 0
    while len(keys) < BUCKETS:
        key = f"user{n}"
        keys.setdefault(bucket_of(murmur2(key.encode())), key)
        n += 1
    return [keys[b] for b in range(BUCKETS)]


def pipelined(sock, host, targets):
    """The Location of each target's 302, sent over one keep-alive connection in batches."""
    out, buf = [], b""
    for start in range(0, len(targets), 100):
        chunk = targets[start:start + 100]
        sock.sendall(b"".join(f"GET {t} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode() for t in chunk))
        while len(out) < start + len(chunk):
            end = buf.find(b"\r\n\r\n")
            lines = buf[:end].decode("latin-1").split("\r\n") if end >= 0 else []
            fields = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            length = int(fields.get("content-length", 0))
            if end < 0 or len(buf) < end + 4 + length:
                data = sock.recv(1 << 20)
                assert data, "connection closed"
                buf += data
                continue
            assert lines[0].startswith("HTTP/1.1 302 "), lines
            out.append(fields["location"])
            buf = buf[end + 4 + length:]
    return out


def test_every_key_bucket_gets_its_picture_from_the_sidecar_and_the_fallback(loopback, manifest):
    keys = key_per_bucket()
    targets = [f"/?u={k}&s=64" for k in keys]
    expected = [manifest.identity(*own_of(manifest, k), 64, False) for k in keys]
    with socket.create_connection(("127.0.0.1", loopback.app_port), timeout=60) as s:
        assert pipelined(s, "127.0.0.1", targets) == expected
    ctx = ssl.create_default_context(cafile=loopback.ca_file)
    loopback.stop_app()
    try:
        fallback = []
        for start in range(0, len(targets), 1000):      # Nginx's keepalive_requests: 1000 a connection
            with ctx.wrap_socket(socket.create_connection(("127.0.0.1", loopback.https_port), timeout=60),
                                 server_hostname=loopback.host) as s:
                fallback += pipelined(s, loopback.host, targets[start:start + 1000])
    finally:
        loopback.start_app()
    assert fallback == expected
    wait_for_sidecar(loopback)


def moved(before_ids, before, after_ids, after):
    """The buckets whose picture (by stable id) changed."""
    return [b for b in range(BUCKETS) if before_ids[before[b] - 1] != after_ids[after[b] - 1]]


def test_a_set_change_moves_only_the_keys_of_the_picture_added_or_removed():
    foxes = [f"Renard-{n}" for n in range(1, 22)]
    sets = {"21": foxes, "22": foxes + ["Renard-22"], "mid": [i for i in foxes if i != "Renard-5"] + ["Renard-22"]}
    tables = {name: table(ids) for name, ids in sets.items()}
    added = moved(sets["21"], tables["21"], sets["22"], tables["22"])
    assert abs(len(added) / BUCKETS - 1 / 22) < 0.01, len(added)
    assert all(sets["22"][tables["22"][b] - 1] == "Renard-22" for b in added), "a moved key goes to the new picture"
    for removed, name in [("Renard-22", "21"), ("Renard-5", "mid")]:
        gone = moved(sets["22"], tables["22"], sets[name], tables[name])
        assert gone == [b for b in range(BUCKETS) if sets["22"][tables["22"][b] - 1] == removed], removed
        assert len(gone) / BUCKETS < 1 / 22 + 0.01, removed


def test_a_slow_sidecar_gets_the_fallback_after_the_read_timeout(loopback):
    loopback.pause_app()
    try:
        start = time.monotonic()
        r = get(loopback, "/?x=slow-check")
        took = time.monotonic() - start
    finally:
        loopback.resume_app()
    assert r.status == 302 and b"<html>" in r.body and r.header("Cache-Control") == "no-store"
    assert 1.5 < took < 5, took
    line = until(lambda: [line for line in loopback.fallback_log().splitlines() if "x=slow-check" in line],
                 "the fallback log line")[0]
    assert 'us="504"' in line and "fallback=1" in line
    assert get(loopback, "/?x=after-slow").body == b""


def test_a_stopping_sidecars_503_gets_the_fallback(loopback):
    """After its SIGTERM the sidecar finishes what is in flight and answers anything new 503 until it
    closes; no client sees that 503. A POST whose body never ends holds it in that state."""
    held = socket.create_connection(("127.0.0.1", loopback.app_port), timeout=5)
    try:
        held.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx")
        time.sleep(0.3)
        loopback.app.send_signal(signal.SIGTERM)
        deadline, status = time.monotonic() + 3, None
        while status != 503 and time.monotonic() < deadline:
            c = http.client.HTTPConnection("127.0.0.1", loopback.app_port, timeout=1)
            c.request("GET", "/")
            status = c.getresponse().status
            c.close()
        assert status == 503, f"the stopping sidecar answered {status}, not 503: nothing to test"
        r = get(loopback, "/?x=stopping-check")
    finally:
        held.close()
        loopback.stop_app()
        loopback.start_app()
    assert r.status == 302, r.status
    line = until(lambda: [line for line in loopback.fallback_log().splitlines() if "x=stopping-check" in line],
                 "the fallback log line")[0]
    assert 'us="503"' in line and "fallback=1" in line, line

