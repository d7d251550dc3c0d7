"""Check that a global recoding really is a recoding of the original data.

Written without :func:`graphanon.support.generalize_matrix` so that an error
there cannot hide itself from the audits.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["recoding_mismatches"]


def recoding_mismatches(original, release, *, max_examples: int = 10) -> tuple[int, list[dict]]:
    """Records whose published form is not the recoding of the original record.

    Returns the number of mismatching records and up to ``max_examples``
    descriptions. A record count mismatch is reported as one problem.
    """
    if original.n_records != release.n_records:
        return 1, [
            {
                "problem": "record count",
                "original": original.n_records,
                "published": release.n_records,
            }
        ]
    problems = []
    if tuple(original.record_ids) != tuple(release.record_ids):
        pos = next(i for i, (a, b) in enumerate(zip(original.record_ids, release.record_ids)) if a != b)
        problems.append(
            {"problem": "record ids differ", "position": pos, "original": original.record_ids[pos],
             "published": release.record_ids[pos]}
        )
    n_pub = len(release.published_items)
    owner = {}
    for g, pi in enumerate(release.published_items):
        for member in pi.members:
            owner[member] = g
    rows, cols = [], []
    for j, label in enumerate(original.items):
        g = owner.get(label)
        if g is not None:
            rows.append(j)
            cols.append(g)
    R = sp.coo_array((np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(original.n_items, n_pub)).tocsr()
    expected = (original.matrix.astype(np.int64) @ R) > 0
    published = release.records.astype(bool)
    diff = (sp.csr_array(expected) != sp.csr_array(published)).tocsr()
    bad = np.flatnonzero(np.diff(diff.indptr) > 0)
    for i in bad[:max_examples]:
        exp = sorted(str(release.published_items[g].label) for g in sp.csr_array(expected)[[i]].indices)
        got = release.render_record(int(i))
        problems.append(
            {"problem": "record is not the recoding of the original", "record": original.record_ids[i],
             "expected": " ".join(exp), "published": got}
        )
    return len(bad) + (1 if problems and problems[0]["problem"] == "record ids differ" else 0), problems
