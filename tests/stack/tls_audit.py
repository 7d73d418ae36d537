"""The TLS audit: Debian's testssl against a stack's HTTPS port, its JSON findings checked by id and
severity: protocols (-p), cipher categories (-s), forward secrecy and groups (-f), about 40 s.
tests/nginx runs it on Debian 12's Nginx, tests/compose on Debian 13's."""
import json
import re
import shutil
import subprocess

import pytest

WEAK_PROTOCOLS = ("SSLv2", "SSLv3", "TLS1", "TLS1_1")
WEAK_CIPHER_LISTS = ("cipherlist_NULL", "cipherlist_aNULL", "cipherlist_EXPORT", "cipherlist_LOW",
                     "cipherlist_3DES_IDEA", "cipherlist_AVERAGE")   # AVERAGE: the CBC ones
ELLIPTIC_GROUPS = {"X25519MLKEM768", "X25519", "prime256v1", "secp384r1"}   # Mozilla 6.0
BAD_SEVERITIES = {"LOW", "MEDIUM", "HIGH", "CRITICAL"}
# Reports about testssl's own OpenSSL, not about the server.
ABOUT_THE_CLIENT = {"engine_problem"}


def run_testssl(host, addr, port, json_file):
    """{id: (severity, finding)} of one testssl run (skip when testssl is not installed)."""
    testssl = shutil.which("testssl") or shutil.which("testssl.sh")
    if not testssl:
        pytest.skip("testssl is not installed (Debian package testssl.sh; the run.sh scripts install it)")
    out = subprocess.run([testssl, "--quiet", "--warnings", "batch", "--color", "0", "-p", "-s", "-f",
                          "--ip", addr, "--jsonfile", str(json_file), f"{host}:{port}"],
                         capture_output=True, text=True, timeout=300)
    assert json_file.exists(), f"testssl wrote no JSON (exit {out.returncode}): {out.stderr[-1000:]}"
    return {f["id"]: (f["severity"], f["finding"]) for f in json.loads(json_file.read_text())}


def assert_no_weak_tls(findings):
    for name in WEAK_PROTOCOLS + WEAK_CIPHER_LISTS:
        assert findings.get(name, ("", ""))[1] == "not offered", (name, findings.get(name))
    assert findings["cipherlist_STRONG"][1].startswith("offered"), findings["cipherlist_STRONG"]
    # testssl 3.0 says PFS_*, 3.2 FS_*
    ciphers = (findings.get("FS_ciphers") or findings["PFS_ciphers"])[1].split()
    assert ciphers and all(re.fullmatch(r"TLS_\w+|ECDHE-(ECDSA|RSA)-(AES\d+-GCM-SHA\d+|CHACHA20-POLY1305)", c)
                           for c in ciphers), ciphers
    groups = set((findings.get("FS_ECDHE_curves") or findings["PFS_ECDHE_curves"])[1].split())
    assert groups and groups <= ELLIPTIC_GROUPS, groups
    assert not [i for i in findings if re.match(r"P?FS_DH|DH_groups|DHE|LOGJAM", i)], \
        "finite-field DH offered: " + str({i: f for i, f in findings.items() if "DH" in i})
    bad = {i: f for i, f in findings.items() if f[0] in BAD_SEVERITIES and i not in ABOUT_THE_CLIENT}
    assert not bad, bad
