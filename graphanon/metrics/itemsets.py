"""Frequent-itemset utility of a perturbed release (Gunawan & Mambo 2019, Sec. 3.3-3.4, 5.2-5.3).

* :func:`frequent_itemsets` -- every itemset whose support reaches a
  threshold, by the package's level-wise engine
  (:func:`graphanon.counting.support.minimal_infrequent_itemsets`: vertical
  projections counted by sparse products). Itemsets whose support equals the
  number of records are kept (SPEC §6: pyfim drops them).
* :func:`fi_similarity` -- ``|F_D & F_D~| / |F_D | F_D~|`` (Eq. 2): the
  Jaccard similarity of the frequent itemsets of the original and released
  data, itemsets compared by their item labels.
* :func:`dif` -- ``sum_i |f_D(i) - f_D~(i)| / sum_i f_D(i)`` over all items
  (SPEC §4): 0 when every item keeps its number of occurrences.
* :func:`top_k_itemsets`, :func:`top_k_accuracy` -- the k most frequent
  itemsets of each dataset and the precision, recall and F-score of the
  released ones against the original's (the measure of the DP frequent-itemset
  literature, Li et al. 2012, Section 6): a syntactic and a DP release scored
  on the same itemsets.

A relative threshold ``s`` means ``ceil(s * n)`` records of *each* dataset
(a SplitPerson release has more rows than the original has records).

Examples
--------
>>> from graphanon.data import from_iterable
>>> d = from_iterable([["a", "b"], ["a", "b"], ["a", "c"]])
>>> sorted(tuple(sorted(s)) for s in frequent_itemsets(d, 2))
[('a',), ('a', 'b'), ('b',)]
>>> e = from_iterable([["a", "c"], ["a", "b"], ["b", "c"]])
>>> fi_similarity(d, e, 2), round(dif(d, e), 3)
(0.5, 0.333)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

from graphanon.counting.support import itemset_supports, minimal_infrequent_itemsets
from graphanon.errors import ParameterError

__all__ = ["dif", "fi_similarity", "frequent_itemsets", "itemset_metrics", "top_k_accuracy", "top_k_itemsets",
           "top_k_metrics"]


def _as_data(obj):
    """TransactionData of original data or of a release's rows."""
    if hasattr(obj, "published_data"):
        return obj.published_data()
    return obj


def _threshold(min_support, n: int) -> int:
    if isinstance(min_support, bool):
        raise ParameterError(f"min_support must be a fraction in (0, 1] or a count >= 1, got {min_support!r}")
    if isinstance(min_support, (int, np.integer)):
        if min_support < 1:
            raise ParameterError(f"a support count must be >= 1, got {min_support}")
        return int(min_support)
    s = float(min_support)
    if not 0.0 < s <= 1.0:
        raise ParameterError(f"a relative support must lie in (0, 1], got {min_support!r}")
    return max(1, math.ceil(s * n - 1e-9))


def frequent_itemsets(data, min_support) -> dict[frozenset, int]:
    """Every itemset of ``data`` with support >= ``min_support``.

    Parameters
    ----------
    data : TransactionData or PerturbedRelease
    min_support : float in (0, 1] (share of records) or int >= 1 (record count)

    Returns
    -------
    dict
        ``frozenset of item labels -> support``.

    Notes
    -----
    Complexity: one sparse product per itemset size (see
    :func:`~graphanon.counting.support.minimal_infrequent_itemsets`), proportional to
    the frequent itemsets found.
    """
    data = _as_data(data)
    k = _threshold(min_support, data.n_records)
    if data.n_records == 0 or data.n_items == 0:
        return {}
    _, levels = minimal_infrequent_itemsets(data.matrix, k, None)
    items = data.items
    out: dict[frozenset, int] = {}
    for level in levels:
        for row, sup in zip(level.itemsets.tolist(), level.supports.tolist()):
            out[frozenset(items[j] for j in row)] = int(sup)
    return out


