"""The default scenario's verifier: one host (proxy and app), its network, its certificate.

Molecule runs pytest with the files of one stage (verify tests/fresh, tests/converged,
tests/changes/<suite>); tests/pytest.ini makes this directory the root, so every stage gets these
fixtures. The shared helpers are ansible/molecule/shared/foxmol.py; what this scenario's tests look
at on the host (HTTP/3, listeners, certificates) is tests/probes.py.
"""
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
# foxmol (the shared helpers), tests/stack (the shared HTTP suite's own custom-set checks) and
# the repository root and tools/ (the image set's reader imageset/ and the loopback stack, which
# tests/stack imports)
for path in (HERE.parents[1] / "shared", REPO / "tests", REPO, REPO / "tools"):
    sys.path.insert(0, str(path))

import foxmol  # noqa: E402
import probes  # noqa: E402
from probes import SITE  # noqa: E402
from testinfra.utils.ansible_runner import AnsibleRunner  # noqa: E402


@pytest.fixture(scope="session")
def host_name():
    """The scenario's one host (a container named by molecule.yml), from Molecule's inventory."""
    hosts = AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"]).get_hosts("all")
    assert len(hosts) == 1, f"the default scenario has one host, the inventory lists {hosts}"
    return hosts[0]


@pytest.fixture(scope="session")
def network(host_name):
    """The scenario's own network (molecule.yml), where Debian 13's client container joins."""
    return foxmol.host_network(host_name)


@pytest.fixture(scope="session")
def addr(host_name, network):
    return foxmol.host_ip(host_name, network)


@pytest.fixture(scope="session")
def suite(host_name):
    """The host's Debian release (bookworm or trixie): FOX_SUITE's image, read on the host itself."""
    return foxmol.host_exec(host_name, "sh", "-c", ". /etc/os-release && echo $VERSION_CODENAME")


@pytest.fixture(scope="session")
def modern(suite):
    """Debian 13's Nginx and OpenSSL: HTTP/3 and X25519MLKEM768 (Debian 12's: neither)."""
    return suite == "trixie"


@pytest.fixture(scope="session")
def molecule_converge():
    """Molecule's converge step (the first run of site.yml on the fresh host), from its log."""
    return foxmol.first_converge()


def _server_ca(host_name):
    path = foxmol.workdir("certs") / f"{host_name}-served.pem"
    path.write_text(foxmol.host_exec(host_name, "cat", "/etc/ssl/fox-avatar/fullchain.pem") + "\n")
    return path


@pytest.fixture
def server_ca(host_name):
    """The host's certificate as it is now (self-signed: its own CA), in a file for the clients."""
    return _server_ca(host_name)


@pytest.fixture(scope="module")
def server_ca_module(host_name):
    """The same, read once for a module's tests (its fixtures change the host)."""
    return _server_ca(host_name)


@pytest.fixture(scope="session")
def server_ca_session(host_name):
    """The same, read once for a stage whose runs keep the certificate (tests/changes/trixie)."""
    return _server_ca(host_name)


@pytest.fixture(scope="session")
def files_mode():
    """files mode's settings with a certificate made here (a test CA and a leaf for the site):
    {"vars": the extra vars, "ca": the CA's file, "cert": the leaf's file}. The changes after files
    mode keep these settings (the host stays in files mode)."""
    import subprocess
    d = foxmol.workdir("files-mode")
    steps = [
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=fox-avatar files-mode test CA"],
        ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "privkey.pem", "-out", "leaf.csr",
         "-subj", f"/CN={SITE}"],
        ["openssl", "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
         "-CAcreateserial", "-days", "2", "-extfile", "leaf.ext", "-out", "fullchain.pem"],
    ]
    (d / "leaf.ext").write_text(f"subjectAltName=DNS:{SITE}\nextendedKeyUsage=serverAuth\n"
                                "basicConstraints=CA:FALSE\n")
    for cmd in steps:
        done = subprocess.run(cmd, cwd=d, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{' '.join(cmd)}: {done.stderr}"
    return {"vars": {"fox_avatar_tls_mode": "files",
                     "fox_avatar_tls_cert_src": str(d / "fullchain.pem"),
                     "fox_avatar_tls_key_src": str(d / "privkey.pem")},
            "ca": d / "ca.pem", "cert": d / "fullchain.pem"}
