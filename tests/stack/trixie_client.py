"""Debian 13's clients (curl with HTTP/3, OpenSSL 3.5) for what Debian 12's cannot do, each run a
fresh `docker run --rm` of tools/docker.sh's image on the stack's client network, with the stack's CA
at /ca.pem; the host name is resolved by the clients' own flags (SNI, Host, the certificate check)."""
import os
import shutil
import subprocess

import pytest

from loopback import REPO

CA_IN_CONTAINER = "/ca.pem"


def client_image():
    """AVATAR_TRIXIE_CLIENT (the run.sh scripts set it), else tools/docker.sh makes the image.
    No Docker: skip (under CI=true a failure)."""
    name = os.environ.get("AVATAR_TRIXIE_CLIENT")
    if not shutil.which("docker"):
        pytest.skip("docker is not installed: no Debian 13 client (tools/docker.sh trixie_client_ready)")
    if name:
        if subprocess.run(["docker", "image", "inspect", name], capture_output=True).returncode != 0:
            pytest.fail(f"AVATAR_TRIXIE_CLIENT: no such image: {name}", pytrace=False)
        return name
    out = subprocess.run(["bash", "-c", ". tools/docker.sh && docker_engine_ready && trixie_client_ready"],
                         cwd=REPO, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0 or not out.stdout.strip():
        pytest.fail(f"tools/docker.sh trixie_client_ready failed: {out.stderr.strip()[-500:]}", pytrace=False)
    return out.stdout.split()[-1]


class TrixieClient:
    def __init__(self, stack, image):
        self.stack, self.image = stack, image

    def run(self, *argv, timeout=60):
        s = self.stack
        return subprocess.run(
            ["docker", "run", "--rm", "--network", s.client_network,
             "-v", f"{os.path.abspath(s.ca_file)}:{CA_IN_CONTAINER}:ro", self.image, *argv],
            capture_output=True, text=True, timeout=timeout)

    def curl(self, path, *flags):
        """curl PATH on the stack's HTTPS origin; returns (process, "http_version http_code")."""
        s = self.stack
        out = self.run("curl", "-sS", "--connect-timeout", "5", "--max-time", "20",
                       "--cacert", CA_IN_CONTAINER, "-o", "/dev/null",
                       "--resolve", f"{s.host}:{s.https_port}:{s.addr}",
                       "-w", "%{http_version} %{http_code}", *flags, f"{s.https_origin()}{path}")
        return out, out.stdout.strip()

    def s_client(self, *flags):
        """openssl s_client (OpenSSL 3.5) to the stack, certificate checked; its whole output."""
        s = self.stack
        out = self.run("openssl", "s_client", "-brief", "-connect", f"{s.addr}:{s.https_port}",
                       "-servername", s.host, "-CAfile", CA_IN_CONTAINER, "-verify_return_error",
                       *flags)
        return out, out.stdout + out.stderr
