"""The benchmark's settings: where things are, the mode and the knobs, read once from the environment.
bench/bench.py documents them (--help); docs/bench.md lists the knobs with their defaults."""
import hashlib
import os

from loopback import JAR, JVM_OPTIONS, REPO as ROOT  # noqa: F401 (the stack's paths, one owner)

BENCH = ROOT / "bench"
DOCS = ROOT / "docs"
RAW = DOCS / "bench.json"          # the raw results of the last run of each mode; the report is made from it

SMOKE = os.environ.get("BENCH_SMOKE") == "1"
TUNE = os.environ.get("TUNE") == "1"
SOAK = os.environ.get("SOAK") == "1"
CONNECTIONS = os.environ.get("CONNECTIONS") == "1"

_ncpu = len(os.sched_getaffinity(0))
SERVER_CPU = int(os.environ.get("BENCH_SERVER_CPU", "1" if _ncpu > 1 else "0"))
CLIENT_CPU = int(os.environ.get("BENCH_CLIENT_CPU", "0"))
IMAGES = os.environ.get("BENCH_IMAGES", str(ROOT / "images"))
# BENCH_ONLY=KEY,KEY: a partial run of those candidates only (their keys: candidates.CANDIDATES), saved
# under its own key of the raw file ("partial") and rendered in its own section; no JDK comparison.
ONLY = [k for k in os.environ.get("BENCH_ONLY", "").replace(",", " ").split() if k]

if SMOKE:
    DURATION, WARMUP, ROUNDS, CONCS, AB_N, STARTS = 1, 0, 1, [10], 2000, 1
else:
    DURATION = int(os.environ.get("BENCH_DURATION", "8"))
    WARMUP = 5
    ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
    CONCS = [10, 100]
    AB_N = 100_000
    STARTS = 10
# TUNE=1: seconds per wrk run and of the warm-up, per flag set and round.
TUNE_DURATION = 1 if SMOKE else int(os.environ.get("BENCH_DURATION", "5"))
TUNE_WARMUP = 0 if SMOKE else 2
# SOAK=1: requests to send, time limit, seconds per wrk chunk, seconds between memory samples.
SOAK_REQUESTS = int(os.environ.get("SOAK_REQUESTS", "20000" if SMOKE else "10000000"))
SOAK_MAX_S = 60 * float(os.environ.get("SOAK_MAX_MINUTES", "1" if SMOKE else "40"))
SOAK_CHUNK_S = 2 if SMOKE else 30
# ... and then the compose app image at its memory limit, for this long.
SOAK_LIMIT_S = 60 * float(os.environ.get("SOAK_LIMIT_MINUTES", "0.2" if SMOKE else "10"))
SOAK_INTERVAL_S = 1 if SMOKE else 5

HOST = "127.0.0.1"
TLS_NAME = "localhost"  # server_name and certificate name (one server per port: any SNI/Host lands on it)

# The avatar URL: the sidecar with `?s=64&u=KEY` and a browser's Accept, beside the plain `/`; and
# the bytes a page downloads to show a 64 px avatar, through the full stack, over BYTES_SAMPLES keys.
CHROMIUM_ACCEPT = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"  # Chromium's for <img>
AVATAR_SIZE = 64
AVATAR_KEY = hashlib.md5(b"fox@example.org").hexdigest()   # 32 hex digits, as in a Gravatar URL
AVATAR_PATH = f"/?s={AVATAR_SIZE}&u={AVATAR_KEY}"
# The Gravatar URL, as Gitea's Libravatar library and most apps send it (Gravatar's default size).
GRAVATAR_PATH = f"/avatar/{AVATAR_KEY}?s=80"
BYTES_SAMPLES = 21 if SMOKE else 210
