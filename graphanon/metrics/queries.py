"""COUNT-query workloads and average relative error.

A COUNT query asks how many records contain every item of ``include`` and
none of ``exclude``. Releases estimate it over their possible worlds
(``Release.estimate_count``); the relative error of a query is
``|a(Q) - e(Q)| / a(Q)`` with ``a(Q)`` the answer on the original data.

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. KAIS 2011, Sec. 6.1 (AvgRE over workloads of 1000 queries).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from graphanon.counting.support import VerticalBitmaps
from graphanon.errors import ParameterError
from graphanon.utils.randomness import check_random_state, seed_of

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["CountQuery", "QueryWorkload", "average_relative_error", "generate_workload", "true_counts"]


@dataclass(frozen=True)
class CountQuery:
    """``COUNT(records with all of include and none of exclude)`` over original item labels."""

    include: tuple
    exclude: tuple = ()


@dataclass(frozen=True)
class QueryWorkload:
    """A reproducible list of COUNT queries.

    Attributes
    ----------
    queries : tuple of CountQuery
    q : int
        Items per query (include plus exclude).
    seed : int or None
        The seed that generated it (None: a Generator or fresh entropy).
    answers : ndarray
        True answers on the original data (all > 0 with ``draw="record"``).
    """

    queries: tuple
    q: int
    seed: int | None
    answers: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        """The number of queries."""
        return len(self.queries)


def _vb(data) -> VerticalBitmaps:
    return VerticalBitmaps(data.matrix)


def true_counts(data: TransactionData, queries: Sequence[CountQuery], bitmaps: VerticalBitmaps | None = None) -> np.ndarray:
    """Exact answers of COUNT queries on ``data`` (vectorized bitmaps)."""
    vb = bitmaps or _vb(data)
    out = np.empty(len(queries), dtype=np.int64)
    for i, query in enumerate(queries):
        bm = vb.bitmap(data.item_ids(query.include))
        for j in data.item_ids(query.exclude):
            bm = bm & ~vb.bits[j]
        out[i] = int(np.bitwise_count(bm).sum())
    return out


def _labels(data, ids) -> tuple:
    return tuple(data.items[j] for j in sorted(ids))


def generate_workload(
    data: TransactionData,
    n_queries: int = 1000,
    q: int = 2,
    *,
    rng=0,
    among: Sequence[Hashable] | None = None,
    n_exclude: int = 0,
    draw: str = "record",
    max_tries: int = 200,
) -> QueryWorkload:
    """Random COUNT queries on ``data``: the one workload generator of graphanon.

    Two drawing schemes, both reproducible from ``rng``:

    * ``draw="record"`` (default; COAT, CAHD, clustering experiments): the
      ``q - n_exclude`` included items come from one random record when it has
      enough candidate items (else uniformly), the excluded ones uniformly among
      the rest; a query is redrawn until its answer is non-zero.
    * ``draw="uniform"`` (the nonreciprocal paper's type I / type II queries):
      ``q - n_exclude`` included items, then ``n_exclude`` excluded items, each
      drawn uniformly without replacement among the candidate items and
      independently of each other; answers may be 0.
      :func:`graphanon.metrics.nonreciprocal.query_error` splits each query
      into its type I part (``include``) and type II part (``exclude``).

    Parameters
    ----------
    data : TransactionData
        The original data (answers are computed on it).
    n_queries : int
        Number of queries.
    q : int
        Items per query.
    rng : None, int or numpy.random.Generator, default 0
        The workload's randomness; the same seed gives the same workload
        (recorded as ``seed`` on the workload when it is a whole number).
    among : sequence of item labels, optional
        Draw items from these only (the COAT paper draws from the generalized
        items of the release under study). Default: every item of support > 0.
    n_exclude : int
        How many of the ``q`` items are negated (``exclude``), default 0.
    draw : {"record", "uniform"}
        The drawing scheme (above).
    max_tries : int
        ``draw="record"``: attempts per query to find one with a non-zero answer.

    Returns
    -------
    QueryWorkload
        Queries with their true answers on ``data``.

    Raises
    ------
    ParameterError
        When ``q`` exceeds the candidate items, ``draw`` is unknown or no
        non-zero query is found.

    See Also
    --------
    average_relative_error : The error of a release on the workload.
    true_counts : The workload's answers on the original data.
    graphanon.metrics.evaluate_release : Every metric, with a workload of its own.

    Notes
    -----
    Complexity: O(n_queries * (q + tries) * n / 64) with vertical bitmaps.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> wl = generate_workload(load("chess"), 5, 7, n_exclude=4, rng=0, draw="uniform")
    >>> len(wl), len(wl.queries[0].include), len(wl.queries[0].exclude)
    (5, 3, 4)
    """
    if q < 1 or not 0 <= n_exclude < q:
        raise ParameterError(f"need q >= 1 and 0 <= n_exclude < q, got q={q}, n_exclude={n_exclude}")
    if draw not in ("record", "uniform"):
        raise ParameterError(f"draw must be 'record' or 'uniform', got {draw!r}")
    seed = seed_of(rng)
    rng = check_random_state(rng)
    sup = data.supports()
    if among is None:
        pool = np.flatnonzero(sup > 0)
    else:
        pool = np.unique(data.item_ids(among))
        pool = pool[sup[pool] > 0]
    n_inc = q - n_exclude
    if draw == "uniform":
        if len(pool) < max(n_inc, n_exclude):
            raise ParameterError(
                f"need at least {max(n_inc, n_exclude)} candidate items with support > 0, got {len(pool)}"
            )
        drawn = [(rng.choice(pool, size=n_inc, replace=False), rng.choice(pool, size=n_exclude, replace=False))
                 for _ in range(n_queries)]
        uniform = tuple(CountQuery(_labels(data, inc), _labels(data, exc)) for inc, exc in drawn)
        return QueryWorkload(uniform, q, seed, true_counts(data, uniform))
    if len(pool) < q:
        raise ParameterError(f"q={q} items per query but only {len(pool)} candidate items have support > 0")
    in_pool = np.zeros(data.n_items, dtype=bool)
    in_pool[pool] = True
    vb = _vb(data)
    m = data.matrix
    queries: list[CountQuery] = []
    answers: list[int] = []
    for _ in range(n_queries):
        for _attempt in range(max_tries):
            r = int(rng.integers(data.n_records))
            rec = m.indices[m.indptr[r] : m.indptr[r + 1]]
            rec = rec[in_pool[rec]]
            if len(rec) >= n_inc:
                inc = rng.choice(rec, size=n_inc, replace=False)
            else:
                inc = rng.choice(pool, size=n_inc, replace=False)
            rest = np.setdiff1d(pool, inc)
            exc = rng.choice(rest, size=n_exclude, replace=False) if n_exclude else np.zeros(0, np.int64)
            bm = vb.bitmap(inc)
            for j in exc:
                bm = bm & ~vb.bits[j]
            a = int(np.bitwise_count(bm).sum())
            if a > 0:
                queries.append(CountQuery(_labels(data, inc), _labels(data, exc)))
                answers.append(a)
                break
        else:
            raise ParameterError(f"found no query with a non-zero answer in {max_tries} tries (q={q})")
    return QueryWorkload(tuple(queries), q, seed, np.array(answers, dtype=np.int64))


def average_relative_error(release, workload: QueryWorkload) -> float:
    """Mean of ``|a(Q) - e(Q)| / a(Q)`` over the workload (answers from the original data).

    See Also
    --------
    generate_workload : The seeded workload, the same for every method.
    graphanon.metrics.query_error : The same question for nonreciprocal releases, by error type.
    graphanon.metrics.evaluate_release : Every metric that applies to a release.
    """
    est = np.array([release.estimate_count(qr.include, qr.exclude) for qr in workload.queries])
    return float(np.mean(np.abs(workload.answers - est) / workload.answers))
