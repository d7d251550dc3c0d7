"""Whether each row of an RT release generalizes its own record (the release checked with its private link).

:func:`rt_recoding_mismatches` checks every record against the row the link
gives it: its quasi-identifier values covered, its items shown, no label that
stands for none of its items. The (k, k^m) audit (:mod:`graphanon.privacy.rt`)
needs no original data; this check is what makes its Claim A apply.

References
----------
Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos. Anonymizing data with
relational and transaction attributes. ECML PKDD 2013, Sec. 3 (Def. 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError
from graphanon.metrics.relational import attribute_domains
from graphanon.privacy.rt_values import ancestor_sets, published_classes
from graphanon.utils.intervals import parse_interval

__all__ = ["rt_recoding_mismatches"]


def rt_recoding_mismatches(original_rows: Sequence[Sequence], original_items: Sequence[Iterable[str]],
                           published_rows: Sequence[Sequence[str]], published_items: Sequence[Iterable[str]],
                           truth, *, hierarchies: Mapping[int, object] | None = None, taxonomy=None,
                           members: Mapping[str, Iterable[str]] | None = None,
                           max_examples: int = 10, qi_names: Sequence[str] | None = None) -> tuple[int, list[dict]]:
    """Rows that do not generalize their own record (the release checked against the data, with the link).

    Record ``i`` is published as row ``truth[i]``. The row must

    * cover each quasi-identifier value of the record (an interval holding
      it, a hierarchy node above it, the value itself, ``*``);
    * hold only labels that stand for some item of the record (the item, a
      label whose ``members`` hold it, an ancestor in ``taxonomy``);
    * show every item of the record that its class shows anywhere (an item
      no row of the class shows may have been suppressed there).

    Parameters
    ----------
    original_rows, original_items : sequences
        The records: quasi-identifier values and item sets.
    published_rows, published_items : sequences
        The release.
    truth : array of int or an object with ``row_of_record``
        The private link.
    hierarchies : mapping of int to hierarchy or (lo, hi), optional
        As in :func:`graphanon.metrics.relational.attribute_domains`.
    taxonomy, members : optional
        Item ancestors, and what each published label stands for.
    max_examples : int
    qi_names : sequence of str, optional
        The quasi-identifiers' names in the messages (default ``QI 0``, ...).

    Returns
    -------
    n_bad : int
        Records whose row fails one of the tests.
    examples : list of dict
        The first of them: record, row and what is wrong.

    Notes
    -----
    Complexity: O(n d) for the values (one test per distinct published
    value and original value of an attribute) plus sorted-key look-ups over
    the ``nnz`` item occurrences; no Python loop over records beyond reading
    them.

    Examples
    --------
    >>> orig, items = [(42, "F"), (47, "F")], [{"a"}, {"b"}]
    >>> rt_recoding_mismatches(orig, items, [("[40-49]", "F"), ("[50-59]", "F")], [{"a"}, {"b"}], [0, 1])
    (1, [{'record': 1, 'row': 1, 'problem': 'QI 0: [50-59] does not cover 47'}])
    """
    orig = [tuple(r) for r in original_rows]
    rows = [tuple(str(v) for v in r) for r in published_rows]
    n = len(orig)
    if len(rows) != n or len(original_items) != n or len(published_items) != n:
        raise ParameterError(f"{n} records, {len(original_items)} item sets, {len(rows)} published rows and "
                             f"{len(published_items)} published item rows: the recoding check needs one of each "
                             "per record")
    row_of = np.asarray(getattr(truth, "row_of_record", truth), dtype=np.int64).reshape(-1)
    if len(row_of) != n or (n and (np.sort(row_of) != np.arange(n)).any()):
        raise ParameterError("the link must give every record its own row (a permutation of 0..n-1)")
    if n == 0:
        return 0, []
    problems: dict[int, str] = {}
    doms = attribute_domains(orig, hierarchies=hierarchies, names=None if qi_names is None else list(qi_names))
    for j, dom in enumerate(doms):  # relational: per (published value, original value) pair
        pub = np.array([rows[r][j] for r in row_of.tolist()], dtype=str)
        val = np.array([str(o[j]) for o in orig], dtype=str)
        pairs, inverse = np.unique(np.stack([pub, val], axis=1), axis=0, return_inverse=True)
        ok = np.zeros(len(pairs), dtype=bool)
        for p_i, (pv, ov) in enumerate(pairs.tolist()):
            if pv == "*":
                ok[p_i] = True
            elif dom.numeric:
                rng = parse_interval(pv)
                ok[p_i] = rng is not None and rng[0] <= float(ov) <= rng[1]
            else:
                ok[p_i] = ov in dom.leaves.get(pv, ())
        for i in np.flatnonzero(~ok[inverse.ravel()]).tolist():
            problems.setdefault(i, f"{dom.name}: {pub[i]} does not cover {val[i]}")
    # items: labels x original items through members / taxonomy / equality
    pub_items = [{str(x) for x in published_items[r]} for r in row_of.tolist()]  # row of record i, by record
    rec_items = [{str(x) for x in r} for r in original_items]
    labels = sorted(set().union(*pub_items))
    originals = sorted(set().union(*rec_items))
    lab_index = {x: g for g, x in enumerate(labels)}
    it_index = {x: t for t, x in enumerate(originals)}
    anc = ancestor_sets(taxonomy) or {}
    cov_r, cov_c = [], []
    for x in originals:
        cover = {lab_index[a] for a in anc.get(x, ()) if a in lab_index}
        if x in lab_index:
            cover.add(lab_index[x])
        cov_r += [it_index[x]] * len(cover)
        cov_c += sorted(cover)
    for lab in labels:
        for x in (members or {}).get(lab, ()):
            if str(x) in it_index:
                cov_r.append(it_index[str(x)])
                cov_c.append(lab_index[lab])
    Cov = sp.csr_array((np.ones(len(cov_r), dtype=np.int32), (cov_r, cov_c)), shape=(len(originals), len(labels)))
    Cov.sum_duplicates()
    R = _rows_matrix(pub_items, lab_index)  # record i's row x labels
    Rec = _rows_matrix(rec_items, it_index)  # record i x original items
    stands = ((Rec @ Cov) > 0)  # labels that stand for some item of the record
    extra = np.diff(R.indptr) - np.diff(sp.csr_array(R.multiply(stands)).indptr)
    for i in np.flatnonzero(extra > 0).tolist():
        problems.setdefault(i, "a published label stands for no item of the record")
    shown = sp.csr_array(((R @ Cov.T) > 0).astype(np.int32))  # record i x items its row shows
    cls = published_classes(rows)[0][row_of]  # class of record i's row
    G = sp.csr_array((np.ones(n, dtype=np.int32), (cls, np.arange(n))), shape=(int(cls.max()) + 1, n))
    class_shown = sp.csr_array(((G @ shown) > 0).astype(np.int32))
    Oc = Rec.tocoo()
    width = len(originals)
    want = np.isin(cls[Oc.row] * width + Oc.col, _keys(class_shown, width))
    have = np.isin(Oc.row.astype(np.int64) * width + Oc.col, _keys(shown, width))
    for i in np.unique(Oc.row[want & ~have]).tolist():
        problems.setdefault(int(i), "an item of the record that its class shows is missing from its row")
    bad = sorted(problems)
    return len(bad), [{"record": i, "row": int(row_of[i]), "problem": problems[i]} for i in bad[:max_examples]]


def _rows_matrix(rows: Sequence[set[str]], index: dict[str, int]) -> sp.csr_array:
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    cols = np.fromiter((index[x] for r in rows for x in sorted(r)), dtype=np.int64, count=int(lengths.sum()))
    return sp.csr_array((np.ones(len(cols), dtype=np.int32), cols, np.concatenate([[0], np.cumsum(lengths)])),
                        shape=(len(rows), len(index)))


def _keys(M: sp.csr_array, width: int) -> np.ndarray:
    coo = M.tocoo()
    return coo.row.astype(np.int64) * width + coo.col
