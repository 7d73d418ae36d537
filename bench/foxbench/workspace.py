"""What a run's candidates share: the images and their manifest, a temp dir (removed at exit) and the
throw-away certificate of the Nginx candidates."""
import atexit
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from imageset import ManifestError, read_manifest

from .processes import die
from .settings import IMAGES, JAR


class Workspace:
    """A run's temp dir (removed at exit), the images and the throw-away certificate of the Nginx
    candidates."""

    def __init__(self):
        self.images = Path(IMAGES).resolve()
        try:
            self.manifest = read_manifest(self.images)
        except ManifestError as e:
            die(f"BENCH_IMAGES: {e} (run `make images`)")
        # The baselines (the blog's PHP and 33-line Java) pick among the files whose whole name
        # matches a rule: the manifest's legacy names, the files they served.
        self.baseline_rule = "|".join(re.escape(e.path) for e in self.manifest.legacy)
        if not JAR.is_file():
            die(f"{JAR} missing: run `make build`")
        self.tmp = Path(tempfile.mkdtemp(prefix="fox-bench-"))
        self.tmp.chmod(0o755)  # readable by the Nginx workers whatever their user (tools/loopback.py: root under root)
        atexit.register(shutil.rmtree, self.tmp, ignore_errors=True)
        self.cert = make_cert(self.tmp)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def make_cert(d):
    """A throw-away self-signed ECDSA certificate for localhost / 127.0.0.1 (same for every candidate)."""
    crt, key = d / "bench.crt", d / "bench.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(crt)],
                   check=True, capture_output=True)
    return crt, key
