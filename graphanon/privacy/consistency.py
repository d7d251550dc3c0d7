"""Check that a global recoding really is a recoding of the original data.

Order-free: a release publishes its rows in a secret random order, so the
check compares the *multiset* of published rows with the multiset of the
original records' expected recodings (rows sorted by an order-free set hash,
then compared exactly). Written without
:func:`graphanon.support.generalize_matrix` so that an error there cannot
hide itself from the audits.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon._rows import canonical_row_order, row_hashes

__all__ = ["recoding_mismatches"]


def _expected_recodings(original, release) -> sp.csr_array:
    """Each original record recoded by the release's published items (bool CSR)."""
    owner = {}
    for g, pi in enumerate(release.published_items):
        for member in pi.members:
            owner[member] = g
    pairs = [(j, owner[label]) for j, label in enumerate(original.items) if label in owner]
    rows = np.array([p[0] for p in pairs], dtype=np.int64)
    cols = np.array([p[1] for p in pairs], dtype=np.int64)
    R = sp.csr_array(
        (np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(original.n_items, len(release.published_items))
    )
    expected = sp.csr_array(sp.csr_array(original.matrix).astype(np.int64) @ R)
    expected.data = (expected.data > 0).astype(np.int64)
    expected.eliminate_zeros()
    expected.sort_indices()
    return expected


def _hash_groups(he: np.ndarray, hp: np.ndarray):
    """Group equal row hashes of both sides: group of each expected / published row, and
    how many expected and published rows each group holds (one lexsort, no Python loop)."""
    h = np.concatenate([he, hp])
    order = np.lexsort((h[:, 1], h[:, 0]))
    hs = h[order]
    new = np.ones(len(h), dtype=bool)
    new[1:] = (hs[1:] != hs[:-1]).any(axis=1)
    group = np.empty(len(h), dtype=np.int64)
    group[order] = np.cumsum(new) - 1
    n_groups = int(new.sum())
    ge, gp = group[: len(he)], group[len(he) :]
    return ge, gp, np.bincount(ge, minlength=n_groups), np.bincount(gp, minlength=n_groups)


def recoding_mismatches(original, release, *, max_examples: int = 10) -> tuple[int, list[dict]]:
    """Original records whose recoding is not among the published rows.

    The published rows must be exactly the multiset of the original records'
    recodings, in any order.

    Returns
    -------
    count : int
        Original records left without an equal published row (as many
        published rows are then left over); a record count mismatch counts
        as one problem.
    problems : list of dict
        Up to ``max_examples`` descriptions, one per recoding that is short
        of published rows (with its ``original_count``, ``published_count``
        and some of its original ``records``, by the ids the auditor holds)
        or has too many (with some ``published_records``, by pseudonym).

    Complexity
    ----------
    O(occurrences + n log n): one sparse product, a vectorized row hash, a sort.
    """
    if original.n_records != release.n_records:
        return 1, [{"problem": "record count", "original": original.n_records, "published": release.n_records}]
    expected = _expected_recodings(original, release)
    published = sp.csr_array(release.records).astype(np.int64)
    published.sort_indices()
    if original.n_records == 0:
        return 0, []
    he, hp = row_hashes(expected), row_hashes(published)
    ge, gp, ce, cp = _hash_groups(he, hp)
    n_bad = int(np.maximum(ce - cp, 0).sum())
    labels = [str(pi.label) for pi in release.published_items]

    def text(M, i):
        return " ".join(labels[g] for g in M.indices[M.indptr[i] : M.indptr[i + 1]])

    problems = []
    if n_bad:  # some recodings have fewer published rows than records (as many rows are left over)
        for key in np.flatnonzero(ce > cp)[:max_examples]:
            rows, pub = np.flatnonzero(ge == key), np.flatnonzero(gp == key)
            problems.append(
                {"problem": "fewer published records than original records with this recoding",
                 "expected": text(expected, int(rows[0])), "original_count": len(rows), "published_count": len(pub),
                 "records": [original.record_ids[int(i)] for i in rows[:5]]}
            )
        for key in np.flatnonzero(cp > ce)[: max(0, max_examples - len(problems))]:
            rows, pub = np.flatnonzero(ge == key), np.flatnonzero(gp == key)
            problems.append(
                {"problem": "more published records than original records with this recoding",
                 "published": release.render_record(int(pub[0])), "original_count": len(rows),
                 "published_count": len(pub), "published_records": [release.pseudonyms[int(p)] for p in pub[:5]]}
            )
        return n_bad, problems
    # equal hash multisets: confirm exactly, row by row in canonical order (a hash collision
    # between different rows can only show up here as a mismatch, never hide one)
    oe, op = canonical_row_order(expected, he), canonical_row_order(published, hp)
    diff = sp.csr_array(sp.csr_array(expected[oe]) != sp.csr_array(published[op]))
    rows = np.flatnonzero(np.diff(diff.indptr))
    for r in rows[:max_examples]:
        problems.append(
            {"problem": "published records differ from the original records' recodings",
             "expected": text(expected, int(oe[r])), "records": [original.record_ids[int(oe[r])]],
             "published": release.render_record(int(op[r])), "published_records": [release.pseudonyms[int(op[r])]]}
        )
    return len(rows), problems
