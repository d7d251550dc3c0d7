"""DiffPart side by side with the authors' C++ code (issue 33): utility distributions and wall time.

The authors' implementation (github.com/McGill-DMaS/Privacy-DiffPart; Chen,
Mohammed, Fung, Desai, Xiong, PVLDB 4(11), 2011) is never part of graphanon:
it is built outside the repository and its binary is given with
``--authors-bin``. It is C++/CLI for Visual Studio; building it with g++ takes
syntax-only changes (``docs/performance.md``, "DiffPart against the authors'
code", says which) and a ``Global.h`` that reads the settings its own fixes at
compile time from the environment, so one binary runs every dataset:
``DIFFPART_DATA`` (the data file: one record per line, items as
space-separated ids 1..N, no empty line), ``DIFFPART_LEAVES`` (N),
``DIFFPART_FANOUT``, ``DIFFPART_EPSILON``. It prints each leaf partition as
``id id ... : count``.

For each dataset and epsilon both run ``--runs`` times on the same records:
the universe is the dataset's items (standing in for a public catalogue, as in
docs/dp.md's bms1 measurement), in the leaf order of
``Taxonomy.balanced(items, fanout)``, which the authors' builder reproduces
over the ids 1..N (contiguous groups of ``fanout`` per level, the leftover group
last). Each synthetic dataset -- ours a ``SyntheticRelease``, theirs parsed
from its output into one -- answers the same workload of COUNT queries
(``generate_workload``, ``--queries`` of 2 items drawn from records, seed 0)
and is scored by the package's ``average_relative_error`` (AvgRE, the paper's
measure without its sanity bound: every query's true answer is >= 1) and by
top-100 frequent-itemset F-score. Reported per side: mean, sd, min and max
over the runs, the Welch t statistic of the AvgRE difference, and wall time
(ours: the ``anonymize_diffpart`` call in this process, data loaded; theirs:
the whole process, reading its input file included).

Run::

    python benchmarks/authors_diffpart.py --authors-bin /work/ext/diffpart-build/diffpart \\
        --datasets bms1,groceries --epsilon 0.5,1 --runs 10
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import print_and_save, sample_stats, side_by_side, welch_t  # noqa: E402
from graphanon.algorithms.dp import anonymize_diffpart  # noqa: E402
from graphanon.metrics.itemsets import top_k_accuracy  # noqa: E402
from graphanon.metrics.queries import average_relative_error, generate_workload  # noqa: E402
from graphanon.release.synthetic import SyntheticRelease  # noqa: E402
from graphanon.taxonomy import Taxonomy  # noqa: E402


def _write_authors_input(data, order: list, path: Path) -> None:
    """The records as the authors read them: ids 1..N in ``order``, one record per line, no final newline."""
    rank = {label: i + 1 for i, label in enumerate(order)}
    ids = np.array([rank[x] for x in data.items])
    m = sp.csr_array(data.matrix)
    lines = []
    for r in range(m.shape[0]):
        row = np.sort(ids[m.indices[m.indptr[r]:m.indptr[r + 1]]])
        if row.size:
            lines.append(" ".join(map(str, row.tolist())))
    path.write_text("\n".join(lines))


def _parse_authors_output(text: str, order: list) -> SyntheticRelease:
    """The leaf partitions ``id id ... : count`` the authors' program prints, as a SyntheticRelease."""
    rows, cols, counts = [], [], []
    for line in text.splitlines():
        head, sep, tail = line.rpartition(" : ")
        if not sep:
            head, sep, tail = line.rpartition(": ")
        if not sep or not head.strip() or not all(tok.isdigit() for tok in head.split()):
            continue
        count = int(round(float(tail)))
        if count < 1:
            continue
        r = len(counts)
        ids = sorted({int(tok) for tok in head.split()})
        rows += [r] * len(ids)
        cols += [i - 1 for i in ids]
        counts.append(count)
    matrix = sp.csr_array((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(len(counts), len(order)))
    return SyntheticRelease(items=order, itemsets=matrix, counts=counts, algorithm="diffpart-authors")


def run(args) -> dict:
    """Both sides on every dataset and epsilon of ``args`` (:func:`benchmarks._common.side_by_side`)."""

    @contextlib.contextmanager
    def prepare(name, data):
        items = list(data.items)
        order = list(Taxonomy.balanced(items, fanout=args.fanout).leaves_under(
            Taxonomy.balanced(items, fanout=args.fanout).root))
        with tempfile.TemporaryDirectory() as tmp:
            infile = Path(tmp) / f"{name}.dat"
            _write_authors_input(data, order, infile)
            yield {"data": data, "order": order, "infile": infile,
                   "workload": generate_workload(data, args.queries, 2, rng=0)}

    def ours(state, eps):
        return anonymize_diffpart(state["data"], epsilon=eps, universe=state["order"], fanout=args.fanout)

    def theirs(state, eps, _run):
        env = {**os.environ, "DIFFPART_DATA": str(state["infile"]), "DIFFPART_LEAVES": str(len(state["order"])),
               "DIFFPART_FANOUT": str(args.fanout), "DIFFPART_EPSILON": repr(eps)}
        start = time.perf_counter()
        proc = subprocess.run([str(args.authors_bin)], env=env, capture_output=True, text=True, check=True,
                              timeout=args.timeout)
        return _parse_authors_output(proc.stdout, state["order"]), time.perf_counter() - start

    def score(state, release):
        return {"are": average_relative_error(release, state["workload"]),
                "f": top_k_accuracy(state["data"], release, 100)["f"], "records": release.n_records}

    def make_row(name, data, eps, sides):
        row = {"dataset": name, "records": data.n_records, "items": data.n_items, "epsilon": eps}
        for key, vals in sides.items():
            row[key] = {"avg_relative_error": sample_stats(vals["are"]), "top100_f": sample_stats(vals["f"]),
                        "wall_seconds": sample_stats(vals["seconds"]), "synthetic_records": sample_stats(vals["records"])}
        row["welch_t_avg_relative_error"] = welch_t(sides["ours"]["are"], sides["authors"]["are"])
        print(f"{name} eps={eps:g}: AvgRE ours {row['ours']['avg_relative_error']['mean']:.4f} "
              f"(sd {row['ours']['avg_relative_error']['sd']:.4f}) authors "
              f"{row['authors']['avg_relative_error']['mean']:.4f} "
              f"(sd {row['authors']['avg_relative_error']['sd']:.4f}); t={row['welch_t_avg_relative_error']:.2f}",
              file=sys.stderr)
        return row

    out = {"authors_bin": str(args.authors_bin), "fanout": args.fanout, "queries": args.queries, "runs": args.runs}
    return side_by_side(args.datasets.split(","), [float(e) for e in args.epsilon.split(",")], args.runs,
                        prepare=prepare, ours=ours, theirs=theirs, score=score, make_row=make_row, out=out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors-bin", type=Path, required=True, help="the authors' DiffPart, built as above")
    parser.add_argument("--datasets", default="bms1,groceries", help="bundled datasets, comma-separated")
    parser.add_argument("--epsilon", default="1", help="epsilons, comma-separated")
    parser.add_argument("--runs", type=int, default=10, help="runs per side, dataset and epsilon")
    parser.add_argument("--fanout", type=int, default=10, help="taxonomy fan-out (the authors' 10)")
    parser.add_argument("--queries", type=int, default=1000, help="COUNT queries of 2 items")
    parser.add_argument("--timeout", type=float, default=600, help="seconds allowed to one run of theirs")
    parser.add_argument("--no-save", action="store_true", help="do not write benchmarks/results/")
    args = parser.parse_args(argv)
    if not args.authors_bin.is_file():
        parser.error(f"--authors-bin {args.authors_bin}: no such file (build it as the module docstring says)")
    print_and_save(run(args), "authors_diffpart", save=not args.no_save)


if __name__ == "__main__":
    main()
