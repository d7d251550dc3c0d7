"""numba's per-process cost against an ahead-of-time compiled kernel (issue 35): the measurements behind the decision.

A one-shot job that runs a graphanon kernel imports numba (and through it
llvmlite's LLVM library) before it can load the kernel's cached machine code.
This script measures, in fresh processes (best of ``--runs``, CPU time and
peak resident set, ``ru_maxrss``):

* ``numpy + scipy.sparse``: the part of the floor every job pays;
* ``+ import numba``: numba's share;
* ``+ Clump's kernels``: graphanon's Clump imported and run on a 3-record kNN
  and the bundled 10-record ``clump_food`` (both kernels,
  ``graphanon.graphs._knn_kernel`` and
  ``graphanon.algorithms.grouping._clump_kernel``, loaded from numba's cache;
  graphanon's own imports included);
* ``+ the AOT module``: the same exact kNN kernel (``knn_fill``) compiled ahead of
  time by ``numba.pycc`` into an extension module (built here, in a temporary
  folder, from the package's own source), imported without numba.

and, in one process each, the exact kNN of every bms1 record (k = 50, as
Clump's default) by numba's kernel and by the AOT one: CPU time, wall time on
one thread and on two threads (two halves of the rows; numba's kernel is
``nogil``, a ``pycc`` export holds the GIL), and whether the two outputs are
identical.

Usage::

    python benchmarks/aot_kernels.py [--runs 5] [--no-save]

Results: ``benchmarks/results/aot_kernels.json``.
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

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import child_env, compile_package, print_and_save  # noqa: E402

#: builds the AOT module ``aot_knn`` into argv[1] from the package's kernel (the signature of bms1's arrays)
BUILD = """
import sys
import warnings
warnings.simplefilter("ignore")  # numba.pycc's deprecation warning
from numba.pycc import CC
from graphanon.graphs._knn_kernel import knn_fill
cc = CC("aot_knn")
cc.output_dir = sys.argv[1]
cc.export("knn_fill", "i8(i8[:],i4[:],i8[:],i4[:],i4[:],i4[:],i8[:],i8[:],i8,i8[:],i4[:],f8[:],i4[:],i4[:],i8[:,:])")(knn_fill.py_func)
cc.compile()
"""

#: what each import case adds to ``import numpy, scipy.sparse``
IMPORTS = {
    "numpy + scipy.sparse": "",
    "+ import numba": "import numba",
    "+ Clump's kernels (numba, cached)": (
        "import numpy as np\n"
        "from graphanon.graphs.similarity import RecordSimilarityGraph\n"
        "RecordSimilarityGraph.knn(np.eye(3, dtype=bool), 1, n_jobs=1)\n"
        "from graphanon.algorithms.grouping.clump import anonymize_clump\n"
        "from graphanon.datasets import load, load_taxonomy\n"
        "anonymize_clump(load('clump_food'), taxonomy=load_taxonomy('clump_food'), k=2, unsafe_secret_seed=0)\n"
    ),
    "+ the AOT kNN module (no numba)": "import aot_knn",
}

IMPORT_CHILD = """
import resource, sys, time
sys.path.insert(0, sys.argv[1])
import numpy, scipy.sparse
{body}
print(time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "numba" in sys.modules)
"""

KERNEL_CHILD = """
import json, sys, time
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, sys.argv[1])
import numpy as np
from graphanon.datasets import load
from graphanon.graphs.similarity import _posting_index
which, k = sys.argv[2], 50
if which == "aot":
    import aot_knn
    fill = aot_knn.knn_fill
else:
    from graphanon.graphs._knn_kernel import knn_fill as fill
data = load("bms1")
index = _posting_index(data.matrix)
rows = np.arange(data.n_records, dtype=np.int64)

def run(part):
    counts = np.zeros(len(part), np.int64)
    cols, sims = np.empty(len(part) * k, np.int32), np.empty(len(part) * k)
    work = (np.full(len(index[0]) - 1, -1, np.int32), np.full(len(index[2]) - 1, -1, np.int32), np.empty((3, k), np.int64))
    filled = fill(*index, part, k, counts, cols, sims, *work)
    return counts, cols[:filled], sims[:filled]

run(rows[:10])  # numba: load from the cache before timing
wall, cpu = time.perf_counter(), time.process_time()
out = run(rows)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
two = time.perf_counter()
with ThreadPoolExecutor(2) as pool:
    list(pool.map(run, np.array_split(rows, 2)))
two = time.perf_counter() - two
np.savez(sys.argv[3], *out)
print(json.dumps({"cpu_s": cpu, "wall_1_thread_s": wall, "wall_2_threads_s": two}))
"""


def _run(argv, env) -> str:
    return subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per import case (best of)")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args(argv)
    import numpy as np

    doc: dict = {"benchmark": "aot_kernels", "bytecode": compile_package(), "nproc": os.cpu_count(),
                 "load_start": round(os.getloadavg()[0], 2)}
    env = child_env(PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    with tempfile.TemporaryDirectory(prefix="graphanon-aot-") as tmp:
        start = time.perf_counter()
        _run([sys.executable, "-c", BUILD, tmp], env)
        doc["aot_build_wall_s"] = round(time.perf_counter() - start, 1)
        doc["aot_module_bytes"] = sum(p.stat().st_size for p in Path(tmp).glob("aot_knn*"))
        imports = {}
        for name, body in IMPORTS.items():
            runs = [_run([sys.executable, "-c", IMPORT_CHILD.format(body=body), tmp], env).split()
                    for _ in range(args.runs)]
            imports[name] = {"cpu_s": round(min(float(r[0]) for r in runs), 3),
                             "peak_mib": round(min(float(r[1]) for r in runs), 1), "numba_imported": runs[0][2] == "True"}
            print(name, imports[name], file=sys.stderr)
        doc["imports"] = imports
        kernels = {}
        for which in ("numba", "aot"):
            out = os.path.join(tmp, f"{which}.npz")
            kernels[which] = {key: round(v, 3) for key, v in
                              json.loads(_run([sys.executable, "-c", KERNEL_CHILD, tmp, which, out], env)).items()}
            print(which, kernels[which], file=sys.stderr)
        a, b = np.load(os.path.join(tmp, "numba.npz")), np.load(os.path.join(tmp, "aot.npz"))
        kernels["identical_outputs"] = all(np.array_equal(a[key], b[key]) for key in a.files)
        doc["knn_bms1_k50"] = kernels
    doc["load_end"] = round(os.getloadavg()[0], 2)
    print_and_save(doc, "aot_kernels", save=not args.no_save)
    return doc


if __name__ == "__main__":
    main()
