"""Utility metrics of nonreciprocal releases: error rate (ER) and query error (QE).

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 5.1 (ER) and Sec. 5.2 (type I / type
II COUNT queries, QE = |Co - Ca| / n).

ER compares each record with its *own* published row, which only the
producer knows: it needs the release's private link (``release.link``, or
``link=`` -- a :class:`~graphanon.release.ReleaseLink`, e.g. read with
:func:`~graphanon.release.load_link`). QE needs no link.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError

__all__ = [
    "NRWorkload",
    "error_rate",
    "evaluate_nonreciprocal",
    "nr_workload",
    "query_error",
]


def resolve_link(release, link=None):
    """The private link to use: ``link`` if given, else ``release.link``; a clear error when neither."""
    from graphanon.errors import DataMismatchError
    from graphanon.release.fingerprint import same_fingerprint

    if link is None:
        link = getattr(release, "link", None)
        if link is None:
            raise ParameterError(
                "this metric compares each record with its own published row, which only the private link "
                "knows: pass link= (graphanon.release.load_link) or, on the command line, --link PRIVATE_LINK"
            )
    elif release.fingerprint is not None and not same_fingerprint(link.fingerprint, release.fingerprint):
        raise DataMismatchError("the private link was not made with this release (their data fingerprints differ)")
    if len(link) != release.n_records:
        raise DataMismatchError(f"the private link has {len(link)} records, the release {release.n_records}")
    return link


def _aligned(original, release, link=None) -> tuple[sp.csr_array, sp.csr_array]:
    """Original records and their published base bitmaps (each record's true row, by the
    private link), both in the release's item columns."""
    if release.n_records != original.n_records:
        raise ParameterError(f"release has {release.n_records} records, original data {original.n_records}")
    rows = resolve_link(release, link).rows_for(original)
    index = {x: j for j, x in enumerate(release.items)}
    cols = np.array([index.get(x, -1) for x in original.items], dtype=np.int64)
    X = sp.csr_array(original.matrix)
    if (cols < 0).any():
        raise ParameterError(
            f"original item {original.items[int(np.flatnonzero(cols < 0)[0])]!r} is not in the release vocabulary"
        )
    coo = X.tocoo()
    Y = sp.csr_array(
        (np.ones(coo.nnz, dtype=np.int32), (coo.row, cols[coo.col])), shape=(original.n_records, len(release.items))
    )
    B = sp.csr_array(release.base, dtype=np.int32)[rows]
    return Y, sp.csr_array(B)


def error_rate(original, release, *, link=None) -> float:
    """ER: mean over records of ``H(r_i, base of r_i's published record) / |r_i|``.

    The published record of ``r_i`` is its true match under the chosen
    assignment, known only from the private link (``link``, default
    ``release.link``; :class:`~graphanon.errors.ParameterError` when there is
    none). For an empty record the denominator is taken as 1 (its error is
    the number of items its published base invents).

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> data = load("nr_table1")
    >>> rel = anonymize_nonreciprocal(data, k=1, order="identity", rng=0)
    >>> error_rate(data, rel)
    0.0
    """
    Y, B = _aligned(original, release, link)
    ylen = np.diff(Y.indptr)
    blen = np.diff(B.indptr)
    inter = np.asarray(Y.multiply(B).sum(axis=1)).ravel()
    h = ylen + blen - 2 * inter
    return float(np.mean(h / np.maximum(ylen, 1))) if len(h) else 0.0


@dataclass(frozen=True)
class NRWorkload:
    """Type I (``include``: items present) and type II (``exclude``: items absent)
    COUNT queries with their true answers on the original data."""

    include: tuple
    exclude: tuple
    answers_include: np.ndarray
    answers_exclude: np.ndarray
    seed: int


def nr_workload(original, n_queries: int = 500, n_include: int = 3, n_exclude: int = 4, *, seed: int = 0):
    """Random type I / type II queries (items drawn uniformly among items of support > 0)."""
    rng = np.random.default_rng(seed)
    sup = original.supports()
    pool = np.flatnonzero(sup > 0)
    if len(pool) < max(n_include, n_exclude):
        raise ParameterError(f"need at least {max(n_include, n_exclude)} items with support > 0, got {len(pool)}")
    Xc = sp.csc_array(original.matrix).astype(np.int32)
    inc, exc, ai, ae = [], [], [], []
    n = original.n_records
    for _ in range(n_queries):
        a = rng.choice(pool, size=n_include, replace=False)
        b = rng.choice(pool, size=n_exclude, replace=False)
        cnt_a = np.asarray(Xc[:, a].sum(axis=1)).ravel()
        cnt_b = np.asarray(Xc[:, b].sum(axis=1)).ravel()
        inc.append(tuple(original.items[j] for j in a))
        exc.append(tuple(original.items[j] for j in b))
        ai.append(int((cnt_a == n_include).sum()))
        ae.append(int((cnt_b == 0).sum()))
    del n
    return NRWorkload(tuple(inc), tuple(exc), np.array(ai), np.array(ae), seed)


def query_error(release, workload: NRWorkload, n_records: int) -> dict:
    """QE = mean ``|Co - Ca| / n`` for type I and type II queries (and their mean)."""
    e1 = np.array([release.estimate_count(q) for q in workload.include])
    e2 = np.array([release.estimate_count((), q) for q in workload.exclude])
    q1 = float(np.mean(np.abs(workload.answers_include - e1)) / n_records)
    q2 = float(np.mean(np.abs(workload.answers_exclude - e2)) / n_records)
    return {"query_error_type1": q1, "query_error_type2": q2, "query_error": (q1 + q2) / 2}


def evaluate_nonreciprocal(
    original, release, queries: int = 500, q: int | None = None, seed: int = 0, *, link=None
) -> dict:
    """Metrics of a nonreciprocal release for ``graphanon evaluate``.

    Parameters
    ----------
    original : TransactionData
    release : NonreciprocalRelease
    queries : int
        Number of type I and of type II queries.
    q : int, optional
        Items per query (both types). Default: the paper's chess setting,
        3 included items and 4 excluded items.
    seed : int
        Workload seed.
    link : ReleaseLink, optional
        The private link (default ``release.link``). Without one, ``error_rate``
        is left out and ``needs_link`` lists it.

    Returns
    -------
    dict
        ``error_rate`` (with a link), ``query_error`` (mean of both types),
        ``query_error_type1``, ``query_error_type2``, ``queries``, ``q``, ``seed``.
    """
    n_inc, n_exc = (3, 4) if q is None else (q, q)
    wl = nr_workload(original, queries, n_inc, n_exc, seed=seed)
    if link is None and getattr(release, "link", None) is None:
        out: dict = {"needs_link": ["error_rate"]}
    else:
        out = {"error_rate": error_rate(original, release, link=link)}
    out.update(query_error(release, wl, original.n_records))
    out.update({"queries": queries, "q": [n_inc, n_exc] if q is None else q, "seed": seed})
    return out
