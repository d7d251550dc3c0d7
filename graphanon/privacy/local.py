"""Is a local recoding a recoding of the original data? (independent check for the audits)

A published record of a :class:`~graphanon.release.LocalRecoding` may stand for
an original record when:

* ``"one"`` reading: for every published node ``x`` of the row, the copies of
  the row's nodes whose items lie inside ``x``'s items are at most the
  record's items under ``x`` (Hall's condition on laminar sets: then every
  copy stands for a distinct item of the record);
* ``"some"`` reading: the record has an item under every published node, and
  every item of the record lies under one of them (an empty row may be any
  record: all its items suppressed).

With the release's private link (``release.link``, in memory right after
anonymizing) each record is checked against its own row; without it, each
original record must fit some row and each distinct published record must be
fit by at least as many original records as it has rows.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

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
    contain = sp.csr_array((np.ones(keep.sum(), np.int64), (coo.row[keep], coo.col[keep])), shape=overlap.shape)
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


def local_recoding_mismatches(original, release, *, max_examples: int = 10) -> tuple[int, list[dict]]:
    """Records the release cannot be a recoding of (count, examples).

    Complexity
    ----------
    With the link: O(occurrences * height + nnz of the rows). Without: one
    vectorized pass over the records per distinct published record.
    """
    if original.n_records != release.n_records:
        return abs(original.n_records - release.n_records), [
            {"problem": f"the original has {original.n_records} records, the release {release.n_records}"}
        ]
    member = release.member_matrix(original.items)
    have = sp.csr_array(sp.csr_array(original.matrix, dtype=np.int64) @ member)
    need = _requirement(original, release, member)
    lengths = np.diff(original.matrix.indptr)
    link = getattr(release, "link", None)
    examples: list[dict] = []
    if link is not None:
        rec_of_row = np.asarray(link.record_of_row, dtype=np.int64)
        ok = _fits(sp.csr_array(have[rec_of_row]), need, lengths[rec_of_row], release.reading)
        bad_rows = np.flatnonzero(~ok)
        for j in bad_rows[:max_examples]:
            examples.append(
                {
                    "published_record": release.pseudonyms[j],
                    "published": release.render_record(int(j)),
                    "problem": "the record linked to this row does not fit it",
                }
            )
        return len(bad_rows), examples
    # no link: every record fits some row, every distinct row is fit by enough records
    groups = release.group_ids()
    n_groups = int(groups.max()) + 1 if len(groups) else 0
    first = np.unique(groups, return_index=True)[1]
    size = np.bincount(groups, minlength=n_groups)
    fits_any = np.zeros(original.n_records, dtype=bool)
    n_bad = 0
    have_csc = have.tocsc()
    for j in first:
        cols = need.indices[need.indptr[j] : need.indptr[j + 1]]
        req = need.data[need.indptr[j] : need.indptr[j + 1]]
        fit = records_fitting(have, have_csc, lengths, cols, req, cover=release.reading == "some" and len(cols) > 0)
        fits_any[fit] = True
        if len(fit) < size[groups[j]]:
            n_bad += int(size[groups[j]] - len(fit))
            if len(examples) < max_examples:
                examples.append(
                    {
                        "published": release.render_record(int(j)),
                        "problem": f"{size[groups[j]]} rows but only {len(fit)} original records fit it",
                    }
                )
    lost = np.flatnonzero(~fits_any)
    for i in lost[: max(0, max_examples - len(examples))]:
        examples.append({"record": int(i), "problem": "this original record fits no published record"})
    return n_bad + len(lost), examples

