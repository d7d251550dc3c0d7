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
import contextlib
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import print_and_save, sample_stats, side_by_side, welch_t  # noqa: E402
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


def run(args) -> dict:
    """Both sides on every dataset and epsilon of ``args`` (:func:`benchmarks._common.side_by_side`).

    The authors' runs of a dataset are made first, in one child process (their
    mining and data loading outside their timing), and handed out run by run.
    """
    eps_list = [float(e) for e in args.epsilon.split(",")]

    @contextlib.contextmanager
    def prepare(name, data):
        minsup = int(min(top_k_itemsets(data, math.ceil(1.1 * args.k) + 1).values()))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{name}.txt"
            _write_authors_input(data, path)
            child = subprocess.run([sys.executable, "-c", _CHILD, str(args.authors_dir), str(path), str(minsup),
                                    str(args.k), str(args.runs), ",".join(map(str, eps_list))],
                                   capture_output=True, text=True, check=True)
        theirs = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("{")]
        yield {"data": data, "items": list(data.items),
               "theirs": {eps: [r for r in theirs if r["epsilon"] == eps] for eps in eps_list}}

    def ours(state, eps):
        return anonymize_privbasis(state["data"], k=args.k, epsilon=eps, universe=state["items"])

    def theirs(state, eps, run):
        res = state["theirs"][eps][run]
        return _as_release(state["items"], res["itemsets"]), res["seconds"]

    def score(state, release):
        m = top_k_metrics(state["data"], release, args.k)
        return {"f": m["topk_f"], "re": m["support_relative_error"]}

    def make_row(name, _data, eps, sides):
        ours_, auth = sides["ours"], sides["authors"]
        row = {"dataset": name, "epsilon": eps, "k": args.k,
               "ours_f": sample_stats(ours_["f"]), "authors_f": sample_stats(auth["f"]),
               "welch_t_f": welch_t(ours_["f"], auth["f"]),
               "ours_support_re": sample_stats(ours_["re"]), "authors_support_re": sample_stats(auth["re"]),
               "ours_seconds": sample_stats(ours_["seconds"]), "authors_seconds": sample_stats(auth["seconds"])}
        print(f"{name} eps={eps:g}: F ours {row['ours_f']['mean']:.3f} ± {row['ours_f']['sd']:.3f}, "
              f"authors {row['authors_f']['mean']:.3f} ± {row['authors_f']['sd']:.3f} (t {row['welch_t_f']:.2f}); "
              f"median RE ours {row['ours_support_re']['mean']:.3f}, authors "
              f"{row['authors_support_re']['mean']:.3f}; s ours {row['ours_seconds']['mean']:.2f}, "
              f"authors {row['authors_seconds']['mean']:.2f}", file=sys.stderr)
        return row

    out = {"authors_dir": str(args.authors_dir), "k": args.k, "runs": args.runs}
    return side_by_side(args.datasets.split(","), eps_list, args.runs, prepare=prepare, ours=ours, theirs=theirs,
                        score=score, make_row=make_row, out=out)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--authors-dir", type=Path, required=True, help="folder of the ported authors' code")
    p.add_argument("--datasets", default="bms1,groceries")
    p.add_argument("--epsilon", default="0.5,1,2")
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--no-save", action="store_true", help="do not write benchmarks/results/")
    args = p.parse_args(argv)
    if not (args.authors_dir / "PrivBasisMain.py").is_file():
        p.error(f"--authors-dir {args.authors_dir}: no PrivBasisMain.py there (the ported authors' code)")
    print_and_save(run(args), "authors_privbasis", save=not args.no_save)


if __name__ == "__main__":
    main()
