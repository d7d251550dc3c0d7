"""CAHD published through the nonreciprocal bit-voting model (the paper's l-diversity baseline).

CAHD (Ghinita et al.) partitions the records, in a Gray-like band order, into
groups whose sensitive labels are l-diverse. To compare it with nonreciprocal
recoding under one publication model (Xue et al., Sec. 5.1), every group is
published by bit voting: all records of a group share the group's base
bitmap, distance bitmap and threshold, so the generalization graph is the
union of complete bipartite graphs (one per group), and each record's
published row is drawn by a uniformly random permutation within its group --
a secret choice, drawn from operating-system entropy
(:func:`graphanon._random.secret_generator`), like the final row shuffle.

References
----------
Ghinita, Tao, Kalnis. On the anonymization of sparse high-dimensional data.
ICDE 2008 (CAHD). Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued
data by nonreciprocal recoding. KDD 2012, Sec. 5.1 (CAHD under bit voting).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import scipy.sparse as sp

from graphanon._progress import ProgressCallback, report
from graphanon._random import check_random_state, secret_generator
from graphanon._validation import check_diversity_feasible
from graphanon.algorithms.cahd import cahd_groups
from graphanon.algorithms.prior import reuse_priors
from graphanon.algorithms.registry import AlgorithmSpec, Param, RunOptions, register
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.release import publish
from graphanon.release.nonreciprocal import NonreciprocalRelease

__all__ = ["anonymize_cahd", "groups_release"]


def groups_release(
    data, groups, *, unsafe_secret_seed: int | None = None, algorithm: str = "cahd", params: dict | None = None
):
    """Publish ``data`` by bit voting within each group of record indices.

    Parameters
    ----------
    data : TransactionData
    groups : list of arrays of record indices
        A partition of ``0..n-1``.
    unsafe_secret_seed : int, optional
        Tests only: fixes the within-group permutation and the row shuffle
        (operating-system entropy otherwise). Never recorded in the release.

    Returns
    -------
    NonreciprocalRelease
        Rows in a secret random order: the bit vote of each group, once per
        member, each with its record's label; ``release.link`` is private.
    """
    n = data.n_records
    secret = secret_generator(unsafe_secret_seed)
    seen = np.zeros(n, dtype=np.int64)
    rows, cols = [], []
    sigma = np.empty(n, dtype=np.int64)
    for g in groups:
        g = np.asarray(g, dtype=np.int64)
        if len(g) == 0:
            raise InfeasibleError("an empty group")
        seen[g] += 1
        rows.append(np.repeat(g, len(g)))
        cols.append(np.tile(g, len(g)))
        sigma[g] = secret.permutation(g)
    if (seen != 1).any():
        bad = int(np.flatnonzero(seen != 1)[0])
        raise InfeasibleError(f"groups are not a partition of the records: record {bad} is in {int(seen[bad])} groups")
    members = sp.csr_array(
        (np.ones(sum(len(r) for r in rows), dtype=np.int8), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
    )
    aligned = NonreciprocalRelease.from_preimages(data, members, sigma, algorithm=algorithm, params=params)
    return publish(data, aligned, secret=secret)


def _largest_distinct_group(labels) -> int:
    """The largest ``p`` for which groups of ``p`` pairwise distinct labels can cover the records."""
    counts = Counter(labels)
    return min(len(counts), len(labels) // max(counts.values()))


def anonymize_cahd(
    data,
    *,
    l: int,  # noqa: E741
    k: int | None = None,
    order=None,
    alpha: int = 3,
    rng=None,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    priors=None,
):
    """CAHD l-diverse grouping, published by bit voting.

    Parameters
    ----------
    data : TransactionData
        Records with sensitive labels.
    l : int
        Diversity level (checked up front like :func:`anonymize_nonreciprocal`).
    k : int, optional
        Anonymity level. CAHD groups records with pairwise distinct labels,
        so every group of ``p`` records makes each record ``p``-anonymous;
        with ``k > l`` the groups are formed for ``p = k`` (hence also
        k-diverse, a stronger guarantee than ``l``). Default: ``l``.
    order : permutation, optional
        Record order for the grouping (default: CAHD's own, the Gray order).
    alpha : int
        CAHD candidate-list factor.
    rng : None, int or numpy Generator
        Accepted for the common convention (same ``rng``, same release
        structure); the grouping is deterministic and draws nothing.
    unsafe_secret_seed : int, optional
        Tests only: fixes the within-group permutation and the row shuffle.
        The grouping itself is deterministic; both secret choices come from
        operating-system entropy otherwise. Never recorded in the release.
    progress : callable(done, total, message), optional
        Called before the grouping and after the publication.

    priors : release, Prior, (release, link), or a sequence of them, optional
        Earlier releases of ``data`` (:mod:`graphanon.algorithms.prior`):
        the new release reuses the row each prior gave every record (read
        from the prior's private link), so together they reveal no more than
        the prior; ``l`` (or ``k``) above the prior's raise
        :class:`~graphanon.errors.InfeasibleError`. The other options are
        then unused.

    Returns
    -------
    NonreciprocalRelease
        Params ``k`` and ``l`` as given (``k`` defaults to ``l``) and
        ``group_size = max(k, l)``, the smallest group.

    Raises
    ------
    ParameterError
        When the labels cannot fill groups of ``max(k, l)`` distinct labels
        (the message gives the largest feasible value).

    Complexity
    ----------
    That of :func:`graphanon.algorithms.cahd.cahd_groups` plus O(sum of squared
    group sizes) for the publication.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> rel = anonymize_cahd(load("nr_table1"), l=2, k=3)
    >>> rel.params["group_size"], rel.n_records
    (3, 6)
    """
    if priors is not None:
        return reuse_priors(data, priors, k=k if k is not None else l, l=l, unsafe_secret_seed=unsafe_secret_seed)
    check_random_state(rng)  # validated like every method's; CAHD draws nothing
    check_diversity_feasible(data.labels, l)
    if l > data.n_records:
        raise ParameterError(f"l={l} exceeds the number of records ({data.n_records})")
    if k is None:
        k = l
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= data.n_records:
        raise ParameterError(f"k must be a whole number between 1 and the number of records ({data.n_records}), got {k!r}")
    size = max(int(k), l)
    if size > l:
        top = _largest_distinct_group(data.labels)
        if size > top:
            raise ParameterError(
                f"k={k}: CAHD makes records k-anonymous with groups of k pairwise distinct labels, and these labels "
                f"fill groups of at most {top}; lower k to {top}, or use nonreciprocal recoding, which separates k "
                f"from l (-a nr -k {k} --param l={l})"
            )
    report(progress, 0, 2, "CAHD grouping")
    groups = cahd_groups(data.matrix, list(data.labels), size, order=order, alpha=alpha)
    report(progress, 1, 2, "publishing by bit voting")
    params = {"k": int(k), "l": l, "alpha": alpha, "group_size": size}
    release = groups_release(data, groups, unsafe_secret_seed=unsafe_secret_seed, algorithm="cahd", params=params)
    report(progress, 2, 2, "done")
    return release


_PARAMS = (
    Param("l", int, None, "l-diversity: groups of l distinct sensitive labels (default: -k)"),
    Param("alpha", int, 3, "CAHD candidate list: alpha * l records on each side of the band"),
)


def _run(data, opts: RunOptions) -> NonreciprocalRelease:
    values = opts.values(_PARAMS)
    l = opts.k if values["l"] is None else values["l"]  # noqa: E741
    if l is None:
        raise ParameterError("algorithm 'cahd' needs --param l=L (or -k L)")
    return anonymize_cahd(
        data, l=l, k=opts.k, alpha=values["alpha"], unsafe_secret_seed=opts.unsafe_secret_seed,
        progress=opts.progress, priors=opts.priors,
    )


register(
    AlgorithmSpec(
        name="cahd",
        summary="CAHD l-diverse groups (Ghinita et al.) published by nonreciprocal bit voting (--param l=L; "
        "-k K > L: groups of K distinct labels)",
        run=_run,
        privacy_model="ldiversity",
        params=_PARAMS,
        audit_params=("l",),
        options=("k",),
    )
)
