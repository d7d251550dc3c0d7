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

import math
from collections import Counter

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from graphanon._progress import ProgressCallback, report
from graphanon._random import check_random_state, secret_generator
from graphanon._validation import check_diversity_feasible
from graphanon.algorithms.cahd import cahd_groups
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


DIVERSITY_VARIANTS = ("distinct", "entropy", "recursive")


def _variant_ok(counts: sp.csr_array, l: int, diversity: str, c: float | None) -> np.ndarray:  # noqa: E741
    """Per row of a (records x labels) count matrix: does the distribution meet the variant?

    Entropy: ``-sum p log p >= log l``; recursive: ``r_1 < c (r_l + r_{l+1} + ...)``
    (Machanavajjhala et al., TKDD 2007, Defs. 4.1 and 4.3); distinct: ``>= l`` labels.
    """
    C = sp.coo_array(counts)
    keep = C.data > 0
    row, val = C.row[keep].astype(np.int64), C.data[keep].astype(np.float64)
    n = C.shape[0]
    if diversity == "distinct":
        return np.bincount(row, minlength=n) >= l
    total = np.bincount(row, weights=val, minlength=n)
    if diversity == "entropy":
        p = val / np.maximum(total[row], 1.0)
        entropy = -np.bincount(row, weights=p * np.log(p), minlength=n)
        return (total > 0) & (entropy >= math.log(l) * (1 - 1e-9) - 1e-9)
    order = np.lexsort((-val, row))
    row_s, val_s = row[order], val[order]
    rank = np.arange(len(row_s)) - np.searchsorted(row_s, np.arange(n))[row_s]
    top = np.zeros(n)
    top[row_s[rank == 0]] = val_s[rank == 0]
    tail = np.bincount(row_s[rank >= l - 1], weights=val_s[rank >= l - 1], minlength=n)
    return (total > 0) & (top < c * tail)


def candidate_row_labels(data, aligned, label_codes: np.ndarray, n_labels: int) -> tuple[sp.csr_array, sp.csr_array]:
    """Label counts among each record's candidate rows, all and viable, in a row-aligned bit-voting release.

    The candidates of record ``i`` are the rows whose possible worlds contain
    it (the match graph); the viable ones are those some perfect matching
    gives it. Row ``i`` of ``aligned`` is record ``i``'s, so the identity is a
    perfect matching; an edge ``(i, row j)`` lies on some perfect matching iff
    record ``i`` can take record ``j``'s row along an alternating cycle, i.e.
    iff ``i`` and ``j`` are in one strongly connected component of the digraph
    ``i -> j`` (record ``i`` matches row ``j``) (Dulmage & Mendelsohn 1958;
    the audit computes the same set its own way, by max-flow on the
    class-compressed graph).

    Returns
    -------
    all_counts, viable_counts : scipy.sparse.csr_array (n_records, n_labels)
    """
    n = data.n_records
    eo, ep = aligned.match_arrays(data)
    G = sp.csr_array((np.ones(len(eo), dtype=np.int8), (eo, ep)), shape=(n, n))
    _, comp = connected_components(G, directed=True, connection="strong")
    viable = comp[eo] == comp[ep]

    def count(keep):
        out = sp.coo_array(
            (np.ones(int(keep.sum()), dtype=np.int64), (eo[keep], label_codes[ep[keep]])), shape=(n, n_labels)
        ).tocsr()
        out.sum_duplicates()
        return out

    return count(np.ones(len(eo), dtype=bool)), count(viable)


def merge_until_diverse(data, groups, l: int, diversity: str, c: float | None, *, progress=None):  # noqa: E741
    """Merge groups until every record's candidate rows meet the diversity variant.

    A record has two label distributions (:mod:`graphanon.privacy.diversity`):
    that of all its candidate rows -- its group's, plus rows of other groups
    whose bit vote it also matches -- and that of its viable ones (some
    perfect matching gives them to it); both must meet the variant. Each round publishes the groups row-aligned
    (no secret is drawn: within a group the rows differ only by label, so the
    labelled match graph does not depend on the secret permutation), finds
    the records whose distribution fails, and merges each of their groups
    with the next group in formation order (band order; the last group with
    the one before it). Merging two groups whose labels each stay within
    ``1/l`` of the group keeps that property, so the result stays distinct
    l-diverse. One group of all records has the whole table's distribution,
    which the caller checks up front, so the loop ends.

    Returns
    -------
    groups : list of ndarray
    rounds : int
    """
    codes = np.unique(np.asarray([str(v) for v in data.labels]), return_inverse=True)[1].astype(np.int64)
    n_labels = int(codes.max()) + 1 if len(codes) else 1
    groups = [np.asarray(g, dtype=np.int64) for g in groups]
    rounds = 0
    while True:
        members = _members(data.n_records, groups)
        aligned = NonreciprocalRelease.from_preimages(
            data, members, np.arange(data.n_records), algorithm="cahd", params={}
        )
        every, viable = candidate_row_labels(data, aligned, codes, n_labels)
        ok = _variant_ok(every, l, diversity, c) & _variant_ok(viable, l, diversity, c)
        if ok.all() or len(groups) == 1:
            return groups, rounds
        rounds += 1
        report(progress, rounds, rounds + 1, f"merging groups for {diversity} l-diversity")
        group_of = np.empty(data.n_records, dtype=np.int64)
        for gi, g in enumerate(groups):
            group_of[g] = gi
        failing = np.zeros(len(groups), dtype=bool)
        failing[group_of[~ok]] = True
        # pair each failing group with its next neighbour in formation order (the last with the one
        # before); a neighbour already taken this round leaves the group for the next round
        into = np.arange(len(groups))
        taken = np.zeros(len(groups), dtype=bool)
        for gi in np.flatnonzero(failing).tolist():
            if taken[gi]:
                continue
            for other in (gi + 1, gi - 1):
                if 0 <= other < len(groups) and not taken[other]:
                    taken[[gi, other]] = True
                    into[max(gi, other)] = min(gi, other)
                    break
        groups = [
            np.sort(np.concatenate([groups[g] for g in np.flatnonzero(into == target)]))
            for target in np.flatnonzero(into == np.arange(len(groups)))
        ]


