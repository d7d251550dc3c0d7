"""CAHD published through the nonreciprocal bit-voting model (the paper's l-diversity baseline).

CAHD (Ghinita et al.) partitions the records, in a Gray-like band order, into
groups whose sensitive labels are l-diverse. To compare it with nonreciprocal
recoding under one publication model (Xue et al., Sec. 5.1), every group is
published by bit voting: all records of a group share the group's base
bitmap, distance bitmap and threshold, so the generalization graph is the
union of complete bipartite graphs (one per group), and each record's
published row is drawn by a uniformly random permutation within its group --
a secret choice, drawn from operating-system entropy
(:func:`graphanon.utils.randomness.secret_generator`), like the final row shuffle.

References
----------
Ghinita, Tao, Kalnis. On the anonymization of sparse high-dimensional data.
ICDE 2008 (CAHD). Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued
data by nonreciprocal recoding. KDD 2012, Sec. 5.1 (CAHD under bit voting).
"""

from __future__ import annotations

import math
from collections import Counter
from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.declaration import (
    REUSES_PRIOR_ROWS,
    MethodDeclaration,
    Parameter,
    Required,
)
from graphanon.algorithms.nonreciprocal.anonymize import GROUPINGS
from graphanon.algorithms.nonreciprocal.cahd_groups import cahd_groups
from graphanon.algorithms.nonreciprocal.cahd_secret import secret_band_groups
from graphanon.algorithms.nonreciprocal.gray import gray_order
from graphanon.algorithms.prior import reuse_priors
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.release.publish import publish
from graphanon.utils.docs import fill_doc
from graphanon.utils.params import (
    COMMON,
    NO_VALIDATION,
    Interval,
    K,
    OnlyWith,
    StrOptions,
    validate_params,
)
from graphanon.utils.progress import ProgressCallback, report
from graphanon.utils.randomness import secret_generator
from graphanon.utils.validation import DIVERSITY_VARIANTS, check_diversity_feasible, check_k

if TYPE_CHECKING:
    from graphanon.data import TransactionData
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
    # numba (bit voting): loaded by the run, not by reading the declaration
    from graphanon.release.nonreciprocal import NonreciprocalRelease

    aligned = NonreciprocalRelease.from_preimages(data, members, sigma, algorithm=algorithm, params=params)
    return publish(data, aligned, secret=secret)


