"""The joint audit's exact step: CP-SAT against the backtracking search.

Pairs of unseeded releases of e-book-like sessions (tests/ebook_sessions.py,
6 labels): two ``nr`` k=3 l=3 releases, and ``cahd`` l=3 + ``cahd`` l=2 on a
shuffled record order. For each pair, the propagation alone and the exact
step (``solver="cp-sat"``, and ``solver="search"`` in a child process killed
after ``--search-timeout`` seconds) count pinned records and records below l;
the two exact answers are compared when both finish.

Usage: ``python benchmarks/joint_exact.py [--sessions 300] [--titles 80] [--pairs 3]
[--search-timeout 120]``; prints one JSON line per pair and writes
``benchmarks/results/joint_exact_<sessions>.json`` (the files there were measured with CP-SAT alone,
before the matching pass of ``graphanon.privacy.joint_exact.cpsat_exact`` was added).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from ebook_sessions import ebook_sessions  # noqa: E402

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.privacy.joint import joint_label_sets  # noqa: E402


def _search(data, releases, queue) -> None:
    start = time.perf_counter()
    sets = joint_label_sets(data, releases, exact=True, solver="search")
    queue.put((time.perf_counter() - start, sets.allowed[sets.record_class]))


def counts(sets, level: int) -> dict:
    per = sets.labels_per_record()
    return {"pinned": int((per == 1).sum()), "below_l": int((per < level).sum())}


def pair(name, data, releases, level: int, timeout: float) -> dict:
    row: dict = {"releases": name, "records": data.n_records, "titles": data.n_items}
    start = time.perf_counter()
    row["propagation"] = counts(joint_label_sets(data, releases), level)
    row["propagation_seconds"] = round(time.perf_counter() - start, 2)
    start = time.perf_counter()
    cp = joint_label_sets(data, releases, exact=True, solver="cp-sat")
    row["cp_sat"] = counts(cp, level)
    row["cp_sat_seconds"] = round(time.perf_counter() - start, 2)
    queue: mp.Queue = mp.Queue()
    child = mp.get_context("fork").Process(target=_search, args=(data, releases, queue))
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.kill()
        child.join()
        row["search_seconds"] = f">{timeout:g} (stopped)"
    else:
        seconds, allowed = queue.get()
        row["search_seconds"] = round(seconds, 2)
        row["search_agrees"] = bool(np.array_equal(allowed, cp.allowed[cp.record_class]))
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=300)
    ap.add_argument("--titles", type=int, default=80)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--search-timeout", type=float, default=120.0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    args.out = args.out or str(Path(__file__).parent / "results" / f"joint_exact_{args.sessions}.json")
    rows = []
    for seed in range(args.pairs):
        data = ebook_sessions(args.sessions, args.titles, seed=seed)
        nr = [anonymize_nonreciprocal(data, k=3, l=3) for _ in range(2)]
        rows.append(pair(f"nr l=3 + nr l=3 (data seed {seed})", data, nr, 3, args.search_timeout))
        order = np.random.default_rng(seed).permutation(data.n_records)
        cahd = [anonymize_cahd(data, l=3), anonymize_cahd(data, l=2, order=order)]
        rows.append(pair(f"cahd l=3 + cahd l=2 shuffled (data seed {seed})", data, cahd, 2, args.search_timeout))
    Path(args.out).write_text(json.dumps({"sessions": args.sessions, "titles": args.titles, "rows": rows}, indent=1)
                              + "\n")


if __name__ == "__main__":
    main()
