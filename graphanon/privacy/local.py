"""Is a local recoding a recoding of the original data (the audits' independent check)?

A published record of a :class:`~graphanon.release.LocalRecoding` may stand for
an original record when:

* ``"one"`` reading: for every published node ``x`` of the row, the copies of
  the row's nodes whose items lie inside ``x``'s items are at most the
  record's items under ``x`` (Hall's condition on laminar sets: then every
  copy stands for a distinct item of the record);
* ``"some"`` reading: the record has an item under every published node, and
  every item of the record lies under one of them (an empty row may be any
  record: all its items suppressed). The nodes of such a row are disjoint
  (Partition publishes cuts); a forged row with nested nodes counts an item
  once per node above it, so it fits no record it would cover twice -- a
  conservative verdict on a row no anonymizer writes.

When the release publishes sensitive labels, a record may stand for a row
only if the row carries the record's label.

With the release's private link (``release.link``, in memory right after
anonymizing, or attached by ``graphanon audit --link``) each record is
checked against its own row. Without it the check is exact too: an
*assignment* must exist -- each record given a row it fits (and whose label
it carries), each row used exactly once. "Every record fits some row" and
"every distinct row is fit by as many records as it has copies" are
necessary only (six records, two of which fit no row while four fit two
groups of three, pass both); the assignment is decided by one maximum flow
on (record class, row class) with capacities the class sizes
(:func:`graphanon.privacy.label_matching.class_assignment`), and the number
of records no assignment can place is reported.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.privacy.label_matching import class_assignment, label_codes, linked_rows
from graphanon.release.local_recoding import records_fitting

__all__ = ["local_recoding_mismatches"]


def _requirement(original, release, member: sp.csr_array) -> sp.csr_array:
    """Per row and own node: items the original record needs under the node."""
    recs = sp.csr_array(release.records, dtype=np.int64)
    mask = sp.csr_array((np.ones(recs.nnz, np.int64), recs.indices, recs.indptr), shape=recs.shape)
    if release.reading == "some":
        return mask
    # contain[y, x] = 1 when items(y) are a subset of items(x): |items(y) & items(x)| == |items(y)|
    overlap = sp.csr_array(member.T @ member)
    size = member.sum(axis=0)
    coo = overlap.tocoo()
    keep = coo.data == size[coo.row]
    # every node contains itself, also one with no item of the data (its copies then need items nobody has)
    d = overlap.shape[0]
    rows = np.concatenate([coo.row[keep], np.arange(d)])
    cols = np.concatenate([coo.col[keep], np.arange(d)])
    contain = sp.csr_array((np.ones(len(rows), np.int64), (rows, cols)), shape=overlap.shape)
    contain.sum_duplicates()
    contain.data[:] = 1  # the diagonal was summed with itself where already present
    return sp.csr_array(sp.csr_array(recs @ contain).multiply(mask))


def _fits(have: sp.csr_array, need: sp.csr_array, lengths: np.ndarray, reading: str) -> np.ndarray:
    """Row-wise: does ``have`` (record counts under the row's nodes) meet ``need``?"""
    mask = sp.csr_array((np.ones(need.nnz, np.int64), need.indices, need.indptr), shape=need.shape)
    got = sp.csr_array(have.multiply(mask))
    short = sp.csr_array(need - got)
    bad = np.zeros(need.shape[0], dtype=bool)
    if short.nnz:
        bad[np.repeat(np.arange(short.shape[0]), np.diff(short.indptr))[short.data > 0]] = True
    if reading == "some":  # every item covered, unless the row is empty (all suppressed)
        bad |= (np.asarray(got.sum(axis=1)).ravel() != lengths) & (np.diff(need.indptr) > 0)
    return ~bad


def _label_codes(original, release) -> tuple[np.ndarray, np.ndarray] | None:
    """Shared label codes of records and rows, or None when the release publishes no labels."""
    if getattr(release, "labels", None) is None or original.labels is None:
        return None
    orig_code, pub_code, _ = label_codes(original.labels, release.labels)
    return orig_code, pub_code


def local_recoding_mismatches(original, release, *, max_examples: int = 10) -> tuple[int, list[dict]]:
    """Records the release cannot be a recoding of (count, examples).

    Parameters
    ----------
    original : TransactionData
    release : LocalRecoding
    max_examples : int

    Returns
    -------
    count : int
        With the private link: records whose own row they do not fit (or
        whose label it does not carry). Without: records that no assignment
        of records to rows can place (``records - maximum matching``).
    examples : list of dict

    Notes
    -----
    Complexity: with the link: O(occurrences * height + nnz of the rows). Without: one
    vectorized pass over the records per distinct published record, then one
    max-flow on the class graph.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> from graphanon.algorithms.grouping.clump import anonymize_clump
    >>> data = load("clump_food")
    >>> rel = anonymize_clump(data, taxonomy=load_taxonomy("clump_food"), k=3)
    >>> rel.link = None                         # audit as an outsider would
    >>> local_recoding_mismatches(data, rel)[0]
    0
    """
    if original.n_records != release.n_records:
        return abs(original.n_records - release.n_records), [
            {"problem": f"the original has {original.n_records} records, the release {release.n_records}"}
        ]
    codes = _label_codes(original, release)
    unchecked = []
    if getattr(release, "labels", None) is not None and original.labels is None:
        unchecked = [{"problem": "the release publishes sensitive labels but the original data has none, so "
                      "they cannot be checked; load the data with its label column"}]
    n_bad, examples = _local_mismatches(original, release, codes, max_examples)
    return n_bad + len(unchecked), (unchecked + examples)[:max_examples]


def _local_mismatches(original, release, codes, max_examples: int) -> tuple[int, list[dict]]:
    member = release.member_matrix(original.items)
    have = sp.csr_array(sp.csr_array(original.matrix, dtype=np.int64) @ member)
    need = _requirement(original, release, member)
    lengths = np.diff(original.matrix.indptr)
    link = getattr(release, "link", None)
    examples: list[dict] = []
    if link is not None and hasattr(link, "rows_for"):
        row_of_record, unfit = linked_rows(original, link)
        if row_of_record is None:
            return 1, unfit
        rec_of_row = np.empty_like(row_of_record)
        rec_of_row[row_of_record] = np.arange(len(row_of_record))
        ok = _fits(sp.csr_array(have[rec_of_row]), need, lengths[rec_of_row], release.reading)
        label_ok = np.ones(len(ok), dtype=bool) if codes is None else codes[0][rec_of_row] == codes[1]
        bad_rows = np.flatnonzero(~(ok & label_ok))
        for j in bad_rows[:max_examples]:
            examples.append(
                {
                    "published_record": release.pseudonyms[j],
                    "published": release.render_record(int(j)),
                    "record": original.record_ids[int(rec_of_row[j])],
                    "problem": "the record linked to this row does not fit it" if not ok[j]
                    else "the record linked to this row has another label",
                }
            )
        return len(bad_rows), examples
    return _assignment_mismatches(original, release, have, need, lengths, codes, max_examples)


def _assignment_mismatches(original, release, have, need, lengths, codes, max_examples):
    """Without the link: records that no record-to-row assignment can place (max-flow on classes)."""
    # imported here: the match-graph module loads numba, which audits of global recodings never need
    from graphanon.privacy.match_graph import row_classes

    n = original.n_records
    X = sp.csr_array(original.matrix, dtype=bool)
    X.sort_indices()
    rec_label = np.zeros(n, np.int64) if codes is None else codes[0]
    row_label = np.zeros(n, np.int64) if codes is None else codes[1]
    rec_class, rec_size = row_classes([X], [rec_label])
    groups = release.group_ids()
    row_class, row_size = row_classes([], [groups, row_label])
    class_row = _first_row_of(row_class, len(row_size))
    class_group, class_label = groups[class_row], row_label[class_row]
    # the row classes of each group (a group's rows differ at most by label)
    by_group = np.argsort(class_group, kind="stable")
    group_ptr = np.concatenate([[0], np.cumsum(np.bincount(class_group, minlength=int(groups.max(initial=-1)) + 1))])
    width = int(max(rec_label.max(initial=0), row_label.max(initial=0))) + 1
    fits_any = np.zeros(n, dtype=bool)
    have_csc = have.tocsc()
    edges_a, edges_b = [], []
    for g, j in enumerate(np.unique(groups, return_index=True)[1]):  # one fitting test per distinct row
        cols = need.indices[need.indptr[j] : need.indptr[j + 1]]
        req = need.data[need.indptr[j] : need.indptr[j + 1]]
        fit = records_fitting(have, have_csc, lengths, cols, req, cover=release.reading == "some" and len(cols) > 0)
        fits_any[fit] = True
        # record class A -> row class B of this group when a fitting record of A carries B's label
        key = np.unique(rec_class[fit] * width + rec_label[fit])
        classes_b = by_group[group_ptr[g] : group_ptr[g + 1]]
        ia, ib = np.nonzero((key % width)[:, None] == class_label[classes_b][None, :])
        edges_a.append(key[ia] // width)
        edges_b.append(classes_b[ib])
    ea = np.concatenate(edges_a) if edges_a else np.zeros(0, np.int64)
    eb = np.concatenate(edges_b) if edges_b else np.zeros(0, np.int64)
    result = class_assignment(rec_size, row_size, ea, eb)
    examples: list[dict] = []
    if not result.exists:
        stuck = np.flatnonzero(np.isin(rec_class, result.witness["record_classes"])) if result.witness else []
        examples.append(
            {"problem": f"no assignment of records to rows exists: at most {result.placed} of {n} records can "
                        "each be given a distinct row they fit"
                        + ("" if codes is None else " and whose label they carry"),
             "unplaced": result.unplaced,
             "records": [original.record_ids[int(i)] for i in stuck[:5]]}
        )
    lost = np.flatnonzero(~fits_any)
    for i in lost[: max(0, max_examples - len(examples))]:
        examples.append({"record": original.record_ids[int(i)], "problem": "this original record fits no published record"})
    return result.unplaced, examples[:max_examples]


def _first_row_of(cls: np.ndarray, n_classes: int) -> np.ndarray:
    first = np.empty(n_classes, dtype=np.int64)
    first[cls[::-1]] = np.arange(len(cls))[::-1]
    return first