def _largest_distinct_group(labels) -> int:
    """The largest ``p`` for which groups of ``p`` pairwise distinct labels can cover the records."""
    counts = Counter(labels)
    return min(len(counts), len(labels) // max(counts.values()))



def check_table_diversity(labels, l: int, diversity: str, c: float | None) -> None:  # noqa: E741
    """Refuse (ParameterError) a variant the whole table's label distribution does not meet.

    Every grouping's candidate distributions mix group distributions, and
    Machanavajjhala et al. (TKDD 2007, Sec. 4.1) require the whole table to
    meet the variant; for recursive (c, l) with groups of pairwise distinct
    labels the group size check below is the binding one, this one names the
    table's own limit.
    """
    # Entropy needs nothing beyond the distinct check done before: no label on more than n / l
    # records means min-entropy >= log l, and Shannon entropy is at least the min-entropy.
    counts = np.array(sorted(Counter(map(str, labels)).values(), reverse=True), dtype=np.float64)
    if diversity == "recursive":
        top, tail = counts[0], counts[l - 1 :].sum()
        if not top < c * tail:
            raise ParameterError(
                f"recursive (c,l)-diversity with c={c:g}, l={l}: the whole table has r_1 = {int(top)} >= c * "
                f"(r_l + ...) = {c * tail:g}, so no grouping reaches it; raise c above {top / max(tail, 1):g} or "
                f"lower l"
            )


def _check_c(c) -> float:
    try:
        value = float(c)
    except (TypeError, ValueError):
        raise ParameterError(f"c must be a number > 0, got {c!r}") from None
    if isinstance(c, bool) or not math.isfinite(value) or value <= 0:
        raise ParameterError(f"c must be a finite number > 0, got {c!r}")
    return value


def _variant_group_size(l: int, diversity: str, c: float | None) -> int:  # noqa: E741
    """The smallest group of pairwise distinct labels that meets the variant by itself."""
    if diversity != "recursive":
        return l
    # p distinct labels: r_1 = 1 < c (p - l + 1)
    if c is None:
        raise ParameterError("recursive (c,l)-diversity needs c (a number > 0)")
    return l - 1 + math.floor(1.0 / c) + 1


@validate_params(
    {"l": K, "k": [*K, None], "diversity": [StrOptions(DIVERSITY_VARIANTS)], "c": [Interval(Real, 0, None, closed="neither"), None],
     "alpha": [Interval(Integral, 1, None)], "grouping": [StrOptions(GROUPINGS)], **COMMON, "order": [None, "array-like"], "priors": NO_VALIDATION},
    meanings={"l": "distinct sensitive labels per group", "k": "records per group; None: l",
              "c": "the recursive (c,l)-diversity constant"},
    rules=[OnlyWith("c", "diversity", "recursive")],
)
@fill_doc(secret='the draws of the secret scan (``grouping="random"``), the within-group permutation and the row shuffle')
def anonymize_cahd(
    data: TransactionData,
    *,
    l: int,  # noqa: E741
    k: int | None = None,
    diversity: str = "distinct",
    c: float | None = None,
    order=None,
    alpha: int = 3,
    grouping: str = "random",
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    priors=None,
) -> NonreciprocalRelease:
    """CAHD l-diverse grouping, published by bit voting.

    Parameters
    ----------
    data : TransactionData
        Records with sensitive labels.
    l : int
        Diversity level (checked up front like :func:`anonymize_nonreciprocal`).
    diversity : {"distinct", "entropy", "recursive"}, default "distinct"
        The l-diversity variant (Machanavajjhala et al., TKDD 2007, Sec. 4.1)
        every record's label distribution -- the labels of its viable
        candidate rows, :mod:`graphanon.privacy.diversity` -- must meet:
        distinct (``l`` labels, the paper's), entropy (``>= log l``) or
        recursive (``r_1 < c (r_l + ... + r_m)``). The groups have pairwise
        distinct labels and at least ``p`` records, ``p`` the smallest size
        that meets the variant alone (``l`` for entropy, ``l - 1 +
        floor(1/c) + 1`` for recursive). That suffices for every record:
        bit voting gives all rows of a group the same base, distance and
        threshold, so a record's candidate rows, and its viable ones, are a
        union of ``g`` whole groups; each label then counts at most ``g`` of
        at least ``g p`` rows, so its share is at most ``1/p`` (min-entropy,
        hence entropy, ``>= log p >= log l``) and ``r_l + ... >= g (p - l +
        1) >= r_1 (p - l + 1)``, so ``r_1 < c (r_l + ...)`` when ``c (p - l +
        1) > 1``. The audit checks it independently.
    c : float, optional
        The recursive constant (``diversity="recursive"`` only).
    k : int, optional
        Anonymity level. CAHD groups records with pairwise distinct labels,
        so every group of ``p`` records makes each record ``p``-anonymous;
        with ``k > l`` the groups are formed for ``p = k`` (hence also
        k-diverse, a stronger guarantee than ``l``). Default: ``l``.
    order : permutation, optional
        Record order for the grouping (default: CAHD's own, the Gray order).
    alpha : int
        CAHD candidate-list factor (``grouping="random"``: the window of
        ``2 * alpha * p`` records).
    grouping : {"random", "order"}, default "random"
        ``"random"``: :func:`~graphanon.algorithms.nonreciprocal.cahd_secret.secret_band_groups`
        along the same band order: the labels of the next group from the
        labels' remaining counts (Anatomy's largest buckets under CAHD's
        histogram check), drawn from the first ``2 * alpha * p`` records
        left in the band (stretched to hold those labels), the record of
        each label a uniform draw from operating-system entropy; which
        records a group passed over no longer follows from their labels
        (``docs/attacks.md``, (j), group skips; measured there, not proven).
        ``"order"``: the paper's exact construction
        (:func:`~graphanon.algorithms.nonreciprocal.cahd_groups.cahd_groups`:
        the visited record and the most similar candidate of each other
        label), a function of the public order and the labels; it keeps the
        warning ``l-order``. CAHD has no structure seed: the order is the
        data's Gray order, and the draws are secret.
    %(unsafe_secret_seed)s
    progress : callable(done, total, message), optional
        Called before the grouping, with the records grouped as it goes, and
        after the publication.

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
        ``group_size``, the size of the distinct-label groups before any
        merge (``max(k, l)``, or larger for recursive diversity); with a
        variant also ``diversity`` (and ``c``).

    Raises
    ------
    ParameterError
        When the labels cannot fill groups of ``max(k, l)`` distinct labels
        (the message gives the largest feasible value).

    See Also
    --------
    graphanon.privacy.LDiversity : The audit of its releases.
    graphanon.privacy.EntropyLDiversity : The audit for ``diversity='entropy'``.
    graphanon.privacy.RecursiveLDiversity : The audit for ``diversity='recursive'``.
    graphanon.algorithms.anonymize_nonreciprocal : Nonreciprocal recoding.

    Notes
    -----
    Complexity: that of :func:`graphanon.algorithms.nonreciprocal.cahd_groups.cahd_groups` plus O(sum of squared
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
    check_diversity_feasible(data.labels, l)
    if l > data.n_records:
        raise ParameterError(f"l={l} exceeds the number of records ({data.n_records})")
    if k is None:
        k = l
    check_k(k, data.n_records)
    size = max(int(k), l)
    if size > l:
        top = _largest_distinct_group(data.labels)
        if size > top:
            raise ParameterError(
                f"k={k}: CAHD makes records k-anonymous with groups of k pairwise distinct labels, and these labels "
                f"fill groups of at most {top}; lower k to {top} (k={k}, l={l}); nr does not give k > l either (its "
                f"l-diverse graph is l-regular, Xue et al., Sec. 4): -a nr -k {k} without l is k-anonymous, "
                f"not l-diverse"
            )
    if diversity == "recursive":
        if c is None:
            raise ParameterError("diversity=recursive needs c: r_1 < c (r_l + ... + r_m)")
        c = _check_c(c)
    if diversity != "distinct":
        check_table_diversity(data.labels, l, diversity, c)
        wanted = _variant_group_size(l, diversity, c)
        if wanted > size:
            top = _largest_distinct_group(data.labels)
            if wanted > top:
                raise ParameterError(
                    f"recursive (c,l)-diversity with c={c:g}, l={l} needs groups of {wanted} distinct labels "
                    f"(1 < c * (size - l + 1)); these labels fill groups of at most {top}: raise c above "
                    f"{1 / (top - l + 1):g} or lower l"
                )
            size = wanted
    report(progress, 0, data.n_records, "CAHD grouping: records grouped")
    assert data.labels is not None  # check_diversity_feasible refused unlabelled data
    if grouping == "random":
        # the draws' own stream (a pinned seed in tests gives it a stream apart from the publication's)
        secret = secret_generator(None if unsafe_secret_seed is None else unsafe_secret_seed + 1)
        band = gray_order(data.matrix) if order is None else order
        groups = secret_band_groups(list(data.labels), size, order=band, window=2 * int(alpha) * size, secret=secret,
                                    progress=progress)
    else:
        groups = cahd_groups(data.matrix, list(data.labels), size, order=order, alpha=alpha, progress=progress)
    report(progress, 1, 2, "publishing by bit voting")
    params: dict[str, object] = {"k": int(k), "l": l, "alpha": alpha, "group_size": size, "grouping": grouping}
    if diversity != "distinct":
        params["diversity"] = diversity
        if c is not None:
            params["c"] = c
    release = groups_release(data, groups, unsafe_secret_seed=unsafe_secret_seed, algorithm="cahd", params=params)
    report(progress, 2, 2, "done")
    return release


def _prepare_cahd(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    """``-a cahd``: ``l`` defaults to ``-k``; the records need sensitive labels."""
    l = opts.k if values["l"] is None else values["l"]  # noqa: E741  (one of them: ``required``)
    opts.require_labels(data, f"-a cahd --param l={l}" if values["l"] is not None else f"-a cahd -k {l}")
    kwargs["l"] = l
    return kwargs


CAHD = MethodDeclaration(
    name="cahd", family="nonreciprocal", function=anonymize_cahd, privacy_model="ldiversity",
    summary="CAHD l-diverse groups (Ghinita et al.) published by nonreciprocal bit voting (--param l=L; "
    "-k K > L: groups of K distinct labels)",
    params=(
        Parameter("l", int, None, "l-diversity: groups of l distinct sensitive labels (default: -k)"),
        Parameter("alpha", int, 3, "CAHD candidate list: alpha * l records on each side of the band"),
        Parameter("grouping", str, "random", "random: the record a group takes from a label is a secret uniform draw "
                  "among the window's candidates of that label; order: the paper's (the most similar; warns l-order)"),
        Parameter("diversity", str, "distinct", "l-diversity variant: distinct, entropy (label entropy of every "
                  "record's viable rows >= log l) or recursive (r_1 < c (r_l + ...))"),
        Parameter("c", float, None, "recursive (c,l)-diversity constant (diversity=recursive)"),
    ),
    audit_params=("l", "diversity", "c"),
    published=frozenset({"k", "l", "alpha", "group_size", "grouping", "diversity", "c"}),
    priors=REUSES_PRIOR_ROWS, needs_labels=True, options=("k",), prepare=_prepare_cahd,
    required=(Required(("l", "k"), "l=2", "groups of l distinct sensitive labels"),),
)
