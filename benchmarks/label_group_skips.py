"""The group-skip adversary against label groups and CAHD groups (issue 30); prints JSON.

``nr --param l=L`` with label groups formed along the public record order,
and ``cahd``, form their groups one after the other along that order,
taking rows by their labels: a row waits while its label is already in the
group being formed, so the groups formed before a record's own that span
its position (they *skipped* it) say which labels it has. The adversary is
:func:`graphanon.attacks.group_skip_attack`: it holds every record's items,
the public order (``nr``: ``release.trace.order``, what the data and the
structure seed recompute; ``cahd``: its Gray order, recomputed from the
data), each record's group (its candidate rows where they lie in one group,
else the private link: the strongest case) and the groups' published label
multisets.

Rows: the heuristic reading (intersect the own group's labels with every
skipping group's, in the order of their first position) on 3,000 records of
each dataset, for ``nr`` and ``cahd``; when ``nr``'s declaration has a
``grouping`` parameter (checked at run time), ``nr`` with ``grouping=order``
and ``grouping=random`` too, rows labelled by grouping. Then the exact
posterior (every labelling the groups' multisets allow, the public grouping
re-run on each, the consistent ones kept, MAP guess with ties split) next to
the heuristic, on small samples -- as many records as the enumeration
allows (``--exact-n`` records per sample, ``--exact-samples`` samples of
the e-book sessions, different generator seeds).

Data: tests/patients.py (3,000 patients, 400 codes, a skewed 5-value label
correlated with the codes, seed 0) and tests/ebook_sessions.py (3,000
sessions over 300 titles, 6 labels, seed 0); ``nr`` k=3, l=3, structure
seed 1, secret draws pinned (``unsafe_secret_seed=5``) so the run repeats.

Usage: ``python benchmarks/label_group_skips.py [--quick] [--no-save] [--exact-n N] [--exact-samples S]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks._common import print_and_save  # noqa: E402
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.algorithms.registry import get_declaration  # noqa: E402
from graphanon.attacks import chernoff_margin, group_skip_attack  # noqa: E402
from graphanon.errors import ParameterError  # noqa: E402
from tests.ebook_sessions import ebook_sessions  # noqa: E402
from tests.patients import patients  # noqa: E402

L = 3


def _grouping_parameter():
    """nr's declared ``grouping`` parameter, or None (read from the declaration at run time)."""
    return next((p for p in get_declaration("nr").params if p.name == "grouping"), None)


def groupings() -> list[str | None]:
    """``[None]`` (nr's one grouping), or ``["order", "random"]`` when nr declares a ``grouping`` parameter."""
    return [None] if _grouping_parameter() is None else ["order", "random"]


def nr_release(data, grouping):
    param = _grouping_parameter()
    extra = {} if grouping is None or param is None else {param.target: param.parse(grouping)}
    return anonymize_nonreciprocal(data, k=3, l=L, rng=1, unsafe_secret_seed=5, **extra)


def row(name: str, method: str, res, seconds: float) -> dict:
    """One row of the table from an AttackResult."""
    d = res.details
    return {"data": name, "method": method, "records": res.n_targets,
            "uniform_in_group": round(d["uniform_in_group"], 4), "adversary_all": round(res.success, 4),
            "bound_all": round(res.bound + res.margin, 4), "margin_all": round(res.margin, 4),
            "within_bound": res.within_bound(),
            "skipped_records": d["skipped_records"], "adversary_skipped": round(d["skipped_success"], 4),
            "bound_skipped": round(res.bound + d["skipped_margin"], 4),
            "pinned": d["pinned"], "pinned_right": d["pinned_right"],
            "group_from_candidates": d["group_from_candidates"], "group_from_link": d["group_from_link"],
            "order_source": d["order_source"], "seconds": round(seconds, 2)}


def exact_rows(n: int, samples: int, methods) -> list[dict]:
    """The exact posterior next to the heuristic on ``samples`` e-book samples of ``n`` records each."""
    out = []
    for method, make in methods:
        per_target: dict[str, list[float]] = {"heuristic": [], "exact": []}
        pinned = {"heuristic": [0, 0], "exact": [0, 0]}
        worlds, consistent, used, seconds = [], [], 0, 0.0
        seed = 0
        while used < samples and seed < 20 * samples:
            data = ebook_sessions(n, max(n, 20), seed=seed)
            seed += 1
            try:
                rel = make(data)
            except ParameterError:  # a label on more than n / l records: no l-diverse grouping of this sample
                continue
            used += 1
            start = time.perf_counter()
            for reading in ("heuristic", "exact"):
                res = group_skip_attack(data, rel, truth=rel.link, method=reading, max_worlds=10**6)
                per_target[reading].append(res.success * res.n_targets)
                pinned[reading][0] += res.details["pinned"]
                pinned[reading][1] += res.details["pinned_right"]
                if reading == "exact":
                    worlds.append(res.details["worlds"])
                    consistent.append(res.details["consistent_worlds"])
            seconds += time.perf_counter() - start
        records = used * n
        out.append({"data": "e-book sessions", "method": method, "samples": used, "records_per_sample": n,
                    "records": records, "bound": round(1 / L, 4),
                    "bound_with_margin": round(1 / L + chernoff_margin(records, 1 / L, 0.999), 4),
                    "heuristic": round(sum(per_target["heuristic"]) / records, 4),
                    "exact": round(sum(per_target["exact"]) / records, 4),
                    "pinned_heuristic": pinned["heuristic"][0], "pinned_right_heuristic": pinned["heuristic"][1],
                    "pinned_exact": pinned["exact"][0], "pinned_right_exact": pinned["exact"][1],
                    "worlds_per_sample": int(np.median(worlds)) if worlds else 0,
                    "consistent_worlds_median": int(np.median(consistent)) if consistent else 0,
                    "seconds": round(seconds, 1)})
    return out


def main() -> None:
    """Run the adversary on both datasets, then the exact posterior on small samples, and print the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1,000 records instead of 3,000")
    ap.add_argument("--no-save", action="store_true", help="print only")
    ap.add_argument("--exact-n", type=int, default=15, help="records per sample of the exact posterior (nr)")
    ap.add_argument("--exact-samples", type=int, default=20, help="samples of the exact posterior")
    args = ap.parse_args()
    n = 1000 if args.quick else 3000
    rows = []
    for name, data in (("patients", patients(n, seed=0)), ("e-book sessions", ebook_sessions(n, 300, seed=0))):
        for grouping in groupings():
            start = time.perf_counter()
            release = nr_release(data, grouping)
            res = group_skip_attack(data, release, truth=release.link)
            label = "nr groups" if grouping is None else f"nr grouping={grouping}"
            rows.append(row(name, label, res, time.perf_counter() - start))
        start = time.perf_counter()
        release = anonymize_cahd(data, l=L, grouping="order", unsafe_secret_seed=5)
        rows.append(row(name, "cahd", group_skip_attack(data, release, truth=release.link),
                        time.perf_counter() - start))
    exact_methods = [(("nr groups" if g is None else f"nr grouping={g}"), (lambda d, g=g: nr_release(d, g)))
                     for g in groupings() if g != "random"]
    exact = exact_rows(args.exact_n, args.exact_samples, exact_methods)
    exact += exact_rows(12, args.exact_samples, [("cahd", lambda d: anonymize_cahd(d, l=L, grouping="order", unsafe_secret_seed=5))])
    print_and_save({"benchmark": "label_group_skips", "l": L, "rows": rows, "exact": exact,
                    "load_average": [round(x, 2) for x in os.getloadavg()]},
                   "label_group_skips", save=not args.no_save)


if __name__ == "__main__":
    main()
