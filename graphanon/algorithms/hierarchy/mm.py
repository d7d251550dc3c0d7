"""MM: total item suppression for (h, k, p)-coherence (k^m-anonymity as a special case).

Xu, Wang, Pei, Wang, Shi, Fu (KDD 2008). Items are *public* (an attacker may
know up to p of them about a person) or *private* (sensitive, published
as-is). A public itemset ``beta`` of at most ``p`` items is a *mole* when its
support is in (0, k) or when, for some private item ``e``,
``P(e | beta) = sup(beta + e) / sup(beta) > h``. The data is
(h, k, p)-coherent when it has no mole. With every item public, h = 1 and
p = m, coherence is exactly k^m-anonymity.

Suppressing a public item (removing it from every record) changes no support
of an itemset without it, so the *minimal* moles (moles with no mole as a
proper subset) of the suppressed data are the minimal moles of the original
that avoid the suppressed items. MM therefore mines the minimal moles once
and then greedily suppresses the public item with the largest
``MM(e) / IL(e)``: minimal moles containing it per unit of information loss
(its occurrences), until no minimal mole is left.

References
----------
Xu, Wang, Pei, Wang, Shi, Fu. Anonymizing transaction databases for
publication. KDD 2008, Sec. 3-4 (coherence, minimal moles, the MM greedy).
Liu, Wang. PAKDD 2010, Sec. 5 (MM as a baseline for k^m-anonymity).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from numbers import Real
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.declaration import Advice, MethodDeclaration, Parameter, parse_name_list
from graphanon.algorithms.hierarchy._declared import GLOBAL_COSTS
from graphanon.algorithms.hierarchy._index import infrequent_on_columns
from graphanon.algorithms.hierarchy.cut import HierarchyTrace
from graphanon.errors import ParameterError
from graphanon.release import GlobalRecoding
from graphanon.release.publish import publish
from graphanon.utils.docs import fill_doc
from graphanon.utils.labels import as_labels
from graphanon.utils.memory import cost_blocks
from graphanon.utils.params import COMMON, MEANINGS, Interval, K, M, validate_params
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.validation import check_k

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["anonymize_mm", "check_private_items", "minimal_moles"]



def check_private_items(data, private_items: Iterable[Hashable]) -> np.ndarray:
    """Column ids of ``private_items`` (clear error naming the ones not in ``data``)."""
    private_items = list(dict.fromkeys(as_labels(private_items, "private item")))
    index = {x: j for j, x in enumerate(data.items)}
    missing = [x for x in private_items if x not in index]
    if missing:
        raise ParameterError(
            f"{len(missing)} private item(s) are not items of the data, e.g. "
            f"{', '.join(map(repr, missing[:5]))}; list only items that occur in the data"
        )
    return np.array(sorted(index[x] for x in private_items), dtype=np.int64)


def _pad(rows: list[np.ndarray], width: int) -> np.ndarray:
    if not rows:
        return np.zeros((0, width), dtype=np.int64)
    return np.concatenate(
        [np.pad(r.astype(np.int64), ((0, 0), (0, width - r.shape[1])), constant_values=-1) for r in rows]
    )


def _confidence_pruner(X, *, h: float, private: np.ndarray, cols: np.ndarray, found: list):
    """A ``prune`` hook for the itemset search: flag itemsets that predict a private item.

    For a level's frequent public itemsets (incidence ``P``, records x
    itemsets) one sparse product ``P.T @ X[:, private]`` gives the support
    of every (itemset + private item) pair; an itemset ``beta`` is flagged
    when ``max_e sup(beta + e) > h * sup(beta)``. Flagged itemsets (mapped
    back to column ids of ``X`` through ``cols``) are appended to ``found``.
    The product runs in blocks of itemsets (about ``2^22`` incidences of
    ``P`` each), so its memory is one block's pair counts.
    """
    Xp = sp.csr_array(X)[:, private].astype(np.int32)

    def prune(itemsets: np.ndarray, supports: np.ndarray, P) -> np.ndarray:
        P = sp.csc_array(P)
        best = np.zeros(P.shape[1], dtype=np.int64)
        for a, b in cost_blocks(np.diff(P.indptr), 1 << 22):
            C = (P[:, a:b].T @ Xp).tocsr()
            if C.nnz:
                best[a:b] = C.max(axis=1).toarray().ravel()
        hit = best > h * supports
        found.extend(tuple(int(x) for x in row) for row in cols[itemsets[hit]])
        return hit

    return prune


def mm_greedy(moles: np.ndarray, occ: np.ndarray) -> list[int]:
    """MM's greedy: suppress the item of most live minimal moles per occurrence until no mole lives.

    Parameters
    ----------
    moles : ndarray of int, shape (n_moles, width)
        Item ids of each minimal mole, padded with -1 (:func:`minimal_moles`).
    occ : ndarray of float, shape (n_items,)
        Occurrences (support) of each item.

    Returns
    -------
    list of int
        The suppressed items in the order chosen. Each step takes
        ``argmax(live moles holding e / occ(e))`` over items in some live
        mole (an item that never occurs scores infinity; ties: the smallest
        item id), then retires every mole holding it.

    Notes
    -----
    Complexity: one O(items) argmax per suppressed item, and each mole is retired once:
    O(suppressed * items + sum of mole sizes), vectorized per step.

    Examples
    --------
    >>> mm_greedy(np.array([[0, 1], [1, 2], [3, -1]]), np.array([4.0, 2.0, 4.0, 1.0]))
    [1, 3]

    References
    ----------
    Xu et al. KDD 2008, Sec. 4 (Algorithm MM: ``argmax MM(e) / IL(e)``).
    """
    n_items = len(occ)
    t_idx, col = np.nonzero(moles >= 0)
    items = moles[t_idx, col]
    order = np.argsort(items, kind="stable")
    by_item = t_idx[order]  # moles holding each item, item by item
    ptr = np.concatenate([[0], np.cumsum(np.bincount(items, minlength=n_items))])
    count = np.bincount(items, minlength=n_items).astype(np.float64)
    alive = np.ones(len(moles), dtype=bool)
    never = occ <= 0
    safe_occ = np.where(never, 1.0, occ)
    out: list[int] = []
    while (count > 0).any():
        score = np.where(count > 0, np.where(never, np.inf, count / safe_occ), -1.0)
        best = int(np.argmax(score))
        out.append(best)
        hit = by_item[ptr[best] : ptr[best + 1]]
        hit = hit[alive[hit]]
        alive[hit] = False
        members = moles[hit].ravel()
        count -= np.bincount(members[members >= 0], minlength=n_items)
        count[best] = 0
    return out


def minimal_moles(X, *, k: int, p: int | None, h: float, private: np.ndarray) -> np.ndarray:
    """Minimal moles of a records x items matrix.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items)
    k, p, h :
        Coherence parameters (p=None: unbounded).
    private : array of int
        Private columns (never part of a mole).

    Returns
    -------
    ndarray, shape (n_moles, width)
        Sorted item ids of each minimal mole, padded with -1: first the
        support moles level by level (lexicographic within a level), then
        the confidence moles in lexicographic order.

    Notes
    -----
    Complexity: one level-wise search over the public columns
    (:func:`~graphanon.counting.support.minimal_infrequent_itemsets`) that also
    counts, per level, every (frequent public itemset, private item) pair in
    one sparse product ``P.T @ X[:, private]`` (work: the sum over records of
    frequent itemsets held times private items held) and never extends an
    itemset that is already a mole, so only itemsets whose every subset is
    mole-free are counted.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_array([[1, 1, 1], [1, 1, 0], [1, 0, 0], [0, 1, 0]], dtype=bool)
    >>> minimal_moles(X, k=2, p=2, h=0.4, private=np.array([2])).tolist()
    [[0, 1]]
    """
    n_items = X.shape[1]
    public = np.setdiff1d(np.arange(n_items), private)
    found: list[tuple] = []
    prune = None
    if h < 1.0 and len(private) and len(public):
        prune = _confidence_pruner(X, h=h, private=private, cols=public, found=found)
    viol, _ = infrequent_on_columns(X, k, p, public, prune=prune)
    found.sort()
    rows = [lvl.itemsets for lvl in viol if len(lvl)]
    width = max([r.shape[1] for r in rows] + [len(c) for c in found] + [1])
    out = _pad(rows, width)
    conf = np.full((len(found), width), -1, dtype=np.int64)
    for i, c in enumerate(found):
        conf[i, : len(c)] = c
    return np.concatenate([out, conf])


@validate_params(
    {"k": K, "m": M, "h": [Interval(Real, 0, 1, closed="right")], **COMMON, "private_items": [Iterable]},
    meanings={**MEANINGS, "m": "p, the largest set of public items an attacker knows; None: unbounded",
              "h": "the largest allowed probability of inferring a private item"},
)
@fill_doc(secret='the row shuffle')
def anonymize_mm(
    data: TransactionData,
    *,
    k: int,
    m: int | None = None,
    h: float = 1.0,
    private_items: Iterable[Hashable] = (),
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
) -> GlobalRecoding:
    """(h, k, p)-coherence (k^m-anonymity when all items are public) by the MM greedy.

    Parameters
    ----------
    data : TransactionData
    k : int
        Smallest support of a published public itemset of at most ``m`` items.
    m : int or None
        ``p`` of (h, k, p)-coherence: attacker knowledge in public items;
        None means unbounded.
    h : float in (0, 1]
        Largest allowed confidence of inferring a private item from public
        ones (1 disables the confidence condition).
    private_items : iterable
        Items that are sensitive: published unchanged, never suppressed,
        never part of the attacker's knowledge.
    progress : callable(done, total, message), optional
        Called when the greedy is done.
    %(unsafe_secret_seed)s

    Returns
    -------
    GlobalRecoding
        Public items published as themselves or suppressed (total
        suppression), rows in a secret random order.
        ``release.trace.suppressed`` names the suppressed items (in memory
        only: the saved release gives only their number);
        ``release.params`` holds ``n_moles``,
        ``cost_generalization`` (0), ``cost_suppression`` (occurrences
        removed) and ``ncp``.

    Raises
    ------
    ParameterError
        For k outside [1, records], m < 1, h outside (0, 1] or private items
        not in the data.

    See Also
    --------
    graphanon.privacy.KmAnonymity : The audit without private items.
    graphanon.privacy.HKPCoherence : The audit with private items.
    graphanon.algorithms.anonymize_hghs : Generalization as well as suppression.

    Notes
    -----
    Complexity: mole mining (see :func:`minimal_moles`) plus the greedy
    (:func:`mm_greedy`): O(suppressed * items + sum of mole sizes).

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> data = load("liuwang_fig1")
    >>> rel = anonymize_mm(data, k=2, m=2)
    >>> sorted(rel.trace.suppressed)
    ['b', 'c', 'e', 'x', 'y', 'z']

    References
    ----------
    Xu et al. KDD 2008, Sec. 4 (Algorithm MM).
    """
    check_k(k, data.n_records)
    p = m
    h = float(h)
    private = check_private_items(data, private_items)
    moles = minimal_moles(data.matrix, k=k, p=p, h=h, private=private)
    occ = data.supports().astype(np.float64)
    suppressed = mm_greedy(moles, occ)
    if progress:
        progress(1, 1, f"MM: {len(suppressed)} items suppressed for {len(moles)} minimal moles")
    sup_set = set(suppressed)
    mapping = {x: (None if j in sup_set else x) for j, x in enumerate(data.items)}
    removed = float(occ[suppressed].sum()) if suppressed else 0.0
    total = float(data.matrix.nnz)
    rel = GlobalRecoding.from_mapping(
        data,
        mapping,
        universe=data.n_items,
        algorithm="mm",
        params={
            "k": k,
            "m": p,
            "p": p,
            "h": h,
            "private": [data.items[j] for j in private],
            "n_moles": len(moles),
            "cost": removed,
            "cost_generalization": 0.0,
            "cost_suppression": removed,
            "ncp": removed / total if total else 0.0,
        },
    )
    rel.trace = HierarchyTrace(cut=None, suppressed=tuple(data.items[j] for j in suppressed))
    return publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)


def _prepare_mm(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    """``h`` without private items would change nothing: refused; not given, it is 1 (no bound)."""
    if values["h"] is None:
        kwargs["h"] = 1.0
    elif not values["private"]:
        raise ParameterError(
            "--param h bounds the confidence of inferring a private item; without --param private=ITEM,... "
            "there is none, so h would change nothing: give the private items or drop h"
        )
    return kwargs


MM = MethodDeclaration(
    name="mm", family="hierarchy", function=anonymize_mm, privacy_model="km",
    summary="MM: greedy total item suppression for k^m-anonymity / (h,k,p)-coherence (Xu et al. 2008; "
    "--param h=0.8 private=a,b)",
    params=(
        Parameter("h", float, None, "largest allowed confidence of inferring a private item, a number in (0, 1] "
                  "(default 1: no bound); needs private"),
        Parameter("private", parse_name_list, (), "private (sensitive) items, comma-separated",
                  argument="private_items"),
    ),
    published=frozenset({"k", "m", "p", "h", "private", "n_moles", *GLOBAL_COSTS}),
    needs_k=True, options=("k", "m"), combined_params=True, prepare=_prepare_mm,
    advice=Advice(less_suppression="-a aa or -a hghs (they generalize items instead of suppressing them), or a "
                  "smaller -m"),
)
