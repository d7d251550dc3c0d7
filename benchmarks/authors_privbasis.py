"""PrivBasis side by side with the authors' Python code (issue 33): top-k utility distributions and wall time.

The co-author's implementation (github.com/DongSuIBM/PrivBasis; Li, Qardaji,
Su, Cao, PVLDB 5(11), 2012) is never part of graphanon: it is Python 2, kept
outside the repository and ported with syntax-only changes
(``docs/performance.md``, "PrivBasis against the authors' code", says which);
its folder is given with ``--authors-dir``. Its modules are imported in a
child process (``PrivBasisMain.Algo3``, ``dataset.Dataset``), never in this
one.

For each dataset and epsilon both run ``--runs`` times with ``k`` itemsets
on the same records: the universe is the dataset's items (standing in for a
public catalogue, as in docs/dp.md's bms1 measurement), written for the
authors as integer ids, one record per line, space-separated (their input
format). The authors' harness needs its ``Dataset.fi`` mined before a run
(their ``getLambda`` reads the support of the ``ceil(1.1 k)``-th itemset): it
is mined once per dataset by their FP-growth at the support of the
``ceil(1.1 k) + 1``-th most frequent itemset, outside the timing. Each
output -- ours an ``ItemsetRelease``, theirs parsed from the child into one --
is scored by the same :func:`graphanon.metrics.itemsets.top_k_metrics`: top-k
F-score (precision = recall = F when ``k`` itemsets are released) and the
median relative support error (the paper's measure). Reported per side: mean,
sd, min and max over the runs, the Welch t statistic of the F difference, and
wall time per run (ours: the ``anonymize_privbasis`` call, data loaded;
theirs: ``Algo3(dataset, k, eps).privBasisMain()``, data loaded and mined).

Run::

    python benchmarks/authors_privbasis.py --authors-dir /work/ext/privbasis-authors \\
        --datasets bms1,groceries --epsilon 0.5,1,2 --k 100 --runs 5
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import print_and_save  # noqa: E402
from graphanon import datasets  # noqa: E402
from graphanon.algorithms.dp import anonymize_privbasis  # noqa: E402
from graphanon.metrics.itemsets import top_k_itemsets, top_k_metrics  # noqa: E402
from graphanon.release.itemsets import ItemsetRelease  # noqa: E402

#: the child process: imports the authors' modules from argv[1], runs their Algo3 argv[5] times, prints JSON lines
_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from dataset import Dataset
from PrivBasisMain import Algo3
data = Dataset(sys.argv[2])
data.mine_freq_item(int(sys.argv[3]), float("inf"))
k, runs = int(sys.argv[4]), int(sys.argv[5])
for eps in map(float, sys.argv[6].split(",")):
    for _ in range(runs):
        t = time.perf_counter()
        out = Algo3(data, k, eps).privBasisMain()
        t = time.perf_counter() - t
        print(json.dumps({"epsilon": eps, "seconds": t, "itemsets": [[list(s), float(nc)] for s, c, nc in out]}))
"""


def _write_authors_input(data, path: Path) -> None:
    """The records as the authors read them: item j as the integer j, one record per line, space-separated."""
    m = sp.csr_array(data.matrix)
    lines = [" ".join(map(str, np.sort(m.indices[m.indptr[r]:m.indptr[r + 1]]).tolist())) for r in range(m.shape[0])]
    path.write_text("\n".join(line for line in lines if line) + "\n")


def _as_release(items: list, found: list) -> ItemsetRelease:
    """The authors' top-k list (``[[ids], noisy count]``) as an ItemsetRelease over ``items``."""
    rows = [r for r, (ids, _) in enumerate(found) for _ in ids]
    cols = [j for ids, _ in found for j in ids]
    matrix = sp.csr_array((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(len(found), len(items)))
    return ItemsetRelease(items=items, itemsets=matrix, supports=[nc for _, nc in found], algorithm="privbasis-authors")


def _stats(values) -> dict:
    v = np.asarray(values, dtype=float)
    return {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0, "min": float(v.min()),
            "max": float(v.max()), "runs": int(v.size)}


def _welch_t(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size) if a.size > 1 and b.size > 1 else 0.0
    return float((a.mean() - b.mean()) / se) if se > 0 else float("nan")


def run(args) -> dict:
    eps_list = [float(e) for e in args.epsilon.split(",")]
    out = {"authors_dir": str(args.authors_dir), "k": args.k, "runs": args.runs, "load_before": os.getloadavg()[0],
           "results": []}
    for name in args.datasets.split(","):
        data = datasets.load(name)
        items = list(data.items)
        k1 = math.ceil(1.1 * args.k)
        minsup = int(min(top_k_itemsets(data, k1 + 1).values()))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{name}.txt"
            _write_authors_input(data, path)
            child = subprocess.run([sys.executable, "-c", _CHILD, str(args.authors_dir), str(path), str(minsup),
                                    str(args.k), str(args.runs), ",".join(map(str, eps_list))],
                                   capture_output=True, text=True, check=True)
        theirs = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("{")]
        for eps in eps_list:
            ours_f, ours_re, ours_t, their_f, their_re, their_t = [], [], [], [], [], []
            for _ in range(args.runs):
                t = time.perf_counter()
                rel = anonymize_privbasis(data, k=args.k, epsilon=eps, universe=items)
                ours_t.append(time.perf_counter() - t)
                m = top_k_metrics(data, rel, args.k)
                ours_f.append(m["topk_f"])
                ours_re.append(m["support_relative_error"])
            for res in (r for r in theirs if r["epsilon"] == eps):
                m = top_k_metrics(data, _as_release(items, res["itemsets"]), args.k)
                their_f.append(m["topk_f"])
                their_re.append(m["support_relative_error"])
                their_t.append(res["seconds"])
            row = {"dataset": name, "epsilon": eps, "k": args.k,
                   "ours_f": _stats(ours_f), "authors_f": _stats(their_f), "welch_t_f": _welch_t(ours_f, their_f),
                   "ours_support_re": _stats(ours_re), "authors_support_re": _stats(their_re),
                   "ours_seconds": _stats(ours_t), "authors_seconds": _stats(their_t)}
            out["results"].append(row)
            print(f"{name} eps={eps:g}: F ours {row['ours_f']['mean']:.3f} ± {row['ours_f']['sd']:.3f}, "
                  f"authors {row['authors_f']['mean']:.3f} ± {row['authors_f']['sd']:.3f} (t {row['welch_t_f']:.2f}); "
                  f"median RE ours {row['ours_support_re']['mean']:.3f}, authors "
                  f"{row['authors_support_re']['mean']:.3f}; s ours {row['ours_seconds']['mean']:.2f}, "
                  f"authors {row['authors_seconds']['mean']:.2f}", file=sys.stderr)
    out["load_after"] = os.getloadavg()[0]
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--authors-dir", type=Path, required=True, help="folder of the ported authors' code")
    p.add_argument("--datasets", default="bms1,groceries")
    p.add_argument("--epsilon", default="0.5,1,2")
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args(argv)
    if not (args.authors_dir / "PrivBasisMain.py").is_file():
        p.error(f"--authors-dir {args.authors_dir}: no PrivBasisMain.py there (the ported authors' code)")
    print_and_save(run(args), "authors_privbasis")


if __name__ == "__main__":
    main()
