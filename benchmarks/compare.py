"""``graphanon compare`` on BMS-WebView-1: the issue's command, timed end to end, then one more k.

Runs, as a subprocess (so the timing includes start-up, imports, numba
compilation in each worker, the figures and the report)::

    graphanon compare bms1 -a aa,mhghs,coat,partition,clump -k 2,5,10,25 -m 2 \\
        --taxonomy balanced:5 -o OUT

in a fresh folder, then the same with ``-k 2,5,10,25,50`` into the same
folder (the 20 finished runs are reused, 5 new ones run). Records the wall
time of each, the load average before and after (the machine is shared),
how many runs were reused and whether every audit was satisfied.

Usage: ``python benchmarks/compare.py [--jobs N]``; prints JSON and writes
``benchmarks/results/compare.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import print_and_save

COMMAND = ["compare", "bms1", "-a", "aa,mhghs,coat,partition,clump", "-m", "2", "--taxonomy", "balanced:5"]


def timed(args: list[str]) -> dict:
    load = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "graphanon", *args, "--json"], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    # 1: an audit failed, 3: a run failed (both recorded); 2: bad input; no output: every run failed
    if done.returncode not in (0, 1, 3) or not done.stdout.strip():
        raise SystemExit(done.stderr)
    summary = json.loads(done.stdout)
    return {"command": "graphanon " + " ".join(args), "wall_seconds": round(seconds, 2),
            "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2), "exit_code": done.returncode,
            "runs": summary["runs"], "reused": summary["reused"], "failed": summary["failed"],
            "audits_satisfied": summary["audits_satisfied"], "headline": summary.get("headline")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: CPUs)")
    args = parser.parse_args()
    jobs = [] if args.jobs is None else ["-j", str(args.jobs)]
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "study")
        first = timed([*COMMAND, "-k", "2,5,10,25", "-o", out, *jobs])
        again = timed([*COMMAND, "-k", "2,5,10,25,50", "-o", out, *jobs])
        import pandas as pd

        table = pd.read_csv(Path(out) / "results.csv")
        per_method = (table.groupby("method")[["wall_seconds", "cpu_seconds", "peak_memory_mb", "ncp"]]
                      .agg(["min", "max"]).round(3))
    doc = {"cpus": os.cpu_count(), "first": first, "one_more_k": again,
           "per_method": {f"{m}": {f"{c}_{s}": float(v) for (c, s), v in row.items()}
                          for m, row in per_method.iterrows()}}
    print_and_save(doc, "compare")


if __name__ == "__main__":
    main()
