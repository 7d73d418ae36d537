"""The JDK comparison of `make bench` (after the candidates; BENCH_SMOKE=1 runs it with 1 round of 1 s):
the sidecar on each JDK the deployments can have, with each way of sharing class data (the JDK's CDS
archive, AppCDS of the jar, JDK 25's AOT cache, the compose image's jlink runtime), so the JVM's floor
(start-up, RSS, req/s) is measured, not assumed. A JDK that refuses a combination is a row saying so.

JDK 17 is the Debian 12 host's own `java`; JDK 21 and 25 are Debian 13's packages, run in a container
from JDKS_IMAGE (debian:trixie-slim + openjdk-21/25-jdk-headless, made by tools/docker.sh
trixie_jdks_ready) with --network host and --cpuset-cpus on the server core, the jar, the image set and a
scratch folder mounted. Start-up is timed from the moment the JVM is exec'd (a timestamp the container's
shell writes just before `exec java`), so docker's own container start is not counted; the host JDK is
timed the same way. Each variant: a training run first when it needs an archive (start, wrk with the
avatar URL, SIGTERM: the JVM writes the archive at exit), then fresh starts (rounds alternate the
variants): time to the first 302, wrk at c=100, then RSS/PSS of the JVM."""
import os
import shutil
import subprocess
import time
from pathlib import Path

from .load import TOOLS, med
from .processes import cpu_seconds, die, free_port, log, memory_kb, spawn, stop, threads, wait_302
from .settings import AVATAR_PATH, CHROMIUM_ACCEPT, HOST, IMAGES, JAR, ROUNDS, SERVER_CPU, SMOKE, TUNE_DURATION
from .tune import no_limit, shipped_flags

JDKS_IMAGE = os.environ.get("JDKS_IMAGE", "local/fox-trixie-jdks:1")  # bench/run.sh: tools/docker.sh trixie_jdks_ready
JVM = {21: "/usr/lib/jvm/java-21-openjdk-amd64/bin/java", 25: "/usr/lib/jvm/java-25-openjdk-amd64/bin/java"}
CONC = 100


def variants(jdks):
    """(jdk, key, name, flags, training flags or None): every JDK as today, without --limit-modules (the
    JDK's default CDS archive), AppCDS of our jar; JDK 25 also its AOT cache (JEP 483/514)."""
    sh = shipped_flags()
    out = []
    for j in jdks:
        out += [(j, "today", "app/jvm.options as committed", sh, None),
                (j, "cds", "no --limit-modules (default CDS archive)", no_limit(sh), None),
                (j, "appcds", "no --limit-modules + AppCDS of the jar", no_limit(sh) + ["-XX:SharedArchiveFile={a}"],
                 no_limit(sh) + ["-XX:ArchiveClassesAtExit={a}"])]
        if j >= 25:
            out += [(j, "aot", "no --limit-modules + AOT cache", no_limit(sh) + ["-XX:AOTCache={a}"],
                     no_limit(sh) + ["-XX:AOTCacheOutput={a}"]),
                    (j, "aot-limit", "app/jvm.options + AOT cache", sh + ["-XX:AOTCache={a}"],
                     sh + ["-XX:AOTCacheOutput={a}"]),
                    # The compose image's runtime: jlink of the --limit-modules list (no java.management,
                    # so no MBeans without the flag), its own CDS archive (-Xshare:dump), then the AOT cache.
                    (j, "jlink", "jlink runtime, no --limit-modules (its CDS archive)", no_limit(sh), None),
                    (j, "jlink-aot", "jlink runtime, no --limit-modules + AOT cache",
                     no_limit(sh) + ["-XX:AOTCache={a}"], no_limit(sh) + ["-XX:AOTCacheOutput={a}"])]
    if SMOKE:  # every code path (host, container, jlink, training, a refusal) once, in well under a minute
        out = [v for v in out if v[1] in ("today", "aot-limit", "jlink-aot")]
    return out


def make_jlink(tmp, jdk):
    """The compose image's runtime, made the way app/Dockerfile makes it, in the scratch folder."""
    modules = next(f for f in shipped_flags() if f.startswith("--limit-modules=")).split("=", 1)[1]
    bindir = Path(JVM[jdk]).parent
    subprocess.run(["docker", "run", "--rm", "-v", f"{tmp}:/t", "--entrypoint", "bash", JDKS_IMAGE, "-c",
                    f"rm -rf /t/jlink-{jdk} && {bindir}/jlink --add-modules {modules} --strip-java-debug-attributes "
                    f"--no-header-files --no-man-pages --output /t/jlink-{jdk} && /t/jlink-{jdk}/bin/java -Xshare:dump "
                    f"-version >/dev/null 2>&1"], check=True, capture_output=True, timeout=300)


