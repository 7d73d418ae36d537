"""The memory sections' figures, worked out by hand from fixture/bench.json (issue 47).

expected/bench.md's tuning and limits sections (issue 36) were written by the renderer they check, so the
golden test alone would keep a figure that was wrong from the start. Every row below was computed by hand
from the raw numbers (the arithmetic is beside each; kB / 1,024 for the "MB" columns, bytes / 2^20 for MiB,
one decimal), independently of bench/foxbench; the rendered page must hold each line as written."""
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT), str(ROOT / "tools")]

from foxbench import report  # noqa: E402


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    d = tmp_path_factory.mktemp("page")
    for name in ("bench.md", "README.md"):
        shutil.copy(HERE / "fixture" / name, d / name)
    report.render(report.load_raw(HERE / "fixture" / "bench.json"), d / "bench.md", d / "README.md")
    return (d / "bench.md").read_text()


TUNING = [
    # rss_kb 47616 / 1024 = 46.5; pss_kb 37990 / 1024 = 37.1; anon_kb 30616 / 1024 = 29.9; Δ against itself 0
    "| app/jvm.options as committed | 39,831 | 40,864 | 24 | 46.5 | 37.1 | 29.9 | +0.0 | 16 | 0.695 (0.69) | 0 |",
    # 181555 / 1024 = 177.3; 173056 / 1024 = 169.0; 164565 / 1024 = 160.7; (181555 - 47616) / 1024 = 130.8
    "| no flags (JVM ergonomics) | 39,658 | 39,344 | 17 | 177.3 | 169.0 | 160.7 | +130.8 | 16 | 1.196 (1.15) | 0 |",
    # 47600 / 1024 = 46.5; anon 30620 / 1024 = 29.9; (47600 - 47616) / 1024 = -0.016: "-0.0"; bad 3 at c=10
    "| shipped, env MALLOC_ARENA_MAX=2 | 59,318 | 44,586 | 7.24 | 46.5 | 37.1 | 29.9 | -0.0 | 15 | 0.673 (0.53) | 3 |",
    # 16 MiB / 1580.4 bytes = 16 * 1048576 / 1580.4 = 10,616 requests
    "**1,580 bytes per request**, so a 16 MB Epsilon heap would be exhausted after about 10,616 requests",
    # footprint: rss_kb 45600 / 1024 = 44.5; anon_kb 28100 / 1024 = 27.4
    "after wrk at c=100 and a scrape: RSS 44.5 MB, of which anonymous 27.4 MB",
    # nmt_kb / 1024: 5248 -> 5.1, 13500 -> 13.2, 2900 -> 2.8, 51 -> 0.0, 1226 -> 1.2, 3700 -> 3.6,
    # 700 -> 0.7, 1150 -> 1.1, 300 -> 0.3, total 28775 -> 28.1
    "| | 5.1 | 13.2 | 2.8 | 0.0 | 1.2 | 3.6 | 0.7 | 1.1 | 0.3 | 28.1 |",
    # mappings, largest first: 27300, 13000 (anon 800), 3900 (100), 1200, 200; sums 45600 and 28200
    "| anonymous (heap, metaspace, code, stacks, malloc) | 26.7 | 26.7 |\n| libjvm.so | 12.7 | 0.8 |\n"
    "| other shared libraries | 3.8 | 0.1 |\n| the JDK's lib/modules | 1.2 | 0.0 |\n| other files | 0.2 | 0.0 |\n"
    "| **all** | **44.5** | **27.5** |",
]

LIMITS = [
    # charged 32400998 / 2^20 = 30.9; anon 12792627 / 2^20 = 12.2; peak 33449574 / 2^20 = 31.9;
    # rss_kb 38100 / 1024 = 37.2; c=100 29002.2 / 32200.0 (512 MiB's) = 0.9007: 0.90×
    "| 32 | 30,110 | 29,002 | 9.40 | 0.90× | 0 | 3.2 | 30.9 | 12.2 | 31.9 | 37.2 |",
    # 43515904 -> 41.5; 12897484 -> 12.3; 46137344 -> 44.0; 41000 / 1024 = 40.0; 31870.1 / 32200 = 0.990
    "| 48 | 30,550 | 31,870 | 8.80 | 0.99× | 0 | 1.1 | 41.5 | 12.3 | 44.0 | 40.0 |",
    # 46347059 -> 44.2; 48339353 -> 46.1; 41200 / 1024 = 40.2; 32100 / 32200 = 0.997
    "| 64 | 30,600 | 32,100 | 8.60 | 1.00× | 0 | 0.6 | 44.2 | 12.3 | 46.1 | 40.2 |",
    # 46451916 -> 44.3; 48549068 -> 46.3; 41150 / 1024 = 40.19; 32050 / 32200 = 0.995
    "| 128 | 30,700 | 32,050 | 8.70 | 1.00× | 0 | 0.5 | 44.3 | 12.2 | 46.3 | 40.2 |",
    # the reference itself; one OOM kill recorded; no peak (null): "–"; 41300 / 1024 = 40.3
    "| 512 | 30,650 | 32,200 | 8.50 | 1.00× | 1 | 0.5 | 44.4 | 12.3 | – | 40.3 |",
    # mappings at 512 MiB, largest first: 15600 (anon 900), 14100, 10200, 3100 (100), 400;
    # sums 43400 / 1024 = 42.4 and 15100 / 1024 = 14.7
    "| libjvm.so | 15.2 | 0.9 |\n| anonymous (heap, metaspace, code, stacks, malloc) | 13.8 | 13.8 |\n"
    "| class-data archive or AOT cache | 10.0 | 0.0 |\n| other shared libraries | 3.0 | 0.1 |\n"
    "| the JDK's lib/modules | 0.4 | 0.0 |\n| **all** | **42.4** | **14.7** |",
    # 0.9007 >= target_ratio 0.9 and no OOM kill at 32 MiB
    "at 32 MiB at least 0.9× the req/s at 512 MiB (c=100), never OOM-killed: 0.90×, 0 OOM kills, **met**.",
]


@pytest.mark.parametrize("line", TUNING, ids=lambda l: l[:40])
def test_the_tuning_sections_figures_are_the_fixtures_worked_by_hand(page, line):
    assert line in page


@pytest.mark.parametrize("line", LIMITS, ids=lambda l: l[:40])
def test_the_memory_limits_figures_are_the_fixtures_worked_by_hand(page, line):
    assert line in page
