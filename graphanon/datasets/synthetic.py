"""Seeded synthetic transactions: IBM Quest-style (the T10I4D100K family) with a taxonomy, and diagnosis codes.

:func:`icd9_like` draws two samples of one population of patients over an
ICD-9-shaped code tree with skewed code frequencies (most leaves absent
from a sample): the data and the "external" sample an adversary holds
(see :func:`graphanon.attacks.leaf_naming`); it and the patients with
demographics are defined in :mod:`graphanon.datasets.patients`.

The generator of Agrawal & Srikant (1994, Sec. 2.4.3) builds ``n_patterns``
potentially large itemsets ("patterns") and fills each record with corrupted
copies of patterns picked by weight:

* pattern sizes are ``Poisson(avg_pattern_length)`` (at least 1); a fraction
  ``Exp(correlation)`` (capped at 1) of each pattern's items comes from the
  previous pattern, the rest are new draws;
* pattern weights are ``Exp(1)``, normalized: a few patterns dominate;
* each pattern has a corruption level ``c ~ Normal(0.5, 0.1)`` clipped to
  [0, 1]: a picked copy drops items while a uniform draw is below ``c``;
* record sizes are ``Poisson(avg_record_length)`` (at least 1); a copy that
  does not fit is kept anyway in half the cases and otherwise moved to the
  next record.

One choice is ours: the paper draws pattern items "at random"; we draw them
with ``Exp(1)`` item popularity, which reproduces the ~870 of 1,000 items the
published T10I4D100K uses (uniform draws would use all 1,000).

Everything is vectorized except the record filling (a compiled pass over the
picked copies, which depends on the previous record): 10^6 records take
seconds.

References
----------
Agrawal, Srikant. Fast algorithms for mining association rules. VLDB 1994,
Sec. 2.4.3 (the synthetic data generator).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.data import TransactionData
from graphanon.datasets.patients import icd9_like, patients_with_demographics, write_patients_files
from graphanon.errors import ParameterError
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.randomness import check_random_state
from graphanon.utils.validation import check_positive

__all__ = ["icd9_like", "patients_with_demographics", "quest", "quest_patterns", "quest_taxonomy", "write_patients_files"]


def quest_patterns(n_items: int, n_patterns: int, avg_pattern_length: float, *, correlation: float = 0.5, rng=None):
    """The patterns of the Quest generator.

    Parameters
    ----------
    n_items, n_patterns : int
    avg_pattern_length : float
        Mean pattern size (Poisson, at least 1, at most ``n_items``).
    correlation : float
        Mean fraction of a pattern's items taken from the previous pattern.
    rng : numpy Generator or int, optional

    Returns
    -------
    items : ndarray of int64
        The items of all patterns, concatenated (each pattern's items distinct).
    ptr : ndarray of int64, shape (n_patterns + 1,)
        Pattern ``i`` is ``items[ptr[i]:ptr[i + 1]]``.
    weights : ndarray, shape (n_patterns,)
        Pick probabilities (``Exp(1)``, normalized).
    corruption : ndarray, shape (n_patterns,)
        Corruption levels in [0, 1].

    Notes
    -----
    Complexity: O(n_patterns * avg_pattern_length) draws; one short Python step per
    pattern (the previous-pattern dependency), not per record.

    Examples
    --------
    >>> items, ptr, w, c = quest_patterns(100, 5, 4, rng=0)
    >>> len(ptr), round(float(w.sum()), 6), bool(((c >= 0) & (c <= 1)).all())
    (6, 1.0, True)
    """
    rng = check_random_state(rng)
    sizes = np.clip(rng.poisson(avg_pattern_length, size=n_patterns), 1, n_items)
    popularity = rng.exponential(1.0, size=n_items)
    popularity /= popularity.sum()
    shared = np.minimum(rng.exponential(correlation, size=n_patterns), 1.0)
    parts, prev = [], np.zeros(0, dtype=np.int64)
    for size, frac in zip(sizes, shared, strict=True):
        n_old = min(len(prev), int(round(frac * size)))
        old = rng.choice(prev, size=n_old, replace=False) if n_old else prev[:0]
        pool = rng.choice(n_items, size=3 * size + 8, p=popularity)
        new = _unique_in_order(pool[~np.isin(pool, old)])[: size - n_old]
        prev = np.concatenate([old, new]).astype(np.int64)
        parts.append(prev)
    ptr = np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64)
    weights = rng.exponential(1.0, size=n_patterns)
    weights /= weights.sum()
    corruption = np.clip(rng.normal(0.5, np.sqrt(0.1), size=n_patterns), 0.0, 1.0)
    return np.concatenate(parts), ptr, weights, corruption


def _unique_in_order(a: np.ndarray) -> np.ndarray:
    """Distinct values of ``a`` in order of first appearance."""
    _, first = np.unique(a, return_index=True)
    return a[np.sort(first)]


@njit(cache=True)
def _fill(targets, copy_sizes, keep_coin):  # pragma: no cover - compiled
    """Record of each picked copy (-1: not used), filling records in order."""
    owner = np.full(len(copy_sizes), -1, dtype=np.int64)
    r, fill, n = 0, 0, len(targets)
    for i in range(len(copy_sizes)):
        if r >= n:
            break
        s = copy_sizes[i]
        if s == 0:
            continue
        if fill + s <= targets[r] or fill == 0:
            owner[i] = r
            fill += s
            if fill >= targets[r]:
                r, fill = r + 1, 0
        elif keep_coin[i]:
            owner[i] = r
            r, fill = r + 1, 0
        else:  # moved to the next record, which it starts
            r += 1
            if r < n:
                owner[i] = r
                fill = s
                if fill >= targets[r]:
                    r, fill = r + 1, 0
    return owner


_SLOT_BLOCK = 1 << 22  # copies expanded at once (bounds the temporary slot arrays)


def _expand_copies(used, owner, kept, picks, ptr, items, rng):
    """Occurrences (record, item) of the used copies: a random ``kept[i]``-subset of each copy's pattern.

    The slots of the copies are expanded block by block (``_SLOT_BLOCK``
    copies); each block draws one uniform key per slot and keeps the slots
    whose rank within their copy is below ``kept``. The keys are drawn in
    order, so the blocks consume the random stream as one draw would.
    Returns int32 (or int64) ``rows`` (sorted) and ``cols``.
    """
    sizes = np.diff(ptr)
    index_type = np.int32 if max(len(owner), len(items), int(ptr[-1])) < 2**31 else np.int64
    row_parts, col_parts = [], []
    for a in range(0, len(used), _SLOT_BLOCK):
        block = used[a : a + _SLOT_BLOCK]
        used_sizes = sizes[picks[block]]
        slot_copy = np.repeat(np.arange(len(block)), used_sizes)
        offset = np.arange(len(slot_copy)) - np.repeat(np.cumsum(used_sizes) - used_sizes, used_sizes)
        order = np.argsort(slot_copy + rng.random(len(slot_copy)))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = offset  # slots of one copy are contiguous, so offset is the rank within the copy
        keep = np.flatnonzero(rank < kept[block][slot_copy])
        del order, rank
        copy = slot_copy[keep]
        row_parts.append(owner[block][copy].astype(index_type))
        col_parts.append(items[ptr[picks[block]][copy] + offset[keep]].astype(index_type))
    if not row_parts:
        return np.zeros(0, dtype=index_type), np.zeros(0, dtype=index_type)
    return np.concatenate(row_parts), np.concatenate(col_parts)


def quest(
    n_records: int = 100_000,
    *,
    avg_record_length: float = 10,
    avg_pattern_length: float = 4,
    n_items: int = 1000,
    n_patterns: int = 2000,
    correlation: float = 0.5,
    rng=None,
) -> TransactionData:
    """IBM Quest-style transactions; the defaults are T10I4D100K's parameters.

    Parameters
    ----------
    n_records : int
        ``D``: number of records.
    avg_record_length : float
        ``T``: mean record size.
    avg_pattern_length : float
        ``I``: mean pattern size.
    n_items : int
        ``N``: number of items (labels ``"0"`` .. ``str(N - 1)``; only used
        items become columns).
    n_patterns : int
        ``L``: number of patterns.
    correlation : float
        Mean fraction of a pattern shared with the previous one.
    rng : numpy Generator or int, optional
        Seed: the same arguments and seed give the same data.

    Returns
    -------
    TransactionData
        Records ``t0, t1, ...``; items are the used ones, as text.

    Raises
    ------
    ParameterError
        For a non-positive count or length.

    Notes
    -----
    Complexity: O(D * T) vectorized draws and one sparse matrix build, plus one compiled
    O(picked copies) pass that assigns copies to records.

    Examples
    --------
    >>> data = quest(2000, rng=1)
    >>> data.n_records, 8 < data.matrix.nnz / data.n_records < 12
    (2000, True)
    >>> quest(500, rng=7).matrix.nnz == quest(500, rng=7).matrix.nnz
    True

    References
    ----------
    Agrawal, Srikant. VLDB 1994, Sec. 2.4.3.
    """
    n_records = check_positive("n_records", n_records)
    n_items = check_positive("n_items", n_items)
    n_patterns = check_positive("n_patterns", n_patterns)
    avg_record_length = check_positive("avg_record_length", avg_record_length, integer=False)
    avg_pattern_length = check_positive("avg_pattern_length", avg_pattern_length, integer=False)
    if not 0 <= float(correlation) <= 1:
        raise ParameterError(f"correlation must be in [0, 1], got {correlation!r}")
    rng = check_random_state(rng)
    items, ptr, weights, corruption = quest_patterns(
        n_items, n_patterns, avg_pattern_length, correlation=float(correlation), rng=rng
    )
    sizes = np.diff(ptr)
    targets = np.maximum(rng.poisson(avg_record_length, size=n_records), 1).astype(np.int64)
    # Enough copies for all records: each copy keeps about (1 - c) of its pattern.
    mean_copy = float(weights @ (sizes * (1.0 - corruption))) or 1.0
    n_copies = int(1.3 * targets.sum() / max(mean_copy, 0.25)) + 64
    picks = rng.choice(n_patterns, size=n_copies, p=weights)
    c = corruption[picks]
    with np.errstate(divide="ignore"):
        dropped = np.where(c > 0, np.floor(np.log(rng.random(n_copies)) / np.log(np.maximum(c, 1e-300))), 0)
    dropped = np.where(c >= 1, sizes[picks], dropped)
    kept = (sizes[picks] - np.minimum(dropped, sizes[picks])).astype(np.int64)
    del c, dropped
    owner = _fill(targets, kept, rng.random(n_copies) < 0.5)
    used = np.flatnonzero(owner >= 0)
    rows, cols = _expand_copies(used, owner, kept, picks, ptr, items, rng)
    # copies are used in record order, so the rows come sorted: the CSR structure directly
    indptr = np.zeros(n_records + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_records), out=indptr[1:])
    X = sp.csr_array((np.ones(len(cols), dtype=bool), cols, indptr), shape=(n_records, n_items))
    X.sum_duplicates()  # a record may get an item from two copies
    present = np.flatnonzero(np.bincount(X.indices, minlength=n_items))
    name = f"quest T{avg_record_length:g}I{avg_pattern_length:g}D{n_records}"
    return TransactionData(X[:, present], [str(j) for j in present], name=name)


def quest_taxonomy(data: TransactionData, fanout: int = 5, *, rng=None) -> Taxonomy:
    """A balanced taxonomy (``fanout`` children per node) over the items of ``data``.

    Leaves are grouped in a random order drawn from ``rng`` (item numbers
    carry no meaning in Quest data), so generalization mixes unrelated items
    as a real category tree would for the anonymizer.

    Examples
    --------
    >>> tax = quest_taxonomy(quest(300, n_items=50, rng=0), rng=0)
    >>> tax.height >= 2
    True
    """
    return Taxonomy.balanced(data.items, fanout=fanout, order="random", rng=check_random_state(rng))
