"""Start-up cost of the command line and of the package imports (issue 15), printed as JSON.

Each case runs ``--runs`` times in a fresh process (after ``--warmup`` runs that
fill the OS page cache and numba's on-disk cache); the parent reports the
median and minimum wall time, the median user+system CPU time and the peak
resident memory of the child (``os.wait4`` rusage, so only that process),
plus the load average before and after. The wall time includes the Python
interpreter's own start (the ``python -c pass`` case).

Cases:

* ``python -c pass`` -- the interpreter alone, the floor;
* ``graphanon --help``, ``graphanon datasets`` -- the console script;
* ``import graphanon``, ``import graphanon.algorithms`` -- the package facades;
* ``from graphanon.algorithms import anonymize_aa`` -- a method module;
* ``graphanon algorithms`` -- lists every registered method (imports every method module).

Usage::

    python benchmarks/startup.py                  # all cases, 10 runs each
    python benchmarks/startup.py --runs 20 --out benchmarks/results/startup.json

The numbers are in docs/performance.md ("Startup").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cases() -> dict[str, list[str]]:
    py = sys.executable
    script = shutil.which("graphanon", path=str(Path(py).parent)) or shutil.which("graphanon")
    cli = [script] if script else [py, "-m", "graphanon.cli"]
    return {
        "python -c pass": [py, "-c", "pass"],
        "graphanon --help": [*cli, "--help"],
        "graphanon datasets": [*cli, "datasets"],
        "import graphanon": [py, "-c", "import graphanon"],
        "import graphanon.algorithms": [py, "-c", "import graphanon.algorithms"],
        "from graphanon.algorithms import anonymize_aa": [py, "-c", "from graphanon.algorithms import anonymize_aa"],
        "graphanon algorithms": [*cli, "algorithms"],
    }


def run_once(argv: list[str]) -> tuple[float, float, float]:
    """(wall seconds, user+system CPU seconds, peak RSS MiB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.read().decode()[-500:]}")
    proc.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(argv: list[str], runs: int, warmup: int) -> dict:
    for _ in range(warmup):
        run_once(argv)
    walls, cpus, rss = zip(*(run_once(argv) for _ in range(runs)))
    return {
        "wall_median_s": round(statistics.median(walls), 4),
        "wall_min_s": round(min(walls), 4),
        "cpu_median_s": round(statistics.median(cpus), 4),
        "peak_rss_mib": round(max(rss), 1),
        "runs": runs,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--case", action="append", help="run only these cases (repeatable)")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args(argv)
    table = cases()
    chosen = args.case or list(table)
    unknown = sorted(set(chosen) - set(table))
    if unknown:
        parser.error(f"unknown case {unknown}; cases: {list(table)}")
    result = {"load_average_before": [round(x, 2) for x in os.getloadavg()], "python": sys.version.split()[0],
              "cpus": os.cpu_count(), "cases": {}}
    for name in chosen:
        result["cases"][name] = measure(table[name], args.runs, args.warmup)
    result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
