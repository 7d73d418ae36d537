"""The Nginx configuration itself, on the loopback stack: clean `nginx -t`,
the template, the generated fallback map, logs, timeouts, keepalive."""
import http.client
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from stack.client import get
from imageset import parse_manifest, read_manifest
from imageset.nginx import template_data
from stack.stacks import NGINX_DIR, REPO, load_renderer

RENDER = NGINX_DIR / "render.py"
from imageset.buckets import table as bucket_table  # the writer's bucket table


# Real `nginx -V` texts (nginx-V/*.txt say where they came from): what the template decides from.
BUILD = {p.stem: p.read_text() for p in (Path(__file__).parent / "nginx-V").glob("*.txt")}


def small_manifest(foxes=2, sizes=(32, 64), formats=("avif", "webp", "png"), tops=None, default=None):
    """A manifest in images/manifest.tsv's format (v2), for a small made-up set; tops: {fox: its
    largest size} for pictures whose ladder stops lower; default: the default size (else the largest)."""
    real = (REPO / "images" / "manifest.tsv").read_text().splitlines()
    lines = [line for line in real if line.startswith(("format\t", "keyed\t"))]
    lines = [line for line in lines if line.split("\t")[1] in formats or line.startswith("keyed")]
    lines.append(f"default\t{default or max(sizes)}")
    for fox in range(1, foxes + 1):
        for size in sizes:
            if size > (tops or {}).get(fox, size):
                continue
            for fmt in formats:
                lines.append(f"image\ta/Renard-{fox}-{size}.{fox:05d}{size:05d}.{fmt}\t{fox}\t{size}\t{fmt}")
        lines.append(f"legacy\tRenard-{fox}.png\t{fox}\t{(tops or {}).get(fox, max(sizes))}\tpng")
    lines.append("buckets\t" + " ".join(map(str, bucket_table([f"Renard-{n}" for n in range(1, foxes + 1)]))))
    return "# a small set for the tests\n" + "\n".join(lines) + "\n"


REQUIRED = {
    "avatar_server_name": "avatar.example.org",
    "avatar_tls_certificate": "/etc/ssl/fullchain.pem",
    "avatar_tls_certificate_key": "/etc/ssl/privkey.pem",
    "avatar_images_root": "/srv/fox-avatar/images",
    "avatar_image_set": template_data(parse_manifest(small_manifest())),
    "avatar_nginx_build": BUILD["debian-12"],
}


# --- nginx -t -------------------------------------------------------------------

