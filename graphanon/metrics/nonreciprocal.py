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

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.errors import DataMismatchError, ParameterError
from graphanon.metrics.queries import CountQuery, generate_workload, true_counts
from graphanon.release.fingerprint import same_fingerprint
from graphanon.utils.randomness import seed_of

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.randomness import RandomLike

__all__ = ["error_rate", "evaluate_nonreciprocal", "query_error"]


def resolve_link(release, link=None):
    """The private link to use: ``link`` if given, else ``release.link``; a clear error when neither."""
    if link is None:
        link = getattr(release, "link", None)
        if link is None:
            raise ParameterError(
                "this metric compares each record with its own published row, which only the private link "
                "knows: pass link= (graphanon.release.private_link.load_private_link) or, on the command line, --link PRIVATE_LINK"
            )
    elif release.fingerprint is not None and not same_fingerprint(link.fingerprint, release.fingerprint):
        raise DataMismatchError("the private link was not made with this release (their data fingerprints differ)")
    if not hasattr(link, "rows_for"):
        raise DataMismatchError(
            f"a {type(link).__name__} is the private link of a SplitPerson release (rows split from records); "
            "this metric needs the one-row-per-record link written with this release"
        )
    if len(link) != release.n_records:
        raise DataMismatchError(f"the private link has {len(link)} records, the release {release.n_records}")
    return link


def _aligned(original, release, link=None) -> tuple[sp.csr_array, sp.csr_array]:
    """Original records and their published base bitmaps (each record's true row, by the private link), both in the release's item columns."""
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


def error_rate(original: TransactionData, release, *, link=None) -> float:
    """ER: mean over records of ``H(r_i, base of r_i's published record) / |r_i|``.

    The published record of ``r_i`` is its true match under the chosen
    assignment, known only from the private link (``link``, default
    ``release.link``; :class:`~graphanon.errors.ParameterError` when there is
    none). For an empty record the denominator is taken as 1 (its error is
    the number of items its published base invents).

    See Also
    --------
    query_error : Type I / II COUNT-query error.
    evaluate_nonreciprocal : Both, with a workload.
    graphanon.algorithms.anonymize_nonreciprocal : The method whose releases it measures.

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


def query_error(original: TransactionData, release, workload) -> dict:
    """Query error QE = mean ``|Co - Ca| / n`` of type I and type II COUNT queries.

    Parameters
    ----------
    original : TransactionData
    release : Release
    workload : QueryWorkload
        From :func:`graphanon.metrics.generate_workload` with ``draw="uniform"``:
        each query's ``include`` part is a type I query (all items present), its
        ``exclude`` part a type II query (all items absent).

    Returns
    -------
    dict
        ``query_error_type1``, ``query_error_type2`` and their mean ``query_error``.

    See Also
    --------
    error_rate : The per-record bit error (needs the private link).
    graphanon.metrics.generate_workload : The seeded workload.
    """
    type1 = [CountQuery(q.include) for q in workload.queries]
    type2 = [CountQuery((), q.exclude) for q in workload.queries]
    e1 = np.array([release.estimate_count(q.include) for q in type1])
    e2 = np.array([release.estimate_count((), q.exclude) for q in type2])
    n = original.n_records
    q1 = float(np.mean(np.abs(true_counts(original, type1) - e1)) / n)
    q2 = float(np.mean(np.abs(true_counts(original, type2) - e2)) / n)
    return {"query_error_type1": q1, "query_error_type2": q2, "query_error": (q1 + q2) / 2}


def evaluate_nonreciprocal(
    original: TransactionData, release, queries: int = 500, q: int | None = None, rng: RandomLike = 0, *, link=None
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
    rng : None, int or numpy.random.Generator, default 0
        The workload's randomness (recorded as ``seed``).
    link : ReleaseLink, optional
        The private link (default ``release.link``). Without one, ``error_rate``
        is left out and ``needs_link`` lists it.

    Returns
    -------
    dict
        ``error_rate`` (with a link), ``query_error`` (mean of both types),
        ``query_error_type1``, ``query_error_type2``, ``queries``, ``q``, ``seed``.

    See Also
    --------
    error_rate, query_error : The two metrics it reports.
    graphanon.metrics.evaluate_release : The same for every release kind.
    """
    n_inc, n_exc = (3, 4) if q is None else (q, q)
    wl = generate_workload(original, queries, n_inc + n_exc, n_exclude=n_exc, rng=rng, draw="uniform")
    if link is None and getattr(release, "link", None) is None:
        out: dict = {"needs_link": ["error_rate"]}
    else:
        out = {"error_rate": error_rate(original, release, link=link)}
    out.update(query_error(original, release, wl))
    out.update({"queries": queries, "q": [n_inc, n_exc] if q is None else q, "seed": seed_of(rng)})
    return out
