"""Benchmark of the nonreciprocal audits (match graph, k-factor / l-diverse flows, viable candidates).

Measures, per release: the wall time of ``NonreciprocalKAnonymity(k).audit``
(and ``LDiversity(l).audit`` for labelled releases), split into the
class-compressed match graph and the rest, with the graph's size (record- and
class-level edges, record and row classes) and the verdict numbers.

Releases: bms1 nr k=10 (made here, or ``--bms1-release PATH`` from
``graphanon anonymize bms1 -a nr -k 10 -o PATH``), chess nr k=5 and chess nr
l=5 (skewed seeded labels). Timings are best of ``--repeat`` runs; the load
average before and after is recorded, since the machine is shared.

Usage: ``python benchmarks/audit_nonreciprocal.py [--bms1-release PATH] [--repeat 3]``;
prints JSON and writes ``benchmarks/results/audit_nonreciprocal.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.data import TransactionData
from graphanon.datasets import load
from graphanon.privacy import LDiversity, NonreciprocalKAnonymity
from graphanon.privacy.match_graph import match_classes
from graphanon.release import load_release

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import best_of, print_and_save  # noqa: E402


def skewed_labels(n, n_labels=30, ratio=0.95, seed=0):
    """The labels of ``benchmarks/nonreciprocal.py``: a fixed geometric distribution, seeded."""
    p = ratio ** np.arange(n_labels)
    p /= p.sum()
    return [f"s{int(v)}" for v in np.random.default_rng(seed).choice(n_labels, size=n, p=p)]


def measure(name, data, release, model, repeat):
    by_label = isinstance(model, LDiversity)
    t_graph, mc = best_of(lambda: match_classes(data, release, by_label=by_label), repeat)
    t_audit, rep = best_of(lambda: model.audit(data, release), repeat)
    d = rep.details
    return {
        "release": name,
        "model": rep.model,
        "records": data.n_records,
        "satisfied": rep.satisfied,
        "seconds_audit": round(t_audit, 3),
        "seconds_match_graph": round(t_graph, 3),
        "match_edges": mc.n_edges,
        "class_edges": len(mc.edge_record),
        "record_classes": len(mc.record_size),
        "row_classes": len(mc.row_size),
        "min_matches": d["min_matches"],
        "min_viable_candidates": d["min_viable_candidates"],
        **({"min_viable_labels": d["min_viable_labels"]} if by_label else {}),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bms1-release", default=None, help="a saved bms1 nr k=10 release (else made here)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    load_before = os.getloadavg()
    rows = []
    chess = load("chess")
    chess_l = TransactionData(chess.matrix.copy(), chess.items, chess.record_ids, skewed_labels(chess.n_records), "chess")
    rel = anonymize_nonreciprocal(chess, k=5, order="gray", rng=0)
    rows.append(measure("chess nr k=5 (gray)", chess, rel, NonreciprocalKAnonymity(5), args.repeat))
    rel = anonymize_nonreciprocal(chess_l, l=5, order="gray", rng=0)
    rows.append(measure("chess nr l=5 (gray, flow)", chess_l, rel, LDiversity(5), args.repeat))
    rows.append(measure("chess nr l=5 (gray, flow)", chess_l, rel, NonreciprocalKAnonymity(5), args.repeat))
    bms1 = load("bms1")
    if args.bms1_release:
        rel = load_release(args.bms1_release)
    else:
        rel = anonymize_nonreciprocal(bms1, k=10, rng=0)
    rows.append(measure("bms1 nr k=10 (gray-tsp)", bms1, rel, NonreciprocalKAnonymity(10), args.repeat))
    out = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "repeat": args.repeat,
        "rows": rows,
    }
    print_and_save(out, "audit_nonreciprocal", indent=1)

if __name__ == "__main__":
    main()
