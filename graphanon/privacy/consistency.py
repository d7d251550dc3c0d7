"""Check that a global recoding really is a recoding of the original data.

Order-free: a release publishes its rows in a secret random order, so the
check compares the *multiset* of published rows with the multiset of the
original records' expected recodings (rows sorted by an order-free set hash,
then compared exactly). When the release publishes sensitive labels, each
label is part of its row: the multiset of (published row, label) pairs must
equal the multiset of (recoding of a record, the record's label) -- two labels
swapped between rows of different recodings break it, although the label
multiset and the row multiset are each unchanged. With the private link
(``release.link``) every record is compared with its own row instead.
Written without
:func:`graphanon.counting.support.generalize_matrix` so that an error there cannot
hide itself from the audits.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import canonical_row_order, row_hashes
from graphanon.privacy.label_matching import label_codes, linked_rows

__all__ = ["public_taxonomy_problems", "recoding_mismatches"]


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
    """Group equal row hashes of both sides.

    Group of each expected / published row, and how many expected and published rows each group
    holds (one lexsort, no Python loop).
    """
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


def _label_columns(M: sp.csr_array, codes: np.ndarray, n_codes: int) -> sp.csr_array:
    """``M`` with one more column per label code, set in each row for its label."""
    n = M.shape[0]
    onehot = sp.csr_array((np.ones(n, dtype=np.int64), (np.arange(n), codes)), shape=(n, n_codes))
    out = sp.csr_array(sp.hstack([M, onehot], format="csr"))
    out.sort_indices()
    return out


def recoding_mismatches(original, release, *, max_examples: int = 10) -> tuple[int, list[dict]]:
    """Original records whose recoding (and label) is not among the published rows.

    The published rows must be exactly the multiset of the original records'
    recodings, in any order; a release with sensitive labels must publish
    exactly the multiset of (recoding, label) pairs. With the private link
    (``release.link``, e.g. attached by ``graphanon audit --link``), each
    record's own row must be its recoding and carry its label.

    Parameters
    ----------
    original : TransactionData
        The data the release claims to recode (with its labels when the
        release publishes labels).
    release : GlobalRecoding
    max_examples : int

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

    Notes
    -----
    Complexity: O(occurrences + n log n): one sparse product, a vectorized row hash, a sort.

    Examples
    --------
    Two labels swapped between rows of different recodings:

    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a"], ["a"], ["b"], ["b"]], labels=["flu", "flu", "hiv", "hiv"])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "a", "b": "b"})
    >>> recoding_mismatches(data, rel)[0]
    0
    >>> rel.labels = ("hiv", "flu", "flu", "hiv")     # rows a, a, b, b: one (a, flu) and one (b, hiv) short
    >>> recoding_mismatches(data, rel)[0]
    2
    """
    if original.n_records != release.n_records:
        return 1, [{"problem": "record count", "original": original.n_records, "published": release.n_records}]
    expected = _expected_recodings(original, release)
    published = sp.csr_array(release.records).astype(np.int64)
    published.sort_indices()
    if original.n_records == 0:
        return 0, []
    labels = [str(pi.label) for pi in release.published_items]
    label_problem = []
    published_labels = getattr(release, "labels", None)
    if published_labels is not None and original.labels is None:
        label_problem = [{"problem": "the release publishes sensitive labels but the original data has none, so "
                          "they cannot be checked; load the data with its label column"}]
    elif published_labels is not None:
        orig_code, pub_code, values = label_codes(original.labels, published_labels)
        expected = _label_columns(expected, orig_code, len(values))
        published = _label_columns(published, pub_code, len(values))
        labels = labels + [f"[label {v}]" for v in values]

    def text(M, i):
        return " ".join(labels[g] for g in M.indices[M.indptr[i] : M.indptr[i + 1]])

    label_problem = label_problem + public_taxonomy_problems(original, release)
    link = getattr(release, "link", None)
    if link is not None and hasattr(link, "rows_for"):
        n_bad, problems = _linked_mismatches(original, release, expected, published, link, text, max_examples)
        return n_bad + len(label_problem), (label_problem + problems)[:max_examples]
    n_bad, problems = _multiset_mismatches(original, release, expected, published, text, max_examples)
    return n_bad + len(label_problem), (label_problem + problems)[:max_examples]


def public_taxonomy_problems(original, release) -> list[dict]:
    """What breaks the promise of a release that says ``public_taxonomy``: a file that names no code.

    Such a release must suppress no item of ``original`` (a suppressed code
    is told apart from the absent ones by its frequency elsewhere) and
    publish no item that no record holds (its codes would be shown absent).
    Releases without the parameter promise neither: no problem.

    Returns
    -------
    list of dict
        At most two problems, each with a ``count`` and a few examples.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a", "b"], ["a"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "A", "b": None}, params={"public_taxonomy": True})
    >>> [p["count"] for p in public_taxonomy_problems(data, rel)]
    [1]
    """
    params = getattr(release, "params", None) or {}
    if not params.get("public_taxonomy"):
        return []
    listed = {str(m) for pi in release.published_items for m in pi.members}
    missing = [x for x in original.items if str(x) not in listed]
    problems = []
    if missing:
        problems.append({"problem": "the release says public_taxonomy but suppresses items of the data, which the "
                         "file then tells apart from absent ones", "count": len(missing), "items": missing[:5]})
    held = np.bincount(sp.csr_array(release.records).indices, minlength=len(release.published_items))
    empty = [release.published_items[g].label for g in np.flatnonzero(held == 0)]
    if empty:
        problems.append({"problem": "the release says public_taxonomy but publishes items no record holds, whose "
                         "codes the file then shows absent", "count": len(empty), "published_items": empty[:5]})
    return problems


def _linked_mismatches(original, release, expected, published, link, text, max_examples):
    """Each record against its own row (the private link): rows that differ, exactly."""
    rows, unfit = linked_rows(original, link)
    if rows is None:
        return 1, unfit
    diff = sp.csr_array(expected != sp.csr_array(published[rows]))
    bad = np.flatnonzero(np.diff(diff.indptr))
    problems = [
        {"problem": "the private link gives this record a row that is not its recoding",
         "expected": text(expected, int(i)), "records": [original.record_ids[int(i)]],
         "published": text(published, int(rows[i])), "published_records": [release.pseudonyms[int(rows[i])]]}
        for i in bad[:max_examples]
    ]
    return len(bad), problems


def _multiset_mismatches(original, release, expected, published, text, max_examples):
    """Without the link: the multiset of expected rows against the multiset of published rows."""
    he, hp = row_hashes(expected), row_hashes(published)
    ge, gp, ce, cp = _hash_groups(he, hp)
    n_bad = int(np.maximum(ce - cp, 0).sum())
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
                 "published": text(published, int(pub[0])), "original_count": len(rows),
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
             "published": text(published, int(op[r])), "published_records": [release.pseudonyms[int(op[r])]]}
        )
    return len(rows), problems
