"""Privacy and utility policies of the COAT experiments, as generators.

* km-style: all ``m``-itemsets (:class:`~graphanon.algorithms.coat.KmConstraints`,
  implicit, or :func:`all_itemsets`, listed).
* PP1-PP5: all 2-itemsets over a random 2/5/10/25/50% of the items (Sec. 6.3).
* PP6-PP9: constraints of sizes 1-4 mixed in the proportions of Table 2.
* UP1-UP4: utility constraints made of groups of 25/50/250/500 sibling items
  of a taxonomy (Sec. 6.4).

Where the paper is silent (how many PP6-PP9 constraints, which itemsets of a
given size) the choices are stated in each function and in ``docs/coat.md``.

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. KAIS 2011, Sec. 6.2-6.4 and Table 2.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from graphanon.errors import ParameterError
from graphanon.taxonomy.constraint_sets import KmConstraints
from graphanon.taxonomy.tree import ItemGroups

__all__ = [
    "PP_ITEM_PERCENT",
    "PP_TABLE2",
    "UP_GROUP_SIZE",
    "all_itemsets",
    "km_policy",
    "pp_policy",
    "up_policy",
]

#: PP1-PP5: percent of items whose 2-itemsets are protected.
PP_ITEM_PERCENT = {1: 2.0, 2: 5.0, 3: 10.0, 4: 25.0, 5: 50.0}
#: PP6-PP9 (Table 2): percent of constraints of size 1, 2, 3, 4.
PP_TABLE2 = {
    6: (33.0, 33.0, 33.0, 1.0),
    7: (30.0, 30.0, 30.0, 10.0),
    8: (25.0, 25.0, 25.0, 25.0),
    9: (16.7, 16.7, 16.7, 50.0),
}
#: UP1-UP4: number of sibling items per utility constraint.
UP_GROUP_SIZE = {1: 25, 2: 50, 3: 250, 4: 500}


def km_policy(m: int) -> KmConstraints:
    """All ``m``-itemsets as privacy constraints (k^m-anonymity), implicit."""
    return KmConstraints(m)


def all_itemsets(data, m: int, *, items=None, limit: int = 2_000_000) -> list[tuple]:
    """List every ``m``-itemset over ``items`` (default: items with support > 0).

    Raises ParameterError beyond ``limit`` itemsets: use
    :func:`km_policy` (implicit) instead.
    """
    if items is None:
        sup = data.supports()
        items = [data.items[j] for j in np.flatnonzero(sup > 0)]
    items = list(items)
    count = math.comb(len(items), m)
    if count > limit:
        raise ParameterError(
            f"{count} {m}-itemsets over {len(items)} items exceed limit={limit}; use km_policy({m}) "
            f"(KmConstraints) which never lists them"
        )
    return list(itertools.combinations(items, m))


def _supported_itemset(data, size: int, pool_mask: np.ndarray, rng: np.random.Generator) -> tuple:
    """``size`` items of one random record (restricted to the pool) when it has enough, else uniform."""
    X = data.matrix
    for _ in range(50):
        r = int(rng.integers(data.n_records))
        rec = X.indices[X.indptr[r] : X.indptr[r + 1]]
        rec = rec[pool_mask[rec]]
        if len(rec) >= size:
            pick = np.sort(rng.choice(rec, size=size, replace=False))
            return tuple(data.items[j] for j in pick)
    pool = np.flatnonzero(pool_mask)
    pick = np.sort(rng.choice(pool, size=size, replace=False))
    return tuple(data.items[j] for j in pick)


def pp_policy(data, number: int, *, rng=0, n_constraints: int | None = None) -> list[tuple]:
    """Privacy policy PP``number`` of the paper's Sec. 6.3.

    Parameters
    ----------
    data : TransactionData
    number : int, 1..9
        PP1-PP5: every 2-itemset over a random ``PP_ITEM_PERCENT[number]``
        percent of the items of positive support (at least 2 items).
        PP6-PP9: ``n_constraints`` itemsets whose sizes 1-4 follow
        ``PP_TABLE2[number]``; each is drawn from the items of a random record
        long enough (so that it occurs in the data), else uniformly.
    rng : int or Generator
        Seed.
    n_constraints : int, optional
        PP6-PP9 only; default: the number of items (the paper does not say).

    Returns
    -------
    list of tuples of item labels

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> len(pp_policy(load("bms1"), 1, rng=0))  # 2% of 497 items -> 10 items -> 45 pairs
    45
    """
    rng = np.random.default_rng(rng)
    sup = data.supports()
    pool = np.flatnonzero(sup > 0)
    if number in PP_ITEM_PERCENT:
        n_items = max(2, int(round(len(pool) * PP_ITEM_PERCENT[number] / 100.0)))
        if n_items > len(pool):
            raise ParameterError(f"PP{number} needs {n_items} items with positive support, the data has {len(pool)}")
        chosen = np.sort(rng.choice(pool, size=n_items, replace=False))
        return [(data.items[a], data.items[b]) for a, b in itertools.combinations(chosen.tolist(), 2)]
    if number in PP_TABLE2:
        total = data.n_items if n_constraints is None else int(n_constraints)
        if total < 1:
            raise ParameterError(f"n_constraints must be >= 1, got {n_constraints}")
        shares = np.array(PP_TABLE2[number]) / 100.0
        counts = np.floor(shares * total).astype(int)
        counts[np.argmax(shares)] += total - counts.sum()
        mask = np.zeros(data.n_items, dtype=bool)
        mask[pool] = True
        out: list[tuple] = []
        seen: set = set()
        for size, cnt in zip((1, 2, 3, 4), counts.tolist(), strict=True):
            tries = 0
            got = 0
            while got < cnt and tries < 20 * cnt + 100:
                tries += 1
                t = _supported_itemset(data, min(size, len(pool)), mask, rng)
                if t not in seen:
                    seen.add(t)
                    out.append(t)
                    got += 1
        return out
    raise ParameterError(f"privacy policy number must be 1..9 (PP1-PP9), got {number!r}")


def up_policy(taxonomy, group: int, *, data=None) -> ItemGroups:
    """Utility policy UP``group`` (or a group size): blocks of sibling items of a taxonomy.

    Leaves are taken in the taxonomy's depth-first order (siblings are
    adjacent, then cousins) and cut into consecutive blocks of
    ``UP_GROUP_SIZE[group]`` items (or ``group`` items when it is not 1-4);
    the last block may be smaller. With ``data``, only its items are used.

    Examples
    --------
    >>> from graphanon.taxonomy import Taxonomy
    >>> len(up_policy(Taxonomy.balanced(range(100), 5), 1))  # UP1: blocks of 25
    4
    """
    size = UP_GROUP_SIZE.get(group, group)
    if not isinstance(size, (int, np.integer)) or size < 1:
        raise ParameterError(f"utility policy needs UP1-UP4 or a positive block size, got {group!r}")
    leaves = list(taxonomy.leaves)
    if data is not None:
        leaves = [x for x in leaves if data.has_item(x)]
        missing = [x for x in data.items if x not in set(leaves)]
        if missing:
            raise ParameterError(f"{len(missing)} item(s) of the data are not leaves of the taxonomy, e.g. {missing[:5]}")
    return ItemGroups({f"UP{b}": leaves[i : i + size] for b, i in enumerate(range(0, len(leaves), size))})