def test_nginx_t_is_clean_without_warnings(loopback):
    out = subprocess.run(loopback.nginx_args("-t"), capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert "test is successful" in out.stderr
    assert not re.search(r"\[(warn|emerg|alert|crit|error)\]", out.stderr), out.stderr


def test_running_nginx_logged_no_warnings(loopback):
    text = "".join(p.read_text() for p in loopback.logs.glob("*error*.log"))
    text += (loopback.logs / "nginx.stderr").read_text()
    assert not re.search(r"\[(warn|emerg|alert|crit)\]", text), text


# --- the per-deployment template -----------------------------------------------------

def listens(text):
    return re.findall(r"^\s*listen (.*);$", text, re.M)


def alt_svc_map(text):
    return re.search(r"^map \S+ \$avatar_alt_svc \{\n?(.*?)\}", text, re.S | re.M).group(1)


def test_debian_12_nginx_gets_listen_http2_classic_groups_and_no_tickets():
    text = load_renderer()({**REQUIRED, "avatar_nginx_build": BUILD["debian-12"]})
    assert listens(text) == ["*:80", "[::]:80", "*:443 ssl http2", "[::]:443 ssl http2"]
    assert "http2 on;" not in text and "quic" not in text
    assert re.findall(r"^\s*ssl_ecdh_curve (\S+);$", text, re.M) == ["X25519:prime256v1:secp384r1"]
    assert re.search(r"^\s*ssl_session_tickets off;$", text, re.M)
    assert alt_svc_map(text).strip() == 'default "";'
    assert 'map "" $avatar_https_port { default ""; }' in text
    assert "server 127.0.0.1:8080;" in text
    assert "set $avatar_images_max_age 604800;" in text


def test_debian_13_nginx_gets_http2_on_quic_per_address_and_mlkem_first():
    text = load_renderer()({**REQUIRED, "avatar_nginx_build": BUILD["debian-13"],
                            "avatar_https_redirect_port": 8443,
                            "avatar_upstream_servers": ["app:8080", "app2:8080"],
                            "avatar_images_max_age": 2592000})
    assert listens(text) == ["*:80", "[::]:80", "*:443 ssl", "*:443 quic reuseport",
                             "[::]:443 ssl", "[::]:443 quic reuseport"]
    assert re.search(r"^\s*http2 on;$", text, re.M)
    assert re.findall(r"^\s*ssl_ecdh_curve (\S+);$", text, re.M) == [
        "X25519MLKEM768:X25519:prime256v1:secp384r1"]
    assert "ssl_session_tickets" not in text
    # Alt-Svc names the port the browser sees: the redirect's ($avatar_https_port ":8443").
    assert 'map "" $avatar_https_port { default ":8443"; }' in text
    alt = alt_svc_map(text)
    assert """'h3=":443"; ma=86400'""" in alt and """'h3=":$avatar_alt_svc_port"; ma=86400'""" in alt
    assert "server app:8080;" in text and "server app2:8080;" in text
    assert "set $avatar_images_max_age 2592000;" in text


def test_http3_false_on_debian_13_drops_quic_and_alt_svc_but_keeps_the_pq_groups():
    text = load_renderer()({**REQUIRED, "avatar_nginx_build": BUILD["debian-13"],
                            "avatar_http3": False, "avatar_listen_addresses": ["*"]})
    assert listens(text) == ["*:80", "*:443 ssl"]
    assert "quic" not in text and alt_svc_map(text).strip() == 'default "";'
    assert "ssl_ecdh_curve X25519MLKEM768:X25519:prime256v1:secp384r1;" in text


def test_render_refuses_a_build_text_without_the_nginx_version_line_in_one_line():
    text = BUILD["debian-13"].replace("nginx version: nginx/1.26.3\n", "")
    out = subprocess.run([sys.executable, str(RENDER), "--images", str(REPO / "images"),
                          *(f"{k}={v}" for k, v in REQUIRED.items() if k != "avatar_image_set"),
                          f"avatar_nginx_build={text}"], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "avatar_nginx_build" in out.stderr, out.stderr


def test_template_takes_the_upstream_servers_from_a_pool_directory_when_given_one():
    """Ansible's proxies: one file per app host, so a rolling upgrade can mark one down."""
    text = load_renderer()({**REQUIRED, "avatar_upstream_pool": "/etc/nginx/fox-avatar-pool"})
    upstream = re.search(r"^upstream avatar_app \{\n(.*?)^\}", text, re.S | re.M).group(1)
    directives = [line.strip() for line in upstream.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert directives == ["include /etc/nginx/fox-avatar-pool/*.conf;",
                          "keepalive 128;", "keepalive_requests 10000;", "keepalive_timeout 30s;"]


def test_render_names_a_missing_variable_in_one_line():
    args = [f"{k}={v}" for k, v in REQUIRED.items() if k not in ("avatar_images_root", "avatar_image_set")]
    out = subprocess.run([sys.executable, str(RENDER), "--images", str(REPO / "images"), *args],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "avatar_images_root" in out.stderr, out.stderr


# --- the image map and the fallback, rendered from the manifest ----------------------

def run_render(*args):
    return subprocess.run([sys.executable, str(RENDER), *args,
                           *(f"{k}={v}" for k, v in REQUIRED.items() if k != "avatar_image_set")],
                          capture_output=True, text=True)


def image_dir(tmp_path, text):
    (tmp_path / "manifest.tsv").write_text(text)
    (tmp_path / "a").mkdir()
    for path in read_manifest(tmp_path, check_files=False).paths():
        (tmp_path / path).write_bytes(b"x")
    (tmp_path / "draw.py").write_bytes(b"x")
    return tmp_path


def test_served_uris_and_fallback_answers_are_exactly_the_manifests(tmp_path):
    m = read_manifest(image_dir(tmp_path, small_manifest(foxes=3, sizes=(32, 64, 128))))
    out = run_render("--images", str(tmp_path))
    assert out.returncode == 0, out.stderr
    served = dict(re.findall(r"^\s+/(\S+) (image|legacy);$", out.stdout, re.M))
    assert served == {e.path: e.kind for e in m.images + m.legacy}
    fallback = dict(re.findall(r'^\s+"(\d+ \d+ \w+)" /(\S+);$', out.stdout, re.M))
    assert fallback == {f"{e.fox} {e.size} {e.fmt}": e.path for e in m.images}
    keyed = split_block(out.stdout, "avatar_keyed_fox")
    assert [share for share, _ in keyed] == ["0.01%"] * 9999 + ["*"], "10,000 buckets of 0.01 %"
    assert [int(fox) for _, fox in keyed] == m.buckets
    random = split_block(out.stdout, "avatar_random_fox")
    assert [int(fox) for _, fox in random] == m.foxes
    shares = [float(s[:-1]) for s, _ in random if s != "*"]
    assert random[-1][0] == "*" and len(set(shares)) == 1 and sum(shares) < 100
    size_map = map_block(out.stdout, "avatar_root_size")
    sizes = dict(re.findall(r"^\s+(\d+) (\d+);$", size_map, re.M))
    assert {int(n): int(s) for n, s in sizes.items()} == {n: next(s for s in m.sizes if s >= n) for n in range(129)}
    assert f"    default {m.default_size};\n" in size_map and '    "~^[0-9]+$" 128;\n' in size_map
    # /avatar/ (GravatarSize.java): 1..2048 snap up (the largest above the ladder), else 80 px -> 128.
    gravatar = map_block(out.stdout, "avatar_gravatar_size")
    assert {int(n): int(s) for n, s in re.findall(r"^\s+(\d+) (\d+);$", gravatar, re.M)} == {
        n: next((s for s in m.sizes if s >= n), 128) for n in range(1, 2049)}
    assert "    default 128;\n" in gravatar


def map_block(conf, variable):
    """The body of the map that sets $variable."""
    return re.search(r"^map \S+ \$" + variable + r" \{\n(.*?)^\}", conf, re.S | re.M).group(1)


def split_block(conf, variable):
    """The (share, value) lines of the split_clients block that sets $variable."""
    block = re.search(r'^split_clients "\S+" \$' + variable + r" \{\n(.*?)^\}", conf, re.S | re.M).group(1)
    return re.findall(r"^\s*([\d.]+%|\*)\s+(\S+);$", block, re.M)


def test_a_picture_whose_ladder_stops_lower_answers_its_largest_above_it_and_the_default_is_the_manifests(tmp_path):
    m = read_manifest(image_dir(tmp_path, small_manifest(foxes=3, sizes=(32, 64, 128, 256), tops={2: 64},
                                                         default=128)))
    out = run_render("--images", str(tmp_path))
    assert out.returncode == 0, out.stderr
    fallback = dict(re.findall(r'^\s+"(\d+ \d+ \w+)" /(\S+);$', out.stdout, re.M))
    assert fallback == {f"{fox} {size} {fmt}": m.answer(fox, size, fmt)[1:]
                        for fox in m.foxes for size in m.sizes for fmt in ("avif", "webp", "png")}
    assert fallback["2 256 webp"] == fallback["2 64 webp"] and fallback["1 256 webp"].startswith("a/Renard-1-256.")
    size_map = map_block(out.stdout, "avatar_root_size")
    assert "    default 128;\n" in size_map and '    "~^[0-9]+$" 256;\n' in size_map


def test_render_refuses_a_missing_manifest_or_file_in_one_line(tmp_path):
    out = run_render("--images", str(tmp_path))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--images" in out.stderr, out.stderr
    image_dir(tmp_path, small_manifest())
    (tmp_path / "a" / "Renard-2-64.0000200064.webp").unlink()
    out = run_render("--images", str(tmp_path))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "missing" in out.stderr, out.stderr


# --- behaviour visible only from inside ---------------------------------------------

def access_lines(stack, marker):
    return [line for line in stack.access_log().splitlines() if marker in line]


def test_acme_challenge_file_is_served_over_http(loopback):
    d = loopback.acme_webroot / ".well-known" / "acme-challenge"
    d.mkdir(parents=True, exist_ok=True)
    (d / "tok-en_123").write_text("tok-en_123.thumbprint")
    r = get(loopback, "/.well-known/acme-challenge/tok-en_123", https=False)
    assert r.status == 200 and r.body == b"tok-en_123.thumbprint"
    assert r.header("Content-Type") == "text/plain"


def test_images_and_unknown_paths_never_reach_java(loopback):
    for path in ["/Renard-1.png?x=java-check", "/Renard-999.png?x=java-check", "/healthz?x=java-check"]:
        get(loopback, path)
    time.sleep(0.2)
    lines = access_lines(loopback, "x=java-check")
    assert len(lines) == 3 and all('ua="-"' in line for line in lines), lines


def test_avatar_url_is_passed_to_the_sidecar(loopback):
    get(loopback, "/?x=proxied-check")
    time.sleep(0.2)
    (line,) = access_lines(loopback, "x=proxied-check")
    assert f'ua="127.0.0.1:{loopback.app_port}" us="302"' in line and "fallback=0" in line


def test_gravatar_url_is_passed_to_the_sidecar_over_the_same_pool(loopback):
    h = "0bc83cb571cd1c50ba6f3e8a78ef1346"
    for path in [f"/avatar/{h}.png?x=gravatar-check", "/avatar/junk?x=gravatar-check"]:
        assert get(loopback, path).status == 302
    time.sleep(0.2)
    lines = access_lines(loopback, "x=gravatar-check")
    assert len(lines) == 2 and all(f'ua="127.0.0.1:{loopback.app_port}" us="302"' in line and "fallback=0" in line
                                   for line in lines), lines


def test_upstream_connections_are_kept_alive(loopback):
    for _ in range(20):
        assert get(loopback, "/").status == 302
    port = f"{loopback.app_port:04X}"
    established = [line for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
                   if line.split()[2].endswith(":" + port) and line.split()[3] == "01"]
    # Without keepalive Nginx closes each upstream connection after the response.
    assert 1 <= len(established) <= 16, established


def test_slow_sidecar_gets_the_fallback_after_the_read_timeout(loopback):
    loopback.pause_app()
    try:
        start = time.monotonic()
        r = get(loopback, "/?x=slow-check")
        took = time.monotonic() - start
    finally:
        loopback.resume_app()
    assert r.status == 302 and b"<html>" in r.body and r.header("Cache-Control") == "no-store"
    assert 1.5 < took < 5, took
    time.sleep(0.2)
    (line,) = [l for l in loopback.fallback_log().splitlines() if "x=slow-check" in l]
    assert 'us="504"' in line and "fallback=1" in line
    assert "upstream timed out" in (loopback.logs / "error.log").read_text()
    r = get(loopback, "/?x=after-slow")
    assert r.status == 302 and r.body == b""


def test_stopped_sidecar_is_logged_as_fallback(loopback):
    loopback.stop_app()
    try:
        r = get(loopback, "/?x=down-check")
    finally:
        loopback.start_app()
    assert r.status == 302
    time.sleep(0.2)
    (line,) = [l for l in loopback.fallback_log().splitlines() if "x=down-check" in l]
    assert 'us="502"' in line and "fallback=1" in line
    assert "connect() failed" in (loopback.logs / "error.log").read_text()


def test_stopping_sidecars_503_gets_the_fallback(loopback):
    """A sidecar that got SIGTERM finishes what is in flight and answers any new request 503
    (Undertow's GracefulShutdownHandler) until it closes. No client sees that 503: Nginx tries
    another sidecar, or the fallback answers."""
    import http.client
    import signal
    import socket
    # A POST whose body never ends keeps one exchange in flight: the sidecar's graceful stop
    # waits for it (at most 5 s), which holds it in its "stopping" state long enough to ask it.
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
    time.sleep(0.2)
    (line,) = [l for l in loopback.fallback_log().splitlines() if "x=stopping-check" in l]
    assert 'us="503"' in line and "fallback=1" in line, line
