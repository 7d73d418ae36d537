"""The report's charts (gnuplot), each a function of one mode's raw results: the results' throughput and
memory per candidate (docs/bench.png) and the soak's memory over the requests (docs/bench-soak.png)."""
import subprocess


def results_chart(results, png, work):
    """Two panels like the original write-up: throughput per candidate, memory per candidate."""
    concs = results["concurrency"]
    dat = work / "rps.dat"
    with open(dat, "w") as f:
        for r in results["rows"]:
            label = f"{r['key']} {r['proto']}".replace(" ", "\\n", 1)
            if r.get("request", "/") != "/":  # the avatar URL: its size, the key left out
                label += " " + r["request"].split("&")[0]
            if r.get("headers"):  # the sidecar's `/` and avatar URL with Chromium's Accept
                label += " +Accept"
            vals = [(r["conc"][str(c)] or {}).get("rps") or 0 for c in concs]
            f.write(f"\"{label}\" " + " ".join(f"{v:.0f}" for v in vals) + "\n")
    mem = work / "mem.dat"
    seen = set()
    with open(mem, "w") as f:
        for r in results["rows"]:
            if r["key"] in seen:
                continue
            seen.add(r["key"])
            f.write(f"\"{r['key']}\" {(r['rss_kb'] or 0) / 1024:.1f} {(r['pss_kb'] or 0) / 1024:.1f}\n")
    cols = ", ".join(f"'{dat}' using {i + 2}:xtic(1) title 'c={c}'" for i, c in enumerate(concs))
    m = results["machine"]
    gnuplot(work / "bench.gp", f"""set terminal pngcairo size 1200,900 font 'DejaVu Sans,10'
set output '{png}'
set multiplot layout 2,1 title "fox-avatar: GET / -> 302 on {m['cpu']} (server on 1 core, load on another; load average {m['loadavg_start']} at start), {m['date']}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:*]
set format y "%.0s%c"
set ylabel 'requests/s (median of rounds)'
set key top right
plot {cols}
set ylabel 'memory after the run (MB)'
set format y "%g"
plot '{mem}' using 2:xtic(1) title 'RSS', '' using 3 title 'PSS'
unset multiplot
""")


def gnuplot(script, text):
    script.write_text(text)
    subprocess.run(["gnuplot", str(script)], check=True)


def soak_chart(res, png, work):
    dat = work / "soak.dat"
    dat.write_text("".join(f"{t:.1f} {a / 1024:.2f} {p / 1024:.2f} {n / 1024:.2f} {d}\n"
                           for t, a, p, n, d in res["samples"]))
    gnuplot(work / "soak.gp", f"""set terminal pngcairo size 1000,500 font 'DejaVu Sans,10'
set output '{png}'
set title "fox-avatar soak: {res['done']:,} requests through Nginx (HTTPS) to the sidecar, {res['machine']['date']}"
set xlabel 'requests (millions)'
set ylabel 'MB'
set grid
set yrange [0:*]
set key bottom right
plot '{dat}' using ($5/1e6):2 with lines lw 2 title 'sidecar RSS', '' using ($5/1e6):3 with lines title 'sidecar PSS', '' using ($5/1e6):4 with lines title 'Nginx RSS (master + worker)'
""")
