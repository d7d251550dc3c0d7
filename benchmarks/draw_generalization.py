"""``graphanon draw generalization DATA -k 5 -o gen.html`` as a whole command, timed by ``/usr/bin/time`` (issue 35).

The data: ``icd9_like(n, n_external=10, rng=0)`` records written as a long CSV (``tid,item``); each case runs the
command ``--repeat`` times in a child process (wall seconds, user + system CPU seconds and peak resident memory as
``/usr/bin/time -v`` reports them), after one untimed run that writes the bytecode and numba's cache as an installed
package has them. The order is the one ``anonymize -a nr -k 5 --seed 0`` publishes with (its default step budget).
Also the static figure of the first 40 records (``--records 40 -o gen40.png``), which takes the same order path.

Usage::

    PYTHONPATH=. python benchmarks/draw_generalization.py --repeat 3     # 26,854 and 100,000 records
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import child_env, compile_package, print_and_save

CASES = {"html_26854": (26_854, ["-k", "5", "-o", "gen.html"]),
         "html_100000": (100_000, ["-k", "5", "-o", "gen.html"]),
         "png_first_40_of_26854": (26_854, ["-k", "5", "--records", "40", "-o", "gen40.png"])}


def timed(args, cwd):
    """One child run under ``/usr/bin/time -v``: wall and CPU seconds, peak RSS in MB."""
    out = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "graphanon", *args], cwd=cwd,
                         env=child_env(), capture_output=True, text=True, check=True)
    field = {k.strip(): v.strip() for k, v in (line.split(": ", 1) for line in out.stderr.splitlines() if ": " in line)}
    h, m, s = (["0"] + field["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":"))[-3:]
    return {"wall_s": float(h) * 3600 + float(m) * 60 + float(s),
            "cpu_s": float(field["User time (seconds)"]) + float(field["System time (seconds)"]),
            "peak_mb": int(field["Maximum resident set size (kbytes)"]) / 1024}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", choices=sorted(CASES), action="append")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    from graphanon.datasets.synthetic import icd9_like
    from graphanon.readwrite.long_csv import write_long_csv

    doc = {"bytecode": compile_package(), "command": "graphanon draw generalization DATA.csv ARGS", "cases": {}}
    folder = Path(tempfile.mkdtemp())
    try:
        written = {}
        for name in args.case or list(CASES):
            n, extra = CASES[name]
            if n not in written:
                write_long_csv(icd9_like(n, n_external=10, rng=0)[0], folder / f"icd9_{n}.csv")
                written[n] = folder / f"icd9_{n}.csv"
            command = ["draw", "generalization", written[n].name, *extra]
            timed(command, folder)  # untimed: bytecode and numba's cache written
            runs, loads = [], []
            for _ in range(args.repeat):
                runs.append(timed(command, folder))
                loads.append(round(os.getloadavg()[0], 2))
            output = folder / extra[-1]
            doc["cases"][name] = {
                "records": n, "args": " ".join(extra), "output_bytes": output.stat().st_size,
                "wall_s_best": round(min(r["wall_s"] for r in runs), 2),
                "wall_s_median": round(statistics.median(r["wall_s"] for r in runs), 2),
                "cpu_s_best": round(min(r["cpu_s"] for r in runs), 2),
                "peak_mb_max": round(max(r["peak_mb"] for r in runs), 1),
                "load_average_1min": loads}
            print(name, doc["cases"][name], file=sys.stderr)
    finally:
        shutil.rmtree(folder)
    print_and_save(doc, "draw_generalization", save=not args.no_save)


if __name__ == "__main__":
    main()
