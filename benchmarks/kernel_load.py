"""What loading Clump's two numba kernels from the cache costs a fresh process (issue 35), tree against tree.

Each child process imports numpy and scipy.sparse, then (timed) graphanon's
Clump and runs it on the bundled 10-record ``clump_food`` (``k=2``): the
import of numba, of the two kernel modules, and the load of both kernels
(``knn_fill``, the greedy grouping) from numba's on-disk cache, with almost
no work. It reports that CPU time (``time.process_time``), the process's
peak resident set and whether ``numba.np.arrayobj`` (numba's array
allocation code, imported when a cached kernel's code allocates arrays) was
imported. Trees are alternated run by run (``--tree NAME=PATH``, each a
checkout whose ``graphanon`` is imported through ``PYTHONPATH``), after one
warm-up run per tree that fills its cache; best of ``--runs``.

Usage::

    python benchmarks/kernel_load.py --tree before=/tmp/old --tree after=. [--runs 7] [--save-as NAME]

Results: ``benchmarks/results/kernel_load.json`` (``--save-as NAME``: ``NAME.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import child_env, print_and_save  # noqa: E402

CHILD = """
import json, resource, sys, time
import numpy, scipy.sparse
start = time.process_time()
from graphanon.algorithms.grouping.clump import anonymize_clump
from graphanon.datasets import load, load_taxonomy
anonymize_clump(load("clump_food"), taxonomy=load_taxonomy("clump_food"), k=2, unsafe_secret_seed=0)
cpu = time.process_time() - start
print(json.dumps({"cpu_s": cpu, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "arrayobj": "numba.np.arrayobj" in sys.modules, "numba": "numba" in sys.modules}))
"""


def run(path: str) -> dict:
    """One fresh process on the tree at ``path``."""
    tree = str(Path(path).resolve())
    env = child_env(PYTHONPATH=tree)
    # run in the tree: ``python -c`` puts the working directory first on sys.path
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH of a checkout (repeatable)")
    ap.add_argument("--runs", type=int, default=7, help="fresh processes per tree (best of)")
    ap.add_argument("--save-as", default="kernel_load")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args(argv)
    trees = dict(t.split("=", 1) for t in args.tree)
    for path in trees.values():
        run(path)  # warm-up: fills the tree's numba cache
    samples: dict[str, list[dict]] = {name: [] for name in trees}
    load_start = round(os.getloadavg()[0], 2)
    for _ in range(args.runs):
        for name, path in trees.items():
            samples[name].append(run(path))
    doc = {"benchmark": "kernel_load", "runs": args.runs, "trees_run": {name: str(Path(p).resolve()) for name, p in trees.items()}, "load_start": load_start,
           "load_end": round(os.getloadavg()[0], 2), "trees": {}}
    for name, rows in samples.items():
        doc["trees"][name] = {
            "cpu_s": round(min(r["cpu_s"] for r in rows), 4),
            "cpu_s_median": round(sorted(r["cpu_s"] for r in rows)[len(rows) // 2], 4),
            "peak_mib": round(min(r["peak_mib"] for r in rows), 1),
            "imports_arrayobj": any(r["arrayobj"] for r in rows),
            "cpu_all_s": [round(r["cpu_s"], 4) for r in rows],
        }
    print_and_save(doc, args.save_as, save=not args.no_save)
    return doc


if __name__ == "__main__":
    main()
