"""Utility Loss (UL) of a set-based global recoding, kept in log space.

For a published item ``g`` of ``|g|`` original items (Loukides et al.,
Def. 3.14)::

    UL(g) = (2^|g| - 1) / (2^M - 1) * w(g) * sup(g) / N

with ``M`` the number of items, ``N`` the number of records and ``w`` a
weight in ``[0, 1]``. The release's UL adds a penalty ``Y(i)`` per suppressed
item (Def. 3.16; default ``Y(i) = sup(i)``, the number of records losing it).

For real vocabularies ``2^M`` overflows (M = 497 for BMS-WebView-1 already
exceeds the float range at M > 1023; M = 16,470 for large ones), so every
value is carried as a natural logarithm::

    log UL(g) = log(2^|g| - 1) - log(2^M - 1) + log w(g) + log(sup(g) / N)

with ``log(2^x - 1) = x log 2 + log1p(-2^-x)``, and sums are log-sum-exp.
Logs stay finite and keep the order of the true values; ``value`` may
underflow to 0.0 (use ``log_value`` to compare releases).

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. KAIS 2011, Sec. 3.4 (Definitions 3.14 and 3.16, Example 3.15).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphanon.errors import ParameterError
from graphanon.metrics.loss import check_order_of_arguments

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["ULReport", "log2m1", "semantic_weight", "ul", "ul_item_log", "ul_metrics"]

_LN2 = math.log(2.0)


def log2m1(x) -> np.ndarray:
    """``log(2^x - 1)`` for ``x >= 1`` without overflow (elementwise)."""
    x = np.asarray(x, dtype=np.float64)
    return x * _LN2 + np.log1p(-np.exp2(-x))


def ul_item_log(size, support, n_records: int, n_items: int, weight=1.0) -> np.ndarray:
    """Natural log of UL for published items of ``size`` members and ``support`` (vectorized).

    Items of support 0 get ``-inf`` (UL 0).

    Examples
    --------
    >>> round(float(np.exp(ul_item_log(2, 7, 8, 8, 0.375))), 4)  # Example 3.15 (divides by 8)
    0.0039
    """
    size = np.asarray(size, dtype=np.float64)
    support = np.asarray(support, dtype=np.float64)
    weight = np.asarray(weight, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return log2m1(size) - float(log2m1(n_items)) + np.log(weight) + np.log(support / n_records)


def semantic_weight(taxonomy) -> Callable[[tuple], float]:
    """Weight of a published set: ``leaves(lca(members)) / leaves(root)`` in ``taxonomy``.

    Example 3.15 of the paper: ``(a,b)`` whose closest common ancestor
    covers 3 of the 8 leaves has weight 0.375.
    """
    total = len(taxonomy.leaves)

    def w(members: tuple) -> float:
        return taxonomy.leaf_count(taxonomy.lca(*members)) / total

    return w


@dataclass
class ULReport:
    """UL of a release.

    Attributes
    ----------
    log_value : float
        Natural log of UL(release) (``-inf`` when it is 0).
    log_generalization : float
        Log of the sum of the published items' UL.
    suppression : float
        Sum of the suppression penalties.
    per_item : dict
        Published item label -> log UL of that item.
    n_items, n_records : int
        ``M`` and ``N``.
    """

    log_value: float
    log_generalization: float
    suppression: float
    per_item: dict
    n_items: int
    n_records: int

    @property
    def value(self) -> float:
        """``exp(log_value)`` (may underflow to 0.0 for large M)."""
        return math.exp(self.log_value) if self.log_value > -745 else 0.0

    def to_dict(self) -> dict:
        """The report as a JSON-safe dict."""
        return {
            "ul": self.value,
            "log_ul": self.log_value,
            "log_ul_generalization": self.log_generalization,
            "ul_suppression": self.suppression,
        }


def _logsumexp(a: np.ndarray) -> float:
    if a.size == 0:
        return -math.inf
    top = float(np.max(a))
    if top == -math.inf:
        return -math.inf
    return top + math.log(float(np.sum(np.exp(a - top))))


def ul(
    original: TransactionData,
    release,
    *,
    weights=None,
    suppression_penalty=None,
) -> ULReport:
    """Utility Loss of a set-based global recoding (log space).

    Parameters
    ----------
    original : TransactionData
        The data the release was made from (``M``, ``N`` and the supports of
        suppressed items).
    release : GlobalRecoding
    weights : None, Taxonomy, mapping or callable
        ``w(g)``: 1 (default); a Taxonomy for :func:`semantic_weight`; a
        mapping published label -> weight; or a callable on the tuple of
        member labels. Values must lie in ``[0, 1]``.
    suppression_penalty : None, mapping or callable
        ``Y(i)`` per suppressed original item: its support (default), a
        mapping item -> penalty, or a callable on the item label.

    Returns
    -------
    ULReport

    Notes
    -----
    Complexity: O(published items + suppressed items) after one pass over the published
    records for supports.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.release import GlobalRecoding
    >>> data = load("coat_fig1")
    >>> m = {x: x for x in data.items}
    >>> m.update({"a": "(a,b)", "b": "(a,b)"})
    >>> r = ul(data, GlobalRecoding.from_mapping(data, m), weights={"(a,b)": 0.375})
    >>> round(float(np.exp(r.per_item["(a,b)"])), 5)  # (2^2-1)/(2^8-1) * 0.375 * 7/10
    0.00309

    References
    ----------
    Loukides et al., COAT, KAIS 2011, Definitions 3.14 and 3.16.
    """
    check_order_of_arguments(original, release, "ul")
    N = original.n_records
    M = original.n_items
    if N == 0 or M == 0:
        raise ParameterError("UL needs data with at least one record and one item")
    recs = release.records
    sup = np.bincount(recs.indices, minlength=recs.shape[1]).astype(np.float64)
    sizes = np.array([len(pi.members) for pi in release.published_items], dtype=np.float64)
    w = np.ones(len(sizes))
    if weights is not None:
        from graphanon.taxonomy.tree import Taxonomy

        fn = semantic_weight(weights) if isinstance(weights, Taxonomy) else None
        for g, pi in enumerate(release.published_items):
            if fn is not None:
                w[g] = fn(pi.members)
            elif isinstance(weights, Mapping):
                w[g] = float(weights.get(pi.label, 1.0))
            elif callable(weights):
                w[g] = float(weights(tuple(pi.members)))
            else:
                raise ParameterError("weights must be None, a Taxonomy, a mapping or a callable")
        if np.any((w < 0) | (w > 1)) or not np.all(np.isfinite(w)):
            raise ParameterError("UL weights must lie in [0, 1]")
    logs = ul_item_log(np.maximum(sizes, 1), sup, N, M, w) if len(sizes) else np.zeros(0)
    log_gen = _logsumexp(logs)
    published = {x for pi in release.published_items for x in pi.members}
    suppressed = [x for x in original.items if x not in published]
    osup = original.supports()
    pen = 0.0
    for x in suppressed:
        if suppression_penalty is None:
            pen += float(osup[original.item_id(x)])
        elif isinstance(suppression_penalty, Mapping):
            pen += float(suppression_penalty[x])
        elif callable(suppression_penalty):
            pen += float(suppression_penalty(x))
        else:
            raise ParameterError("suppression_penalty must be None, a mapping or a callable")
    parts = [log_gen]
    if pen > 0:
        parts.append(math.log(pen))
    total = _logsumexp(np.array(parts))
    per_item: dict[Hashable, float] = {pi.label: float(v) for pi, v in zip(release.published_items, logs, strict=False)}
    return ULReport(total, log_gen, pen, per_item, M, N)


def ul_metrics(original: TransactionData, release, *, weights=None, suppression_penalty=None) -> dict:
    """UL entries for ``graphanon evaluate``.

    ``ul``, ``log_ul``, ``log_ul_generalization``, ``ul_suppression``.

    Applies to global recodings (set-based or taxonomy cuts); see :func:`ul`.
    """
    return ul(original, release, weights=weights, suppression_penalty=suppression_penalty).to_dict()
