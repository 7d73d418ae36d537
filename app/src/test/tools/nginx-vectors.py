#!/usr/bin/env python3
"""Reference vectors for the sidecar's tests, computed by a real nginx (Debian 12's nginx 1.22.1, x86-64).

Writes, into the directory given as the only argument:
  murmur2-nginx.tsv  key, ngx_murmur_hash2(key) (hex), the bucket `split_clients "$arg_u"` picks among
                     10,000 parts of 0.01 % (manifest v2's key buckets: 9,999 lines "0.01% B;" and
                     "* 9999;"), as a running nginx answered. Besides fixed and random keys, keys whose
                     hash sits on either side of a part boundary and in the last part's overhang. Last, the
                     variant `split_clients "${arg_u}#v"` picks among 80 parts of 1.25 % (the keyed
                     identities: 79 lines "1.25% V;" and "* 79;").
  args-nginx.tsv     raw query string, then nginx's $arg_s, $arg_size and $arg_u for it.

The hash column comes from nginx's own machine code: ngx_murmur_hash2 is an exported symbol of
/usr/sbin/nginx and a leaf function (no calls, no data, relative jumps only), so its bytes are copied
into an executable page and called through ctypes. The fox and $arg_ columns come from an nginx started
as a non-daemon on a scratch port with its own prefix in /tmp, spoken to over raw sockets.

Usage: python3 nginx-vectors.py OUTDIR   (x86-64 Linux, /usr/sbin/nginx, readelf)
"""
import ctypes
import mmap
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

NGINX = "/usr/sbin/nginx"


def nginx_murmur():
    syms = subprocess.run(["readelf", "-Ws", "--dyn-syms", NGINX], check=True, capture_output=True,
                          text=True).stdout
    addr = size = None
    for line in syms.splitlines():
        f = line.split()
        if len(f) >= 8 and f[7].startswith("ngx_murmur_hash2") and f[3] == "FUNC":
            addr, size = int(f[1], 16), int(f[2])
    phdrs = subprocess.run(["readelf", "-lW", NGINX], check=True, capture_output=True, text=True).stdout
    offset = None
    for line in phdrs.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            off, vaddr, filesz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
            if vaddr <= addr < vaddr + filesz:
                offset = addr - vaddr + off
    with open(NGINX, "rb") as fh:
        fh.seek(offset)
        code = fh.read(size)
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    buf = ctypes.c_char.from_buffer(page)
    fn = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t)(ctypes.addressof(buf))
    nginx_murmur.keep = (page, buf)
    return lambda b: fn(b, len(b))


PART = 0xFFFFFFFF // 10000     # 429496: a 0.01 % part of split_clients


def buckets():
    return "".join(f"    0.01% {b};\n" for b in range(9999)) + "    * 9999;\n"


VARIANTS = 80


def variants():
    return "".join(f"    {100 / VARIANTS:g}% {v};\n" for v in range(VARIANTS - 1)) + f"    * {VARIANTS - 1};\n"


def boundary_keys(murmur):
    """Keys whose hash is the first or last of a part, or in the last part's overhang (>= 9999 parts)."""
    found = {"first": [], "last": [], "overhang": []}
    i = 0
    while any(len(v) < 3 for v in found.values()) and i < 20_000_000:
        key = f"edge-{i}"
        h = murmur(key.encode("ascii"))
        kind = ("overhang" if h >= 9999 * PART else "first" if h % PART == 0
                else "last" if h % PART == PART - 1 else None)
        if kind and len(found[kind]) < 3:
            found[kind].append(key)
        i += 1
    return [k for v in found.values() for k in v]


CONF = """
daemon off;
master_process off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {prefix}/body; proxy_temp_path {prefix}/proxy; fastcgi_temp_path {prefix}/fcgi;
  uwsgi_temp_path {prefix}/uwsgi; scgi_temp_path {prefix}/scgi;
  split_clients "$arg_u" $bucket {{
{buckets}  }}
  split_clients "${{arg_u}}#v" $variant {{
{variants}  }}
  server {{
    listen 127.0.0.1:{port};
    location = /bucket {{ return 200 "$bucket\\t$variant"; }}
    location = /args {{ return 200 "$arg_s\\t$arg_size\\t$arg_u"; }}
  }}
}}
"""


