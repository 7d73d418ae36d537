"""One owner's server, lived in: the journeys an owner combines, in order, on ONE compose install of
a release (tests/release/run.sh installs 1.0.0 from its registry and releases 1.1.0 first):

  1. a public name, its certificate from an ACME CA (Pebble on this host, Let's Encrypt's stand-in)
  2. the monitoring profile, probing that name (docs/monitoring.md's block as written)
  3. the owner's own pictures (docs/own-pictures.md's first block as written)
  4. a picture for each of three people (its `make people` block as written)
  5. the upgrade to 1.1.0 (docs/releases.md's upgrade block as written)
  6. a renewal of the certificate (Pebble's certificates live minutes: renewed at two thirds)

After each step: every listed person's picture unchanged, the certificate trusted for the name, no
alert firing. A visitor loops throughout, each avatar on a new connection: it must get only 302s
and pictures, a redirect it kept from the start included; refused connections are counted and
reported with how long they lasted (Nginx's replacement closes its ports for a moment), and so are
the keyed 503s Nginx answers while the sidecar restarts (docs/avatar-url.md, "While the service
restarts"): never for the random avatar, and only while a step replaces the sidecar.
Environment (from run.sh): OWNER_CHECKOUT, OWNER_SERVER (the directory the checkout is in), OWNER_REPO
(the maintainer's, which the upgrade fetches from),
COMPOSE_PROJECT_NAME, AVATAR_HTTPS_PORT, AVATAR_HTTP_PORT, PEBBLE_BIN, PEBBLE_CHALLTESTSRV_BIN."""
import hashlib
import os
import ssl
import sys
import threading
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "compose"))
import acme  # noqa: E402  (Pebble on this host)
from compose_helpers import compose, docblocks, prometheus, served_certificate, tls_get, wait_for  # noqa: E402

NAME = "avatar.example.org"
PEOPLE = ["ada@example.org", "grace@example.org", "linus@example.org"]
NEEDED = ("OWNER_CHECKOUT", "OWNER_SERVER", "OWNER_REPO", "COMPOSE_PROJECT_NAME", "AVATAR_HTTPS_PORT", "AVATAR_HTTP_PORT")
pytestmark = pytest.mark.skipif(any(not os.environ.get(v) for v in NEEDED),
                                reason="run by tests/release/run.sh on its installed release (make test-release)")
VALIDITY = 240   # seconds: each certificate renewed 160 s after it starts, several times in this test


def block(page, text):
    """The index of the page's shell block that holds text."""
    (index,) = [i for i, b in enumerate(docblocks.blocks(page)) if text in b]
    return index


def request(path, trust=None):
    """(status, Location, Content-Type) of GET https://NAME:PORT/path (compose_helpers.tls_get)."""
    return tls_get(int(os.environ["AVATAR_HTTPS_PORT"]), path, NAME, trust)


