"""The completion attack against every release kind: the old file's fingerprint vs the keyed one (issue 30, item 2).

The adversary holds every record but the target's and the release file
(:func:`graphanon.attacks.completion_attack`). For each release kind one
release is made and published twice: as a ``graphanon-release/3`` file
(keyed digest, no counts) and, for comparison, with the fingerprint a
``graphanon-release/2`` file published (salt and counts in clear,
:func:`graphanon.release.fingerprint.legacy_fingerprint`). Both files are
saved and read back, and the attack is run on the same targets.

Cases (bundled groceries baskets, restricted to the items their records
hold; random subsamples, seed 0):

* global recoding: ``hghs`` k=5, m=2, bundled 3-level taxonomy, 1,000 baskets;
* local recoding: ``clump`` k=5, bundled taxonomy, 300 baskets;
* nonreciprocal: ``nr`` k=3, 300 baskets;
* perturbed: ``partswap`` with 3 random categories, 300 baskets.

Per case and file: success (mean probability that a uniform pick among the
guesses the file leaves is the target's exact record) against its bound
(the same over the completions the rows allow), exact records recovered,
targets whose length the file told, median guesses tested, and the time.

Usage: ``python benchmarks/completion.py [--targets 25] [--max-guesses 20000]``;
prints JSON and writes ``benchmarks/results/completion.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphanon.attacks import completion_attack  # noqa: E402
from graphanon.cli.registry import RunOptions, get_algorithm  # noqa: E402
from graphanon.data import TransactionData  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.errors import LegacyFingerprintWarning  # noqa: E402
from graphanon.release import load_release  # noqa: E402
from graphanon.release.fingerprint import legacy_fingerprint  # noqa: E402

#: kind -> (method, records, RunOptions keywords)
CASES = {
    "global_recoding": ("hghs", 1000, {"k": 5, "m": 2, "taxonomy": "groceries"}),
    "local_recoding": ("clump", 300, {"k": 5, "taxonomy": "groceries"}),
    "nonreciprocal": ("nr", 300, {"k": 3}),
    "perturbed": ("partswap", 300, {"params": {"categories": "random:3"}}),
}


def baskets(n: int) -> TransactionData:
    """``n`` random groceries baskets over the items they hold."""
    full = load("groceries")
    data = full.subset(np.sort(np.random.default_rng(0).choice(full.n_records, n, replace=False)))
    used = np.flatnonzero(np.asarray(sp.csr_array(data.matrix).sum(axis=0)).ravel() > 0)
    return TransactionData(sp.csr_array(data.matrix)[:, used], [data.items[j] for j in used], data.record_ids)


def run_case(kind: str, n_targets: int, max_guesses: int, tmp: Path) -> dict:
    method, n, opts = CASES[kind]
    data = baskets(n)
    kw = dict(opts)
    if kw.get("taxonomy") == "groceries":
        kw["taxonomy"] = load_taxonomy("groceries")
    release = get_algorithm(method).run(data, RunOptions(seed=1, **kw))
    release.save(tmp / f"{kind}-new.json")
    release.fingerprint = legacy_fingerprint(data, salt=os.urandom(16).hex())
    release.save(tmp / f"{kind}-old.json")
    targets = np.sort(np.random.default_rng(1).choice(n, n_targets, replace=False))
    out = {"method": method, "records": n, "items": data.n_items, "targets": n_targets, "files": {}}
    for name in ("new", "old"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LegacyFingerprintWarning)
            loaded = load_release(tmp / f"{kind}-{name}.json")
        t0 = time.perf_counter()
        res = completion_attack(data, loaded, targets=targets, max_guesses=max_guesses)
        d = res.details
        out["files"][name] = {
            "format": json.loads((tmp / f"{kind}-{name}.json").read_text())["format"],
            "success": round(res.success, 6), "bound": round(res.bound, 6), "margin": round(res.margin, 6),
            "within_bound": res.within_bound(), "recovered": d["recovered"], "length_learnt": d["length_learnt"],
            "truth_allowed": d["truth_allowed"], "rows_only_recovered": d["rows_only_recovered"],
            "median_tested": d["median_tested"], "median_guesses_rows_allow": d["median_guesses"],
            "seconds": round(time.perf_counter() - t0, 2),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=25)
    ap.add_argument("--max-guesses", type=int, default=20_000)
    ap.add_argument("--kinds", default=",".join(CASES))
    args = ap.parse_args()
    result = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                          "note": "2 cores shared with other jobs (loaded)"},
              "max_guesses": args.max_guesses, "cases": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds.split(","):
            result["cases"][kind] = run_case(kind, args.targets, args.max_guesses, Path(tmp))
            print(kind, json.dumps(result["cases"][kind]), file=sys.stderr, flush=True)
    text = json.dumps(result, indent=1)
    print(text)
    path = ROOT / "benchmarks" / "results" / "completion.json"
    path.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