class Jvm:
    """One JVM start: on the host (JDK 17) or in a trixie container (21, 25). t0 = just before exec java."""

    def __init__(self, tmp, jdk, flags, tag, java=None):
        self.tmp, self.jdk, self.port = tmp, jdk, free_port()
        self.name = f"foxbench-jdk-{tag}-{self.port}"
        self.stamp = tmp / f"{self.name}.t0"
        app = ["-jar", "/j/avatar.jar", "--images", "/i", "--port", str(self.port), "--bind", HOST, "--metrics-port", "off"]
        flags = [f.replace("{d}", "/t") for f in flags]
        if jdk == 17:
            self.mounts = {"/j": JAR.parent, "/i": Path(IMAGES), "/t": tmp}
            argv = ["java", *[self.host_path(f) for f in flags], *[self.host_path(a) for a in app]]
            self.proc = spawn(["bash", "-c", 'echo "$EPOCHREALTIME" >"$0"; exec "$@"', str(self.stamp), *argv],
                              tmp / f"{self.name}.log")
        else:
            argv = ["docker", "run", "--rm", "--name", self.name, "--network", "host",
                    f"--cpuset-cpus={SERVER_CPU}", "-v", f"{JAR.parent}:/j:ro",
                    "-v", f"{Path(IMAGES).resolve()}:/i:ro",
                    "-v", f"{tmp}:/t", "--entrypoint", "bash", JDKS_IMAGE,
                    "-c", 'echo "$EPOCHREALTIME" >"$0"; exec "$@"', f"/t/{self.stamp.name}", java or JVM[jdk], *flags, *app]
            self.proc = spawn(argv, tmp / f"{self.name}.log")

    def host_path(self, arg):
        for k, v in self.mounts.items():
            arg = str(v) if arg == k else arg.replace(k + "/", f"{v}/")
        return arg

    def ready(self):
        """Seconds from exec to the first 302, and the JVM's CPU seconds then (less noisy on a busy machine)."""
        wait_302(self.port, [self.proc], time.monotonic(), 60.0)
        t302 = time.time()
        return t302 - float(self.stamp.read_text()), cpu_seconds([self.pid()])

    def pid(self):
        if self.jdk == 17:
            return self.proc.pid
        r = subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", self.name], capture_output=True,
                           text=True, check=True)
        return int(r.stdout)

    def stop(self):
        if self.jdk == 17:
            stop(self.proc, timeout=60)
        else:
            subprocess.run(["docker", "kill", "--signal", "TERM", self.name], capture_output=True)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                subprocess.run(["docker", "rm", "-f", self.name], capture_output=True)
                self.proc.wait(timeout=30)


def refusal(logfile, default="exited before answering"):
    """The JVM's own reason from its log: its first `[error]` line (JDK 25's AOT errors say why there,
    then end on "Unable to use AOT cache."), else its last line."""
    said = [x.strip() for x in logfile.read_text(errors="replace").splitlines() if x.strip()]
    errors = [x.split("]", 3)[-1].strip() if x.startswith("[") else x for x in said if "[error]" in x]
    return errors[0] if errors else (said[-1] if said else default)


def load(port, duration):
    url = f"http://{HOST}:{port}{AVATAR_PATH}"
    return TOOLS["wrk"].run(url, CONC, duration, headers={"Accept": CHROMIUM_ACCEPT})


def docker_ready():
    return shutil.which("docker") and subprocess.run(["docker", "image", "inspect", JDKS_IMAGE],
                                                     capture_output=True).returncode == 0