class Visitor(threading.Thread):
    """Avatars one after another, each redirect followed to its picture; and a keyed redirect kept
    from the start (a browser's cache of an hour) asked again each time. Connection failures are
    kept with their times, and so are the keyed 503s of Nginx's fallback; any other answer than a 302
    or a picture is a fault."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop, self.answers, self.faults, self.refused, self.unavailable = threading.Event(), 0, [], [], []
        self.step = "install"
        self.kept = None

    def picture(self, location, what):
        status, again, kind = request(location)
        if status in (301, 302, 307, 308):   # a retired name, sent on to a current picture
            status, _, kind = request(again)
        if status != 200 or not kind.startswith("image/"):
            self.faults.append((self.step, what, location, status, kind))

    def run(self):
        while not self.stop.is_set():
            try:
                status, location, _ = request("/?s=64")
                if status != 302:
                    self.faults.append((self.step, "/", status))
                    continue
                self.picture(location, "random")
                status, location, _ = request("/?s=64&u=0bc83cb571cd1c50ba6f3e8a78ef1346")
                if status == 503:   # the sidecar restarting: asked again, like a client honouring Retry-After
                    self.unavailable.append((time.monotonic(), self.step))
                    time.sleep(0.05)
                    continue
                if status != 302:
                    self.faults.append((self.step, "keyed", status))
                    continue
                self.kept = self.kept or location
                self.picture(self.kept, "kept")
                self.answers += 1
            except (OSError, ssl.SSLError, IndexError, ValueError):
                self.refused.append((time.monotonic(), self.step))
                time.sleep(0.05)

    @staticmethod
    def windows(events):
        """Spells of (time, step) events: (step, seconds, events), a gap of over a second starting a new one."""
        out = []
        for t, step in events:
            if out and t - out[-1][1] <= 1.0:
                out[-1][1], out[-1][3] = t, out[-1][3] + 1
            else:
                out.append([t, t, step, 1])
        return [(step, round(end - start, 1), n) for start, end, step, n in out]


class Owner:
    """The owner's server and what is checked after each step."""

    def __init__(self, checkout, env, pebble, trust):
        self.checkout, self.env, self.pebble, self.trust = checkout, env, pebble, trust
        self.people, self.monitoring = {}, False

    def up(self):
        compose("up", "-d", "--wait", env=self.env, cwd=self.checkout, timeout=900)

    def add(self, *lines):
        with open(self.checkout / ".env", "a") as env:
            env.write("".join(f"{line}\n" for line in lines))

    def person(self, address, algorithm):
        status, location, _ = request(f"/?s=64&u={hashlib.new(algorithm, address.encode()).hexdigest()}")
        assert status == 302, (address, status)
        return location

    def check(self, step):
        # the certificate: trusted for the name as a browser trusting the CA's root would
        status, _, _ = request("/?s=64", trust=self.trust)
        assert status == 302, (step, status)
        for address, pictures in self.people.items():
            assert (self.person(address, "md5"), self.person(address, "sha256")) == pictures, (step, address)
        if self.monitoring:
            firing = [a["labels"]["alertname"] for a in prometheus("alerts")["alerts"] if a["state"] == "firing"]
            assert not firing, (step, firing)
        print(f"owner: after {step}: certificate trusted for {NAME}, {len(self.people)} people unchanged"
              f"{', no alert firing' if self.monitoring else ''}")


def own_pictures(home):
    """Four photos of the owner's, in ~/my-pictures (what docs/own-pictures.md's block reads)."""
    src = home / "my-pictures"
    src.mkdir(parents=True)
    for i, colour in enumerate([(200, 90, 30), (40, 120, 220), (30, 160, 60), (150, 40, 160)]):
        picture = Image.linear_gradient("L").resize((400 + 50 * i, 400)).convert("RGB")
        ImageDraw.Draw(picture).ellipse((60, 60, 340, 340), fill=colour)
        picture.save(src / f"{i + 1:02d}-member.jpg", quality=90)