def fi_similarity(original, released, min_support) -> float:
    """Jaccard similarity of the two families of frequent itemsets (1.0 when both are empty)."""
    a = set(frequent_itemsets(original, min_support))
    b = set(frequent_itemsets(released, min_support))
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def _item_counts(data) -> dict[Hashable, int]:
    data = _as_data(data)
    return dict(zip(data.items, np.bincount(data.matrix.indices, minlength=data.n_items).tolist()))


def dif(original, released) -> float:
    """``sum_i |f_D(i) - f_D~(i)| / sum_i f_D(i)`` over the items of either dataset."""
    fo, fr = _item_counts(original), _item_counts(released)
    total = sum(fo.values())
    if total == 0:
        raise ParameterError("Dif is undefined for data without item occurrences")
    return sum(abs(fo.get(x, 0) - fr.get(x, 0)) for x in set(fo) | set(fr)) / total


def itemset_metrics(original, released, supports: Sequence[float] = (0.002, 0.003, 0.004, 0.005)) -> dict:
    """Dif, and per support threshold the FI counts and their similarity.

    Returns
    -------
    dict
        ``{"dif": float, "fi": [{"support", "original", "released", "common", "similarity"}, ...]}``.
    """
    rows = []
    for s in supports:
        a = set(frequent_itemsets(original, s))
        b = set(frequent_itemsets(released, s))
        union = a | b
        rows.append({"support": s, "original": len(a), "released": len(b), "common": len(a & b),
                     "similarity": len(a & b) / len(union) if union else 1.0})
    return {"dif": dif(original, released), "fi": rows}


def top_k_itemsets(data, k: int) -> dict[frozenset, int]:
    """The ``k`` most frequent itemsets of ``data`` (every itemset tied with the ``k``-th is kept).

    Parameters
    ----------
    data : TransactionData or a release with ``published_data()``
    k : int >= 1

    Returns
    -------
    dict
        ``frozenset of item labels -> support``, at least ``k`` entries when
        the data holds that many distinct itemsets.

    Notes
    -----
    The ``k``-th largest single-item support ``t`` bounds the ``k``-th largest
    itemset support from below (the ``k`` items alone reach ``t``), so the top
    ``k`` lie among the itemsets of support >= ``t``: one level-wise mining at
    ``t`` (:func:`frequent_itemsets`), then a sort. Complexity: that mining.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> d = from_iterable([["a", "b"], ["a", "b"], ["a", "c"], ["d"]])
    >>> sorted((tuple(sorted(s)), n) for s, n in top_k_itemsets(d, 3).items())
    [(('a',), 3), (('a', 'b'), 2), (('b',), 2)]
    """
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ParameterError(f"top-k itemsets: k must be a whole number >= 1, got {k!r}")
    data = _as_data(data)
    if data.n_records == 0 or data.n_items == 0:
        return {}
    item_support = np.sort(np.bincount(data.matrix.indices, minlength=data.n_items))[::-1]
    threshold = max(1, int(item_support[min(int(k), data.n_items) - 1]))
    found = frequent_itemsets(data, threshold)
    if len(found) <= k:
        return found
    cut = sorted(found.values(), reverse=True)[int(k) - 1]
    return {s: n for s, n in found.items() if n >= cut}