def _members(n: int, groups) -> sp.csr_array:
    rows = np.concatenate([np.repeat(g, len(g)) for g in groups])
    cols = np.concatenate([np.tile(g, len(g)) for g in groups])
    return sp.csr_array((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n))


def check_table_diversity(labels, l: int, diversity: str, c: float | None) -> None:  # noqa: E741
    """Refuse (ParameterError) a variant the whole table's label distribution does not meet.

    Machanavajjhala et al. (TKDD 2007, Sec. 4.1): entropy l-diversity of any
    grouping needs the whole table to be entropy l-diverse (entropy is
    concave); the same holds for recursive (c, l) here, since the last
    resort, one group of all records, has the table's distribution.
    """
    counts = np.array(sorted(Counter(map(str, labels)).values(), reverse=True), dtype=np.float64)
    if diversity == "entropy":
        p = counts / counts.sum()
        h = float(-(p * np.log(p)).sum())
        if h < math.log(l) * (1 - 1e-9) - 1e-9:
            best = math.floor(math.exp(h) + 1e-9)
            raise ParameterError(
                f"entropy l-diversity with l={l} needs label entropy >= log {l} = {math.log(l):.4f}; these labels "
                f"have {h:.4f} in all, so no grouping reaches it: lower l to {best} or use diversity=distinct"
            )
    elif diversity == "recursive":
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
    return l - 1 + math.floor(1.0 / c) + 1


def anonymize_cahd(
    data,
    *,
    l: int,  # noqa: E741
    k: int | None = None,
    diversity: str = "distinct",
    c: float | None = None,
    order=None,
    alpha: int = 3,
    rng=None,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
):
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
        recursive (``r_1 < c (r_l + ... + r_m)``). For the last two, groups
        of pairwise distinct labels are formed (of the smallest size that
        meets the variant alone) and then merged with their band neighbours
        until every record passes (:func:`merge_until_diverse`); the whole
        table must meet the variant (checked up front).
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
    if diversity not in DIVERSITY_VARIANTS:
        raise ParameterError(f"diversity must be one of {', '.join(DIVERSITY_VARIANTS)}, got {diversity!r}")
    if diversity == "recursive":
        if c is None:
            raise ParameterError("diversity=recursive needs c (--param c=C): r_1 < c (r_l + ... + r_m)")
        c = _check_c(c)
    elif c is not None:
        raise ParameterError(f"c applies to diversity=recursive only, not {diversity!r}")
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
    report(progress, 0, 2, "CAHD grouping")
    groups = cahd_groups(data.matrix, list(data.labels), size, order=order, alpha=alpha)
    if diversity != "distinct":
        groups, _rounds = merge_until_diverse(data, groups, l, diversity, c, progress=progress)
    report(progress, 1, 2, "publishing by bit voting")
    params = {"k": int(k), "l": l, "alpha": alpha, "group_size": size}
    if diversity != "distinct":
        params["diversity"] = diversity
        if c is not None:
            params["c"] = c
    release = groups_release(data, groups, unsafe_secret_seed=unsafe_secret_seed, algorithm="cahd", params=params)
    report(progress, 2, 2, "done")
    return release


_PARAMS = (
    Param("l", int, None, "l-diversity: groups of l distinct sensitive labels (default: -k)"),
    Param("alpha", int, 3, "CAHD candidate list: alpha * l records on each side of the band"),
    Param("diversity", str, "distinct", "l-diversity variant: distinct, entropy (label entropy of every "
          "record's viable rows >= log l) or recursive (r_1 < c (r_l + ...))", choices=DIVERSITY_VARIANTS),
    Param("c", float, None, "recursive (c,l)-diversity constant (diversity=recursive)"),
)


def _run(data, opts: RunOptions) -> NonreciprocalRelease:
    values = opts.values(_PARAMS)
    l = opts.k if values["l"] is None else values["l"]  # noqa: E741
    if l is None:
        raise ParameterError("algorithm 'cahd' needs --param l=L (or -k L)")
    return anonymize_cahd(
        data, l=l, k=opts.k, alpha=values["alpha"], diversity=values["diversity"], c=values["c"],
        unsafe_secret_seed=opts.unsafe_secret_seed,
        progress=opts.progress,
    )


register(
    AlgorithmSpec(
        name="cahd",
        summary="CAHD l-diverse groups (Ghinita et al.) published by nonreciprocal bit voting (--param l=L; "
        "-k K > L: groups of K distinct labels)",
        run=_run,
        privacy_model="ldiversity",
        params=_PARAMS,
        audit_params=("l", "diversity", "c"),
        options=("k",),
    )
)
