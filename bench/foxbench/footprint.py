"""Where a JVM's memory goes: Native Memory Tracking's summary (the JVM's own account of what it
committed, by category) and the resident pages of each kind of mapping (/proc/PID/smaps: the shared
libraries, the class-data archive, the anonymous memory), read from one running JVM started with
-XX:NativeMemoryTracking=summary. NMT's own bookkeeping (about 1 MB) is in both, so the RSS here is above the
tables' RSS; what matters is the split. make bench TUNE=1 measures the host's JDK 17 with the shipped flags
(tune.py); make bench the compose image's JDK 25 (limits.py)."""
import re
import subprocess
from pathlib import Path

# NMT's categories, as the report groups them (anything else: "the rest").
GROUPS = [("heap", ("Java Heap",)), ("class metadata", ("Class", "Metaspace", "Shared class space", "Module")),
          ("code", ("Code",)), ("GC", ("GC",)), ("threads", ("Thread",)), ("symbols", ("Symbol",)),
          ("arenas", ("Arena Chunk", "Compiler")), ("NMT itself", ("Native Memory Tracking",))]
NMT_LINE = re.compile(r"^-\s+(.+?) \(reserved=(\d+)KB, committed=(\d+)KB", re.M)
TOTAL = re.compile(r"^Total: reserved=(\d+)KB, committed=(\d+)KB", re.M)
MAPPING = re.compile(r"^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$")


def nmt(jcmd):
    """NMT's summary, committed kB by group and in total; jcmd: the command line up to the pid
    (["jcmd", "PID"], or one run in a container)."""
    r = subprocess.run([*jcmd, "VM.native_memory", "summary"], capture_output=True, text=True, timeout=60)
    committed = {name: int(c) for name, _, c in NMT_LINE.findall(r.stdout)}
    total = TOTAL.search(r.stdout)
    if not committed or not total:
        raise RuntimeError(f"no NMT summary from {' '.join(jcmd)}: {r.stdout[-300:]} {r.stderr[-300:]}")
    out = {group: sum(committed.pop(n, 0) for n in names) for group, names in GROUPS}
    out["the rest"] = sum(committed.values())
    out["total"] = int(total.group(2))
    return out


def kind(path):
    """Which kind of mapping a smaps line's path is."""
    if not path or path.startswith("["):
        return "anonymous (heap, metaspace, code, stacks, malloc)"
    name = Path(path.split(" ")[0]).name
    if name == "libjvm.so":
        return "libjvm.so"
    if ".so" in name:
        return "other shared libraries"
    if name.endswith((".jsa", ".aot")):
        return "class-data archive or AOT cache"
    if name == "modules":
        return "the JDK's lib/modules"
    return "other files"


def mappings(pid):
    """RSS and the anonymous part of it, kB, per kind of mapping (kind() above)."""
    out, current = {}, None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        m = MAPPING.match(line)
        if m:
            current = out.setdefault(kind(m.group(2)), {"rss_kb": 0, "anon_kb": 0})
        elif line.startswith("Rss:"):
            current["rss_kb"] += int(line.split()[1])
        elif line.startswith("Anonymous:"):
            current["anon_kb"] += int(line.split()[1])
    return out


def measure(pid, jcmd):
    return {"nmt_kb": nmt(jcmd), "mappings": mappings(pid)}


def tables(fp, nmt=True):
    """Two small Markdown tables: NMT's committed memory by group (nmt=True), and RSS by kind of mapping."""
    mb = lambda kb: f"{kb / 1024:.1f}"  # noqa: E731
    lines = []
    if nmt:
        n = fp["nmt_kb"]
        groups = [g for g, _ in GROUPS] + ["the rest"]
        lines += ["| NMT, committed MB | " + " | ".join(groups) + " | total |",
                  "|---|" + "--:|" * (len(groups) + 1),
                  "| | " + " | ".join(mb(n.get(g, 0)) for g in groups) + f" | {mb(n['total'])} |", ""]
    lines += ["| Mapping | RSS MB | of which anonymous MB |", "|---|--:|--:|"]
    maps = sorted(fp["mappings"].items(), key=lambda kv: -kv[1]["rss_kb"])
    lines += [f"| {k} | {mb(v['rss_kb'])} | {mb(v['anon_kb'])} |" for k, v in maps]
    rss = sum(v["rss_kb"] for v in fp["mappings"].values())
    anon = sum(v["anon_kb"] for v in fp["mappings"].values())
    lines.append(f"| **all** | **{mb(rss)}** | **{mb(anon)}** |")
    return "\n".join(lines)