def test_an_owners_server_lived_in(tmp_path_factory):
    checkout, server = Path(os.environ["OWNER_CHECKOUT"]), Path(os.environ["OWNER_SERVER"])
    home = tmp_path_factory.mktemp("home")
    home.chmod(0o755)   # the set made there is read by the containers' users
    procs = []
    pebble = acme.start(tmp_path_factory.mktemp("pebble"), http_port=int(os.environ["AVATAR_HTTP_PORT"]),
                        validity=VALIDITY, procs=procs)
    # Pebble in Let's Encrypt's place: its directory and the CA of its HTTPS come from the environment
    env = dict(os.environ, AVATAR_ACME_DIRECTORY=pebble.directory, AVATAR_ACME_CA_FILE=str(pebble.ca_file),
               AVATAR_PROMETHEUS_PORT=str(acme.free_port()), HOME=str(home))
    os.environ["AVATAR_PROMETHEUS_PORT"] = env["AVATAR_PROMETHEUS_PORT"]   # prometheus() reads it
    owner = Owner(checkout, env, pebble, str(pebble.root))
    visitor = Visitor()
    visitor.start()
    wait_for("the visitor's first answers", lambda: visitor.answers > 3, timeout=60, interval=0.2)
    try:
        visitor.step = "a public name"
        owner.add(f"AVATAR_TLS_NAMES={NAME}", "AVATAR_ACME_EMAIL=owner@example.org")
        owner.up()
        wait_for("a certificate from the CA", lambda: _trusted(owner.trust), timeout=180, interval=1)
        owner.check("a public name with its certificate")

        visitor.step = "monitoring"
        docblocks.run("docs/monitoring.md", 0, cwd=checkout, env=env, timeout=900)
        owner.monitoring = True

        def probed():
            success = prometheus("query", query='probe_success{job="fox-avatar-probe"}')["result"]
            expiry = prometheus("query", query='probe_ssl_earliest_cert_expiry{job="fox-avatar-probe"}')["result"]
            served = acme.not_after(served_certificate(int(os.environ["AVATAR_HTTPS_PORT"]), NAME))
            return (success and all(s["value"][1] == "1" for s in success)
                    and expiry and all(int(float(e["value"][1])) == served for e in expiry))
        wait_for("the probes passing for the name, seeing the certificate's end", probed, timeout=180, interval=2)
        owner.check("monitoring")

        visitor.step = "own pictures"
        own_pictures(home)
        docblocks.run("docs/own-pictures.md", 0, cwd=checkout, env=env, timeout=900)
        mine = {e.name for e in (home / "avatar-set" / "a").iterdir()}
        wait_for("the own set served", lambda: request("/?s=64")[1].rsplit("/", 1)[-1] in mine, timeout=60)
        owner.check("own pictures")

        visitor.step = "people"
        (checkout / "team.txt").write_text("".join(f"{a}\n" for a in PEOPLE))
        docblocks.run("docs/own-pictures.md", block("docs/own-pictures.md", "make people"), cwd=checkout, env=env,
                      timeout=600)
        owner.people = {a: (owner.person(a, "md5"), owner.person(a, "sha256")) for a in PEOPLE}
        assert len({p[0] for p in owner.people.values()}) == len(PEOPLE), owner.people   # one picture each
        assert all(p[0].rsplit("/", 1)[-1] in mine and p[0] == p[1] for p in owner.people.values()), owner.people
        owner.check("people")

        visitor.step = "upgrade"
        docblocks.run("docs/releases.md", block("docs/releases.md", "AVATAR_VERSION=1.1.0"), cwd=server, env=env,
                      clone_from=os.environ["OWNER_REPO"], timeout=900)
        owner.check("the upgrade to 1.1.0")

        visitor.step = "renewal"
        served = served_certificate(int(os.environ["AVATAR_HTTPS_PORT"]), NAME)
        wait_for("the certificate renewed", lambda: served_certificate(int(os.environ["AVATAR_HTTPS_PORT"]), NAME)
                 != served, timeout=2 * VALIDITY, interval=1)
        before = visitor.answers
        wait_for("answers after the renewal", lambda: visitor.answers > before + 5, timeout=60, interval=0.2)
        owner.check("a renewal")
    finally:
        visitor.stop.set()
        visitor.join(30)
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        spells, waits = visitor.windows(visitor.refused), visitor.windows(visitor.unavailable)
        print(f"owner: the visitor: {visitor.answers} rounds (a random avatar, a keyed one, the kept redirect, "
              f"each to its picture); {len(visitor.refused)} failed connections in {len(spells)} spells: "
              + ("; ".join(f"{step}: {seconds} s ({n})" for step, seconds, n in spells) or "none")
              + f"; {len(visitor.unavailable)} keyed 503s in {len(waits)} spells: "
              + ("; ".join(f"{step}: {seconds} s ({n})" for step, seconds, n in waits) or "none"))
    # only the steps that replace the sidecar make keyed visitors wait; monitoring and a renewal do not
    assert not [w for w in waits if w[0] in ("monitoring", "renewal")], waits
    assert not visitor.faults, visitor.faults[:10]


def _trusted(ca):
    try:
        return request("/?s=64", trust=ca)[0] == 302
    except ssl.SSLError:
        return False
