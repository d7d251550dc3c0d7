"""Releases of data that grew, shrank or was resampled: what the joint adversary pins, and ``--prior``.

Data: e-book-like reading sessions with a genre-correlated 6-value label
(tests/ebook_sessions.py): ``--sessions`` people, and ``--added`` more who
join later (one record id per person). For ``cahd`` l=3 and ``nr`` k=3 l=3
(``--methods``), releases made without a seed:

* D and D + added, made independently;
* D and D less the first ``--removed`` people, made independently;
* D and D + added with ``priors=`` the first (docs/updates.md), and the
  refusal of ``priors=`` for the shrunk data;
* D twice: made independently (``nr`` with the same structure seed, so the
  same rows, its label groups drawn anew in secret), and made again with
  ``priors=`` the first (``--same``, on by default).

Each pair is audited by :class:`graphanon.privacy.joint.JointAudit` with
both private links (records matched by id; only the ids are read):
records pinned to one label, below l, and whether the audit was exact
(above ``EXACT_RECORDS`` records it is the propagation: the counts are then
lower bounds of what an exact adversary pins).

Usage: ``python benchmarks/updates.py [--sessions 3000] [--titles 300] [--added 100] [--removed 30]
[--methods cahd,nr] [--no-same]``; prints one JSON line per pair and writes ``benchmarks/results/updates.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from ebook_sessions import ebook_sessions  # noqa: E402

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.errors import GraphanonError  # noqa: E402
from graphanon.privacy import LDiversity  # noqa: E402
from graphanon.privacy.joint import JointAudit  # noqa: E402


def make(method: str, data, **kw):
    if method == "cahd":
        return anonymize_cahd(data, l=3, **kw)
    return anonymize_nonreciprocal(data, k=3, l=3, **kw)


def audit(name: str, union, first, second) -> dict:
    start = time.perf_counter()
    rep = JointAudit(LDiversity(3)).audit(union, [first, second], links=[first.link, second.link])
    row = {
        "releases": name,
        "records": rep.details["records"],
        "in_both": rep.details["records_in_every_release"],
        "alone_satisfied": [r["satisfied"] for r in rep.details["per_release"]],
        "joint_satisfied": rep.satisfied,
        "pinned": rep.details["pinned_records"],
        "below_l": rep.details["records_below_level"],
        "exact": rep.details["exact"],
        "distinct_releases": rep.details["distinct_releases"],
        "audit_seconds": round(time.perf_counter() - start, 2),
    }
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=3000)
    ap.add_argument("--titles", type=int, default=300)
    ap.add_argument("--added", type=int, default=100)
    ap.add_argument("--removed", type=int, default=30)
    ap.add_argument("--methods", default="cahd,nr")
    ap.add_argument("--same", action=argparse.BooleanOptionalAction, default=True,
                    help="also the same data published twice (independently, and with priors=)")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "updates.json"))
    args = ap.parse_args()
    full = ebook_sessions(args.sessions + args.added, args.titles, seed=1).drop_unused_items()
    old = full.subset(np.arange(args.sessions)).drop_unused_items()
    shrunk = full.subset(np.arange(args.removed, args.sessions)).drop_unused_items()
    rows = []
    for method in args.methods.split(","):
        first = make(method, old)
        rows.append(audit(f"{method} l=3: D + D and {args.added} added", full, first, make(method, full)))
        rows.append(audit(f"{method} l=3: D + D less {args.removed}", old, first, make(method, shrunk)))
        start = time.perf_counter()
        again = make(method, full, priors=first)
        row = audit(f"{method} l=3: D + D and {args.added} added, priors= the first", full, first, again)
        row["make_seconds"] = round(time.perf_counter() - start, 2)
        rows.append(row)
        try:
            make(method, shrunk, priors=first)
            refusal = "made"
        except GraphanonError as exc:
            refusal = str(exc)
        rows.append({"releases": f"{method} l=3: D less {args.removed}, priors= the first", "refused": refusal})
        print(json.dumps(rows[-1]), flush=True)
        if args.same:  # the same data twice: independent runs (nr: same structure seed), then priors=
            seed = {} if method == "cahd" else {"rng": 1}
            first = make(method, old, **seed)
            rows.append(audit(f"{method} l=3: D twice, independent", old, first, make(method, old, **seed)))
            start = time.perf_counter()
            again = make(method, old, priors=first)
            made = round(time.perf_counter() - start, 2)
            rows.append(audit(f"{method} l=3: D twice, priors= the first", old, first, again))
            rows[-1]["make_seconds"] = made
    Path(args.out).write_text(json.dumps({"sessions": args.sessions, "titles": args.titles, "added": args.added,
                                          "removed": args.removed, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