def get(port, target):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(f"GET {target} HTTP/1.0\r\nHost: x\r\n\r\n".encode("ascii"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), (target, head)
    return body.decode("ascii")


def keys():
    fixed = ["", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "0", "1", "fox", "Fox",
             "hello@example.com", "hello%40example.com", "a=b", "!", "~", "~~~~", "%", "%25",
             "0123456789abcdef0123456789abcdef", "x" * 127, "y" * 128,
             "!$'()*+,-./:;=?@[]^_`{|}~", "AZaz09"]
    rng = random.Random(11)
    printable = [chr(c) for c in range(0x21, 0x7F) if chr(c) not in "&#"]
    hexdigits = "0123456789abcdef"
    fixed += ["".join(rng.choice(hexdigits) for _ in range(32)) for _ in range(20)]   # md5-like
    fixed += ["".join(rng.choice(hexdigits) for _ in range(64)) for _ in range(10)]   # sha256-like
    fixed += ["".join(rng.choice(printable) for _ in range(rng.randint(1, 128))) for _ in range(150)]
    return fixed


QUERIES = ["", "s=64", "S=64", "s=", "s=&size=64", "size=64", "SIZE=48", "s=64&s=128", "x=1&s=5", "s",
           "s&s=7", "ss=1&s=2", "s=1=2", "&s=3", "s=%36%34", "u=a%40b", "u=a@b", "U=Key", "u=", "u",
           "xu=1&u=2", "u=1&u=2", "size=48&s=", "s=64px", "s=-5", "s=6.4", "s=0", "s=0064",
           "s=99999999999999999999", "foo&bar=baz&s=96", "s=32;u=x", "s=32&&u=x", "=&s=1", "s=1&",
           "size=32&s=128", "sizes=1&size=2", "u=x&s=64&u=y&size=9", "a=s=1&s=2", "S=1&s=2", "uU=1&Uu=2&U=3",
           "s=64&u=abc", "u=a=b=c", "s==64", "s=%2564", "u=%20", "u=+", "size", "size=", "s=128&size=32"]


def main():
    out = sys.argv[1]
    murmur = nginx_murmur()
    prefix = tempfile.mkdtemp(prefix="nginx-vectors-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with open(os.path.join(prefix, "nginx.conf"), "w") as fh:
        fh.write(CONF.format(prefix=prefix, port=port, buckets=buckets(), variants=variants()))
    proc = subprocess.Popen([NGINX, "-p", prefix, "-c", os.path.join(prefix, "nginx.conf"),
                             "-e", os.path.join(prefix, "error.log")])
    try:
        for _ in range(100):
            try:
                get(port, "/args")
                break
            except OSError:
                time.sleep(0.05)
        with open(os.path.join(out, "murmur2-nginx.tsv"), "w") as fh:
            fh.write("# generated by app/src/test/tools/nginx-vectors.py (nginx 1.22.1); do not edit.\n"
                     "# key\tngx_murmur_hash2 (hex)\tsplit_clients bucket of 10,000\tvariant of 80 (key#v)\n")
            for key in keys() + boundary_keys(murmur):
                bucket = get(port, "/bucket?u=" + key)
                fh.write(f"{key}\t{murmur(key.encode('ascii')):08x}\t{bucket}\n")
        with open(os.path.join(out, "args-nginx.tsv"), "w") as fh:
            fh.write("# raw query\t$arg_s\t$arg_size\t$arg_u (nginx 1.22.1; see "
                     "app/src/test/tools/nginx-vectors.py)\n")
            for q in QUERIES:
                fh.write(f"{q}\t{get(port, '/args?' + q)}\n")
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(prefix)


if __name__ == "__main__":
    main()