def run(ws, m):
    tmp = ws.tmp / "jdks"
    tmp.mkdir(parents=True, exist_ok=True)
    if not docker_ready():
        die(f"JDKS_IMAGE: no docker image {JDKS_IMAGE} (bench/run.sh makes it: tools/docker.sh trixie_jdks_ready)")
    jdks = [17, 21, 25]
    duration = TUNE_DURATION
    sets = []
    make_jlink(tmp, 25)
    for jdk, key, name, flags, train in variants(jdks):
        java = f"/t/jlink-{jdk}/bin/java" if key.startswith("jlink") else None
        s = {"jdk": jdk, "java": java, "key": key, "name": name, "flags": flags, "archive_mb": None,
             "startups": [], "cpus": [], "mems": [], "rps": []}
        if train:
            arch = f"{{d}}/{jdk}-{key}.{'aot' if 'aot' in key else 'jsa'}"
            j = Jvm(tmp, jdk, [f.replace("{a}", arch) for f in train], f"{jdk}-{key}-train", java)
            try:
                j.ready()
                load(j.port, 1 if SMOKE else 3)
            except RuntimeError:
                pass  # the JVM refused the flags: its own words below
            finally:
                j.stop()
            path = tmp / Path(arch).name
            if not path.exists():  # a result, not a failure: this JDK cannot make that archive so
                s["error"] = refusal(tmp / f"{j.name}.log", "no archive written")
                log(f"JDK {jdk} {key}: no archive: {s['error']}")
                sets.append(s)
                continue
            s["archive_mb"] = path.stat().st_size / 1e6
            s["run_flags"] = [f.replace("{a}", arch) for f in flags]
        else:
            s["run_flags"] = flags
        sets.append(s)
    runs = [s for s in sets if "error" not in s]
    for r in range(ROUNDS):
        for s in runs[r % len(runs):] + runs[:r % len(runs)]:
            if "error" in s:
                continue
            j = Jvm(tmp, s["jdk"], s["run_flags"], f"{s['jdk']}-{s['key']}", s["java"])
            try:
                try:
                    wall, cpu = j.ready()
                except RuntimeError:  # the JVM refused its archive at start (a result: the row says so)
                    s["error"] = refusal(tmp / f"{j.name}.log")
                    log(f"JDK {s['jdk']} {s['key']}: refused to start: {s['error']}")
                    continue
                s["startups"].append(wall)
                s["cpus"].append(cpu)
                s["rps"].append(load(j.port, duration)["rps"])
                time.sleep(0.5)
                pid = j.pid()
                s["mems"].append(memory_kb([pid]) + (threads([pid]),))
                log(f"round {r + 1}/{ROUNDS} JDK {s['jdk']} {s['key']}: start {s['startups'][-1]:.3f} s "
                    f"(CPU {s['cpus'][-1]:.2f} s), "
                    f"{s['rps'][-1]:,.0f} req/s, RSS {s['mems'][-1][0] / 1024:.1f} MB")
            finally:
                j.stop()
    res = {"machine": m, "mode": "smoke" if SMOKE else "full", "duration_s": duration, "rounds": ROUNDS,
           "concurrency": CONC, "image": JDKS_IMAGE, "sets": []}
    for s in sets:
        res["sets"].append({"jdk": s["jdk"], "key": s["key"], "name": s["name"], "error": s.get("error"),
                            "flags": s.get("run_flags", s["flags"]),
                            "archive_mb": s["archive_mb"], "startup_s": med(s["startups"]),
                            "startup_cpu_s": med(s["cpus"]),
                            "rps": med(s["rps"]), "rss_kb": med([x[0] for x in s["mems"]]),
                            "pss_kb": med([x[1] for x in s["mems"]]), "threads": med([x[2] for x in s["mems"]])})
    return res


def section(res):
    """The JDK table of docs/bench.md (between its bench:jdks markers)."""
    from .sections import fmt_int, fmt_mb, generated_by, machine_line
    ref = next((s for s in res["sets"] if s["jdk"] == 17 and s["key"] == "today"), res["sets"][0])
    lines = [generated_by("make bench", res), "",
             f"Machine: {machine_line(res['machine'])}.", "",
             f"The sidecar alone, one JVM at a time on the server core, each started fresh in each of "
             f"{res['rounds']} rounds (the rounds alternate the rows); per start: time from `exec java` to the "
             f"first 302, wrk {res['duration_s']} s at c={res['concurrency']} on the avatar URL, then the JVM's "
             f"memory; medians. JDK 17 is the host's (Debian 12); 21 and 25 are Debian 13's, in `{res['image']}`"
             f" (`--network host`, `--cpuset-cpus` on the server core). Archives come from a training run "
             f"(start, wrk on the avatar URL, SIGTERM). Δ is against JDK 17 as committed.", "",
             "| JDK | Variant | start-up s (CPU s) | req/s | RSS MB | PSS MB | Δ RSS MB | threads | archive MB |",
             "|--:|---|--:|--:|--:|--:|--:|--:|--:|"]
    for s in res["sets"]:
        if s.get("error"):
            said = s["error"].replace("|", "\\|")
            lines.append(f"| {s['jdk']} | {s['name']} | refused: `{said}` |" + " – |" * 6)
            continue
        d = (s["rss_kb"] - ref["rss_kb"]) / 1024 if s["rss_kb"] is not None and ref["rss_kb"] is not None else None
        lines.append(f"| {s['jdk']} | {s['name']} | "
                     f"{'–' if s['startup_s'] is None else format(s['startup_s'], '.3f')} "
                     f"({'–' if s.get('startup_cpu_s') is None else format(s['startup_cpu_s'], '.2f')}) | "
                     f"{fmt_int(s['rps'])} | "
                     f"{fmt_mb(s['rss_kb'])} | {fmt_mb(s['pss_kb'])} | {'–' if d is None else format(d, '+.1f')} | "
                     f"{s['threads'] if s['threads'] is not None else '–'} | "
                     f"{'–' if s['archive_mb'] is None else format(s['archive_mb'], '.1f')} |")
    common = [f for f in ref["flags"] if not f.startswith("--limit-modules")]
    lines += ["", f"Every row runs `{' '.join(common)}` (app/jvm.options without `--limit-modules`); "
                  "what each row adds: " +
              "; ".join(f"**{s['jdk']} {s['key']}** `{' '.join(f for f in s['flags'] if f not in common) or '-'}`"
                        for s in res["sets"]) + " (`{d}`: the run's scratch folder)."]
    return "\n".join(lines)
