"""Nonreciprocal recoding: k-anonymity and l-diversity by k-regular generalization graphs.

Pipeline (Xue et al., Sec. 4): (1) a cyclic record order (Gray or Gray-TSP);
(2) a generalization graph -- the k-regular ring over the order for
k-anonymity, or for l-diversity an l-regular graph whose every record's
``l`` published records carry distinct labels (by default a min-cost such
graph by min-cost flow; or the paper's greedy label-aware walks on the
complete graph); (3) ``k`` (or ``l``) disjoint assignments
extracted from it at random by closed walks (or the WMC backtracking
baseline); (4) one assignment chosen uniformly at random; (5) publication by
bit voting (:class:`~graphanon.release.NonreciprocalRelease`), rows shuffled.

Privacy note: the chosen assignment is the secret. ``rng`` (the seed) fixes
the *structure* only -- order, graph, the ``k`` assignments -- which the
privacy model lets an adversary know. The chosen assignment and the row
shuffle come from operating-system entropy
(:func:`graphanon._random.secret_generator`), so knowing the seed does not
reveal them; ``unsafe_secret_seed`` fixes them for tests only, and no release
file records either number.

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 4.1-4.4.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from graphanon._random import check_random_state, secret_generator
from graphanon.algorithms.registry import AlgorithmSpec, RunOptions, register
from graphanon.errors import ParameterError
from graphanon.graphs.assignment import (
    check_diversity_feasible,
    extract_assignments,
    greedy_diverse_assignments,
)
from graphanon.graphs.generalization import GeneralizationGraph, check_order
from graphanon.privacy.km import check_k
from graphanon.release import publish
from graphanon.release.nonreciprocal import NonreciprocalRelease

__all__ = ["anonymize_nonreciprocal", "members_matrix", "record_order"]

Progress = Callable[[int, int, str], None]


def record_order(
    data,
    order="gray-tsp",
    *,
    min_segment: int = 300,
    max_segment: int = 350,
    tsp_time_limit: float = 0.2,
    seed: int = 0,
    progress: Progress | None = None,
) -> np.ndarray:
    """The cyclic record order: ``"gray-tsp"``, ``"gray"``, ``"identity"`` or a permutation."""
    n = data.n_records
    if isinstance(order, str):
        if order == "identity":
            return np.arange(n, dtype=np.int64)
        if order in ("gray", "gray-tsp"):
            from graphanon.graphs import order as order_mod

            X = data.matrix
            if order == "gray":
                return check_order(order_mod.gray_order(X), n)
            return check_order(
                order_mod.gray_tsp_order(
                    X,
                    min_segment=min_segment,
                    max_segment=max_segment,
                    time_limit=tsp_time_limit,
                    seed=seed,
                    progress=None if progress is None else (lambda d, t: progress(d, t, "Gray-TSP segments")),
                ),
                n,
            )
        raise ParameterError(f"order must be 'gray-tsp', 'gray', 'identity' or a permutation, got {order!r}")
    return check_order(order, n)


def members_matrix(assignments: np.ndarray, n: int) -> sp.csr_array:
    """``M[j, i] = 1`` when some assignment matches record ``i`` to published record ``j``."""
    A = np.asarray(assignments, dtype=np.int64)
    rows = A.ravel()
    cols = np.tile(np.arange(n), A.shape[0])
    return sp.csr_array((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n))


def anonymize_nonreciprocal(
    data,
    *,
    k: int | None = None,
    l: int | None = None,  # noqa: E741
    order="gray-tsp",
    min_segment: int = 300,
    max_segment: int = 350,
    tsp_time_limit: float = 0.2,
    extraction: str = "closed-walk",
    l_method: str = "flow",
    rng=None,
    progress: Progress | None = None,
    return_details: bool = False,
    unsafe_secret_seed: int | None = None,
):
    """Publish ``data`` by nonreciprocal recoding (k-anonymity, or l-diversity with ``l``).

    Parameters
    ----------
    data : TransactionData
        Records; ``data.labels`` are needed for ``l``.
    k : int, optional
        k-anonymity level: every record matches at least ``k`` published
        records, each of which is equally likely to be its true one. Required
        unless ``l`` is given (then it defaults to ``l`` and must not exceed it).
    l : int, optional
        l-diversity level: every record's matches carry ``l`` distinct labels.
        Checked up front: fewer than ``l`` labels, or a label on more than
        ``n / l`` records, raises :class:`ParameterError`.
    order : {"gray-tsp", "gray", "identity"} or permutation
        Cyclic record order (:mod:`graphanon.graphs.order`).
    min_segment, max_segment, tsp_time_limit :
        Gray-TSP parameters: segment length bounds (default 300 and 350) and
        OR-Tools search time per segment (default 0.2 s, which keeps a full
        run of chess under 3 s and of bms1 under a minute on two cores;
        1.0 s shortens the order by another 3-6%, see docs/order.md).
    extraction : {"closed-walk", "backtracking"}
        Assignment extraction (:func:`~graphanon.graphs.assignment.extract_assignments`).
    l_method : {"flow", "greedy-walk"}
        With ``l``: how the l-diverse generalization graph is built
        (:func:`~graphanon.graphs.assignment.greedy_diverse_assignments`).
        ``"flow"`` (default): a minimum-cost l-diverse graph over pairs near
        in the order, by min-cost flow; always succeeds when ``l`` passes the
        feasibility check. ``"greedy-walk"``: the paper's Algorithm 2
        (``greedyPick``), round by round; can lose much utility in late
        rounds, or fail, under the label constraint.
    rng : numpy Generator or int seed, optional
        Structure randomness: the Gray-TSP search, the l-diverse graph and
        the extraction of the ``k`` assignments. The seed fixes the structure
        only; the secret (which assignment is published, the row shuffle)
        always comes from operating-system entropy.
    progress : callable(done, total, message), optional
    return_details : bool
        Also return a dict with ``order``, ``graph``, ``assignments`` and
        ``chosen`` (secret; for tests, drawings and experiments only).
    unsafe_secret_seed : int, optional
        Tests only: fixes the chosen assignment and the row shuffle. Anyone
        who knows or guesses it undoes the release's protection. Never
        recorded in the release.

    Returns
    -------
    NonreciprocalRelease
        Published rows in a secret random order, named by pseudonyms; the
        private ``release.link.row_of_record[i]`` is the row the chosen
        assignment matched to record ``i``. With ``k`` only, that row carries
        record ``i``'s label (labels travel with the chosen assignment). With
        ``l``, each published record carries the label of the record whose
        own postimage it is (Xue et al., Fig. 4b and greedyPick criterion
        iii), which is what makes every record's ``l`` matches carry ``l``
        distinct labels.

    Complexity
    ----------
    Gray order O(n d log n); Gray-TSP adds ``n / min_segment`` OR-Tools runs
    of at most ``tsp_time_limit`` seconds; ring + extraction O(n k) walk
    steps in practice (quadratic worst case); bit voting O(n k avg|r|). With
    ``l`` and ``l_method="flow"`` add three min-cost flows on O(2 window n + l n) arcs (window 128)
    (:func:`~graphanon.graphs.assignment.greedy_diverse_assignments`).

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> rel = anonymize_nonreciprocal(data, k=3, order=[1, 3, 2, 0, 4, 5], rng=0)
    >>> row = int(rel.link.row_of_record[data.record_ids.index("r5")])   # private link
    >>> rel.bitmap_strings(row)[0] in {"1110", "1101", "0111", "1100"}
    True

    References
    ----------
    Xue et al., KDD 2012: Sec. 4.1 (Gray-TSP order, ring graph), 4.2 (closed
    walk), 4.4 (greedy l-diverse extraction), Sec. 3 / Fig. 4 (publication).
    """
    n = data.n_records
    if n == 0:
        raise ParameterError("cannot anonymize an empty dataset")
    if extraction not in ("closed-walk", "backtracking"):
        raise ParameterError(f"extraction must be 'closed-walk' or 'backtracking', got {extraction!r}")
    if l_method not in ("flow", "greedy-walk"):
        raise ParameterError(f"l_method must be 'flow' or 'greedy-walk', got {l_method!r}")
    if l is not None:
        check_diversity_feasible(data.labels, l)
        l = check_k(l, n, "l")  # noqa: E741
        if k is None:
            k = l
        k = check_k(k, n)
        if k > l:
            raise ParameterError(f"with l={l} the generalization graph is l-regular, so k={k} cannot exceed l")
    else:
        if k is None:
            raise ParameterError("give k (k-anonymity) or l (l-diversity)")
        k = check_k(k, n)
    rng = check_random_state(rng)
    tsp_seed = int(rng.integers(2**31 - 1))
    perm = record_order(
        data,
        order,
        min_segment=min_segment,
        max_segment=max_segment,
        tsp_time_limit=tsp_time_limit,
        seed=tsp_seed,
        progress=progress,
    )
    params = {
        "k": k,
        "l": l,
        "order": order if isinstance(order, str) else "given",
        "extraction": extraction,
        "l_method": l_method if l is not None else None,
        "min_segment": min_segment,
        "max_segment": max_segment,
    }
    if l is None:
        graph = GeneralizationGraph.ring(perm, k, data.record_ids)
        greedy = None
    else:
        greedy = greedy_diverse_assignments(
            data.matrix, data.labels, l, perm, rng=rng, method=l_method, progress=progress
        )
        graph = GeneralizationGraph.from_assignments(greedy, data.record_ids)
    assignments = extract_assignments(graph, method=extraction, rng=rng, progress=progress)
    secret = secret_generator(unsafe_secret_seed)
    chosen = int(secret.integers(assignments.shape[0]))
    sigma = assignments[chosen]
    members = members_matrix(assignments, n)
    labels = None
    if l is not None:
        labels = [data.labels[int(j)] for j in sigma]
    aligned = NonreciprocalRelease.from_preimages(data, members, sigma, labels=labels, algorithm="nr", params=params)
    release = publish(data, aligned, secret=secret)
    if return_details:
        return release, {
            "order": perm,
            "graph": graph,
            "assignments": assignments,
            "greedy_assignments": greedy,
            "chosen": chosen,
        }
    return release


def _run(data, opts: RunOptions) -> NonreciprocalRelease:
    known = {"l", "l_method", "order", "extraction", "min_segment", "max_segment", "tsp_time_limit"}
    opts.unknown_params(known)
    return anonymize_nonreciprocal(
        data,
        k=opts.k,
        l=opts.param("l", None, int),
        order=opts.param("order", "gray-tsp"),
        extraction=opts.param("extraction", "closed-walk"),
        l_method=opts.param("l_method", "flow"),
        min_segment=opts.param("min_segment", 300, int),
        max_segment=opts.param("max_segment", 350, int),
        tsp_time_limit=opts.param("tsp_time_limit", 0.2, float),
        rng=opts.seed,
        progress=opts.progress,
        unsafe_secret_seed=opts.unsafe_secret_seed,
    )


register(
    AlgorithmSpec(
        name="nr",
        summary="nonreciprocal recoding: k-regular ring over the Gray-TSP order, closed-walk assignments, "
        "bit voting (--param l=L for l-diversity, l_method=flow|greedy-walk; order=gray-tsp|gray|identity; "
        "extraction=closed-walk|backtracking)",
        run=_run,
        privacy_model="nonreciprocal",
        params=("l", "l_method", "order", "extraction", "min_segment", "max_segment", "tsp_time_limit"),
    )
)