def top_k_accuracy(original, released, k: int = 100) -> dict:
    """Precision, recall and F-score of the released top-``k`` itemsets against the original's.

    Itemsets are compared by their item labels: an itemset the release names
    only through a generalized item (a group label) is not the original
    itemset, and counts as missed -- an analyst mining the release does not
    find it.

    Parameters
    ----------
    original : TransactionData
    released : TransactionData or a release with ``published_data()``
    k : int

    Returns
    -------
    dict
        ``{"k", "original", "released", "common", "precision", "recall", "f"}``
        (``precision = common / released``, ``recall = common / original``,
        ``f`` their harmonic mean; 0 when nothing is in common).

    References
    ----------
    Li, Qardaji, Su, Cao. PrivBasis: frequent itemset mining with differential
    privacy. PVLDB 5(11), 2012, Section 6 (false negative rate of the top k).

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> d = from_iterable([["a", "b"], ["a", "b"], ["a", "c"]])
    >>> e = from_iterable([["a", "c"], ["a", "c"], ["b"]])
    >>> r = top_k_accuracy(d, e, 2)   # ties with the 2nd are kept: {a}, {b}, {a,b} against {a}, {c}, {a,c}
    >>> r["original"], r["released"], r["common"], round(r["f"], 3)
    (3, 3, 1, 0.333)
    """
    a, b = set(top_k_itemsets(original, k)), set(top_k_itemsets(released, k))
    common = len(a & b)
    precision = common / len(b) if b else 0.0
    recall = common / len(a) if a else 0.0
    f = 2 * precision * recall / (precision + recall) if common else 0.0
    return {"k": int(k), "original": len(a), "released": len(b), "common": common, "precision": precision,
            "recall": recall, "f": f}


def top_k_metrics(original, release, k: int | None = None) -> dict:
    """Precision, recall and F of a released top-k list, and the relative error of its supports.

    Parameters
    ----------
    original : TransactionData
        The data the list was released from.
    release : ItemsetRelease
        Released itemsets with (noisy) supports (:meth:`itemset_supports`).
    k : int, optional
        The ``k`` of the list (default: the release's ``k`` parameter, else
        its length).

    Returns
    -------
    dict
        ``topk_k``, ``topk_released``, ``topk_true`` (the true top-k, ties
        at the ``k``-th support included), ``topk_common``,
        ``topk_precision`` (common / released), ``topk_recall``
        (common / ``k``, at most 1), ``topk_f`` (their harmonic mean),
        ``support_relative_error`` (the median over released itemsets of
        ``|noisy - true| / max(true, 1)``: the paper's measure, which takes
        the median) and ``support_relative_error_mean``.

    Notes
    -----
    Complexity: :func:`top_k_itemsets`, and one bitmap support count per
    released itemset.

    References
    ----------
    N. Li, W. Qardaji, D. Su, J. Cao. *PrivBasis: frequent itemset mining
    with differential privacy.* PVLDB 5(11), 2012, Section 6 (false negative
    rate and relative error of the top-k).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release.itemsets import ItemsetRelease
    >>> d = from_iterable([["a", "b"], ["a", "b"], ["a", "c"], ["c"]])
    >>> rel = ItemsetRelease(items=["a", "b", "c"], itemsets=sp.csr_array([[1, 0, 0], [0, 0, 1]]),
    ...                      supports=[3.0, 1.0])
    >>> m = top_k_metrics(d, rel, k=2)
    >>> m["topk_precision"], m["topk_recall"], m["support_relative_error"]
    (1.0, 1.0, 0.25)
    """
    released = release.itemset_supports()
    if k is None:
        k = int(release.params.get("k", len(released)) or 1)
    truth = top_k_itemsets(original, k)
    common = len(set(released) & set(truth))
    precision = common / len(released) if released else 0.0
    recall = min(1.0, common / k)
    index = {x: j for j, x in enumerate(original.items)}
    keys = list(released)
    known = [all(x in index for x in s) for s in keys]
    rows = [[index[x] for x in s] for s, ok in zip(keys, known) if ok]
    true = np.zeros(len(keys), dtype=np.float64)
    if rows:
        true[np.flatnonzero(known)] = itemset_supports(original.matrix, rows)
    noisy = np.array([released[s] for s in keys], dtype=np.float64)
    rel_err = np.abs(noisy - true) / np.maximum(true, 1.0)
    return {
        "topk_k": int(k), "topk_released": len(released), "topk_true": len(truth), "topk_common": common,
        "topk_precision": precision, "topk_recall": recall,
        "topk_f": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "support_relative_error": float(np.median(rel_err)) if len(keys) else None,
        "support_relative_error_mean": float(rel_err.mean()) if len(keys) else None,
    }
