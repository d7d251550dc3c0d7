"""Nonreciprocal recoding: k-anonymity and l-diversity by k-regular generalization graphs.

Pipeline (Xue et al., Sec. 4): (1) a cyclic record order (Gray or Gray-TSP);
(2) a generalization graph -- the k-regular ring over the order (with
l-diversity by label groups, the default, the labels are published apart
from the rows in groups drawn in secret, :mod:`.random_groups`; with
``grouping="order"`` the groups are formed along the order and the graph is
one ring inside each, :mod:`.label_groups`), or, with the paper's
``l_method="flow"`` / ``"greedy-walk"``, an l-regular graph whose every
record's ``l`` published records carry distinct labels (a min-cost such
graph by min-cost flow, or the paper's greedy label-aware walks on the
complete graph); (3) ``k`` (or ``l``) disjoint assignments
extracted from it at random by closed walks (or the WMC backtracking
baseline); (4) one assignment chosen uniformly at random; (5) publication by
bit voting (:class:`~graphanon.release.NonreciprocalRelease`), rows shuffled.

Privacy note: the chosen assignment is the secret. ``rng`` (the seed) fixes
the *public structure* only -- the record order and the graph built on it,
which the model lets an adversary know and the rows show anyway. The
graph's decomposition into ``k`` disjoint perfect matchings, the choice
among them, the label deal of the groups and the row shuffle come from
operating-system entropy (:func:`graphanon.utils.randomness.secret_generator`):
every edge is the true link with probability exactly ``1/k`` for a seed
holder. ``unsafe_secret_seed`` fixes them for tests only; no release file
records either number.

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 4.1-4.4.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.declaration import REUSES_PRIOR_ROWS, Advice, MethodDeclaration, Required
from graphanon.algorithms.nonreciprocal._declared import NR_PARAMS, TSP_PARAMS, prepare_nr
from graphanon.algorithms.nonreciprocal.gray import gray_order
from graphanon.algorithms.nonreciprocal.label_groups import (
    check_l_params,
    deal_labels,
    group_params,
    grouped_ring,
    ring_groups,
)
from graphanon.algorithms.nonreciprocal.random_groups import random_label_groups
from graphanon.algorithms.nonreciprocal.tsp import TSP_SOLVERS, gray_tsp_order, tsp_budget
from graphanon.algorithms.prior import reuse_priors
from graphanon.errors import ParameterError
from graphanon.graphs.generalization import GeneralizationGraph
from graphanon.release.publish import publish
from graphanon.utils.docs import fill_doc
from graphanon.utils.memory import check_memory
from graphanon.utils.params import (
    COMMON,
    MEANINGS,
    NO_VALIDATION,
    RNG,
    AtLeastOne,
    Interval,
    K,
    NotGreater,
    OnlyWith,
    StrOptions,
    validate_params,
)
from graphanon.utils.progress import ProgressCallback, report
from graphanon.utils.randomness import check_random_state, secret_generator
from graphanon.utils.validation import DIVERSITY_VARIANTS, check_k, check_order

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.release.nonreciprocal import NonreciprocalRelease
    from graphanon.utils.randomness import RandomLike

#: ``l_method`` values: label groups (the default), or the paper's l-diverse graphs (Fig. 4b labelling)
L_METHODS = ("groups", "flow", "greedy-walk")
#: ``grouping`` values of label groups: drawn in secret (the default), or formed along the order
GROUPINGS = ("random", "order")

__all__ = ["GROUPINGS", "L_METHODS", "NonreciprocalTrace", "anonymize_nonreciprocal", "members_matrix", "record_order", "tsp_budget"]

_BYTES_PER_EDGE = 160  # graph, assignments, members matrix and bit-vote edge arrays (measured: chess, k = n)
_BYTES_PER_VOTE = 8  # bit vote's distance rows, per occurrence and assignment (int32 item + bool; 2 x 10^5 records, k = 5)
_BYTES_PER_VOTE_WORD = 16  # bit vote's packed records and base, per record and 64-item word
_ORDER_BYTES_PER_PACKED_BYTE = 16  # Gray order: packed rows, rank bits, words, sort keys (measured: quest 10^6)


@dataclass(frozen=True)
class NonreciprocalTrace:
    """The structure of a nonreciprocal run (``release.trace``; in memory only, never saved).

    Attributes
    ----------
    order : ndarray of int64
        The cyclic record order.
    graph : GeneralizationGraph
        The k-regular (or l-regular) generalization graph.
    assignments : ndarray of int64, shape (k, n)
        The disjoint assignments extracted from ``graph`` with the secret
        generator (private: the seed does not reproduce them). Which one was
        published is not here, only in ``release.link``.
    greedy_assignments : ndarray or None
        With ``l``: the l-diverse assignments the graph was built from.
    """

    order: np.ndarray
    graph: GeneralizationGraph
    assignments: np.ndarray
    greedy_assignments: np.ndarray | None = None


def record_order(
    data,
    order="gray-tsp",
    *,
    min_segment: int = 300,
    max_segment: int = 350,
    tsp_time_limit: float | None = None,
    tsp_step_limit: int | None = None,
    tsp_solver: str = "local-length",
    rng=0,
    n_jobs: int = 1,
    client=None,
    progress: ProgressCallback | None = None,
) -> np.ndarray:
    """The cyclic record order: ``"gray-tsp"``, ``"gray"``, ``"identity"`` or a permutation.

    Parameters
    ----------
    data : TransactionData
    order : {"gray-tsp", "gray", "identity"} or permutation
    min_segment, max_segment : int
        Gray-TSP segment lengths.
    tsp_time_limit : float, optional
        Gray-TSP: wall-clock seconds of search per segment, only when asked
        for: a clock makes the order depend on machine load.
    tsp_step_limit : int, optional
        Gray-TSP: solver steps per segment (a count of work). Without
        ``tsp_time_limit`` it is the whole budget (default
        :func:`~graphanon.algorithms.nonreciprocal.default_step_limit`:
        40,000 OR-Tools steps, about 0.15 s per segment, or 1,500 kicks of the
        local solver, about 10 ms): the same ``rng`` seed then gives the same
        order on any machine and load.
    tsp_solver : {"local-length", "ortools", "local"}, default "local-length"
        Gray-TSP: the segment solver (:func:`gray_tsp_details`).
    rng : None, int or numpy.random.Generator, default 0
        Gray-TSP node numbering (:func:`gray_tsp_details`).
    n_jobs : int
        Gray-TSP: local worker processes solving segments.
    client : dask.distributed.Client, optional
        Gray-TSP: solve the segments on this client's workers. Neither
        ``n_jobs`` nor ``client`` changes an order searched on a step budget.
    progress : callable(done, total, message), optional

    Returns
    -------
    ndarray of int64
        A permutation of the records.

    Raises
    ------
    ParameterError
        On an unknown order or a bad permutation.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> record_order(data, "gray").tolist()
    [1, 3, 0, 2, 4, 5]
    """
    n = data.n_records
    if tsp_solver not in TSP_SOLVERS:
        raise ParameterError(f"tsp_solver must be one of {TSP_SOLVERS}, got {tsp_solver!r}")
    time_limit, step_limit = tsp_budget(tsp_time_limit, tsp_step_limit, tsp_solver)
    if isinstance(order, str):
        if order == "identity":
            return np.arange(n, dtype=np.int64)
        if order in ("gray", "gray-tsp"):
            X = data.matrix
            check_memory(
                _ORDER_BYTES_PER_PACKED_BYTE * n * -(-X.shape[1] // 8),
                what=f"the {order} order of {n} records over {X.shape[1]} items (packed bitmaps)",
                advice="drop unused items, or pass order='identity' or your own permutation",
            )
            if order == "gray":
                return check_order(gray_order(X), n)
            segments = {"min_segment": min_segment, "max_segment": max_segment, "rng": rng}
            budget = {"time_limit": time_limit, "step_limit": step_limit, "solver": tsp_solver}
            workers = {"n_jobs": n_jobs, "client": client, "progress": progress}
            return check_order(gray_tsp_order(X, **segments, **budget, **workers), n)
        raise ParameterError(f"order must be 'gray-tsp', 'gray', 'identity' or a permutation, got {order!r}")
    return check_order(order, n)


def members_matrix(assignments: np.ndarray, n: int) -> sp.csr_array:
    """``M[j, i] = 1`` when some assignment matches record ``i`` to published record ``j``."""
    A = np.asarray(assignments, dtype=np.int64)
    rows = A.ravel()
    cols = np.tile(np.arange(n), A.shape[0])
    return sp.csr_array((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n))


@validate_params(
    {"k": [*K, None], "l": [*K, None], "order": [StrOptions(("gray-tsp", "gray", "identity")), "array-like"],
     "min_segment": [Interval(Integral, 1, None)], "max_segment": [Interval(Integral, 1, None)],
     "tsp_time_limit": [Interval(Real, 0, None, closed="neither"), None],
     "tsp_step_limit": [Interval(Integral, 1, None), None], "tsp_solver": [StrOptions(TSP_SOLVERS)],
     "extraction": [StrOptions(("closed-walk", "backtracking"))],
     "l_method": [StrOptions(L_METHODS)], "grouping": [StrOptions(GROUPINGS)], "diversity": [StrOptions(DIVERSITY_VARIANTS)],
     "c": [Interval(Real, 0, None, closed="neither"), None],
     "rng": RNG, **COMMON, "client": NO_VALIDATION, "priors": NO_VALIDATION},
    meanings={**MEANINGS, "l": "distinct sensitive labels among each record's candidates",
              "c": "the recursive (c,l)-diversity constant"},
    rules=[AtLeastOne(("k", "l"), "k: k-anonymity, l: l-diversity"), NotGreater("min_segment", "max_segment"),
           OnlyWith("c", "diversity", "recursive")],
)
@fill_doc(secret='the extracted assignments, the chosen one and the row shuffle')
def anonymize_nonreciprocal(
    data: TransactionData,
    *,
    k: int | None = None,
    l: int | None = None,  # noqa: E741
    order="gray-tsp",
    min_segment: int = 300,
    max_segment: int = 350,
    tsp_time_limit: float | None = None,
    tsp_step_limit: int | None = None,
    tsp_solver: str = "local-length",
    extraction: str = "closed-walk",
    l_method: str = "groups",
    grouping: str = "random",
    diversity: str = "distinct",
    c: float | None = None,
    rng: RandomLike = None,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    client=None,
    priors=None,
) -> NonreciprocalRelease:
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
        l-diversity level. With ``l_method="groups"`` (default) the labels are
        published in label groups of ``p`` pairwise distinct labels (``p = l``,
        or ``l - 1 + floor(1/c) + 1`` for recursive (c, l)): a label on more
        than ``n / p`` records raises :class:`ParameterError`; ``k`` (default
        ``l``) is free. With the paper's ``"flow"`` / ``"greedy-walk"``
        every record's matches carry ``l`` distinct labels and ``k`` may not
        exceed ``l``.
    order : {"gray-tsp", "gray", "identity"} or permutation
        Cyclic record order (:mod:`graphanon.algorithms.nonreciprocal.tsp`).
    min_segment, max_segment, tsp_time_limit, tsp_step_limit, tsp_solver :
        Gray-TSP parameters: segment length bounds (default 300 and 350),
        the search budget per segment and the segment solver (``"ortools"``,
        OR-Tools routing, default; ``"local"``, iterated 2-opt / Or-opt,
        about ten times faster with shorter orders, a lower ER and a higher
        QE on Quest data; ``"local-length"``, the same search on Hamming
        distance plus length difference, a lower ER and a lower QE than the
        default on Quest data; :func:`gray_tsp_details`). By default, seeded or
        not, the budget is ``tsp_step_limit`` solver steps (default
        :func:`~graphanon.algorithms.nonreciprocal.default_step_limit`:
        40,000 OR-Tools steps, about as long and as good as 0.2 s of search,
        or 1,500 kicks of the local solver; docs/order.md), so the published
        parameters do not show whether a run was seeded. A wall-clock budget
        ``tsp_time_limit`` (seconds) is used only when given: an explicit choice,
        whatever ``rng`` is, that makes the order depend on machine load
        (:func:`tsp_budget`; the command line refuses it with ``--seed``).
    extraction : {"closed-walk", "backtracking"}
        Assignment extraction (:func:`~graphanon.algorithms.nonreciprocal.extract_assignments`).
    l_method : {"groups", "flow", "greedy-walk"}
        With ``l``: how the labels are published.
        ``"groups"`` (default): the records are partitioned into label
        groups of ``p`` or more pairwise distinct labels (see ``grouping``);
        the labels are published apart from the rows, Anatomy-style, dealt
        to each group's rows by a secret uniform shuffle
        (``release.label_groups``). An adversary who picks any row for a
        target, by any function of the published rows, reads its label with
        probability at most ``1/l`` (``docs/attacks.md``, (j)). ``"flow"`` and ``"greedy-walk"``: the
        paper's construction (Xue et al., Fig. 4b), an l-regular l-diverse
        generalization graph (min-cost flow, or Algorithm 2 ``greedyPick``;
        :func:`~graphanon.algorithms.nonreciprocal.greedy_diverse_assignments`)
        whose rows carry the label of the record whose own postimage they
        are: l-diverse under uniform possible worlds only, the row nearest a
        record names its label more often than ``1/l`` (caveat ``l-ranking``).
    grouping : {"random", "order"}, default "random"
        Label groups only. ``"random"``: Anatomy's secret selection
        (:func:`~graphanon.algorithms.nonreciprocal.random_groups.random_label_groups`),
        the graph the k-anonymous ring over the whole order (the rows are
        those of ``k`` alone with the same ``rng``); the grouping's
        likelihood is the same for every labelling giving each group its
        multiset. ``"order"``: groups formed along the order, merged while
        below ``k`` records, one ring per group (more label-to-content
        association; which records a group skipped tells their labels to an
        adversary holding every record's items: warning ``l-order``).
    diversity : {"distinct", "entropy", "recursive"}, default "distinct"
        The l-diversity variant of the label groups (``l_method="groups"``
        only): every group, and so every mixture of groups a record's
        candidates read, meets it (Machanavajjhala et al., TKDD 2007,
        Sec. 4.1).
    c : float, optional
        The recursive (c, l) constant (``diversity="recursive"`` only).
    client : dask.distributed.Client, optional
        Solve the Gray-TSP segments on this client's workers
        (:mod:`graphanon.distributed.tasks`). The segments are independent
        and seeded one by one, so a seeded release has the same structure
        (order, graph, assignments) with or without a client. The other
        steps run here: the extraction rounds depend on each other, and a
        walk crosses segment borders.
    rng : numpy Generator or int seed, optional
        Structure randomness: the Gray-TSP search and the l-diverse graph.
        Given, the public structure (order, generalization graph, hence the
        published rows as a multiset) is the same on every run and machine.
        The seed fixes nothing secret: the decomposition of the graph into
        ``k`` disjoint assignments, the choice among them and the row
        shuffle always come from operating-system entropy (see the module's
        privacy note).
    progress : callable(done, total, message), optional
    %(unsafe_secret_seed)s

    priors : release, Prior, (release, link), or a sequence of them, optional
        Earlier releases of ``data`` (:mod:`graphanon.algorithms.prior`):
        the new release reuses the row each prior gave every record (read
        from the prior's private link), so together they reveal no more than
        the prior; ``k``/``l`` above the prior's raise
        :class:`~graphanon.errors.InfeasibleError`. The other options are
        then unused. A prior with label groups is refused
        (:class:`ParameterError`): its groups are not reused yet.

    Returns
    -------
    NonreciprocalRelease
        Published rows in a secret random order, named by pseudonyms; the
        private ``release.link.row_of_record[i]`` is the row the chosen
        assignment matched to record ``i``. With ``k`` only, that row carries
        record ``i``'s label (labels travel with the chosen assignment). With
        ``l`` and label groups, ``release.label_groups[j]`` is row ``j``'s
        group and row ``j``'s label a secret uniform draw from its group's
        labels (params ``label_group_size``, and ``diversity``, ``c``). With
        ``l_method="flow"`` or ``"greedy-walk"``, each published record
        carries the label of the record whose own postimage it is (Xue et
        al., Fig. 4b and greedyPick criterion iii).

        ``release.trace`` (in memory only, never saved) is a
        :class:`NonreciprocalTrace`: the order and the graph (public
        structure) and the ``k`` assignments drawn from the secret generator
        (private: a seed does not reproduce them). Which assignment was
        published is only in ``release.link``.

    See Also
    --------
    graphanon.privacy.NonreciprocalKAnonymity : The audit of its releases.
    graphanon.privacy.LDiversity : The audit with ``l``.
    graphanon.algorithms.anonymize_cahd : L-diverse groups published by the same bit vote.

    Notes
    -----
    Complexity: gray order O(n d log n); Gray-TSP adds ``n / min_segment`` solver runs
    of ``tsp_step_limit`` steps (or at most ``tsp_time_limit`` seconds); ring + extraction O(n k) walk
    steps in practice (quadratic worst case); bit voting O(n k avg|r|). With
    ``l`` and label groups add O(n log L) for ``L`` labels (:func:`~graphanon.algorithms.nonreciprocal.label_groups.label_groups`;
    the rings per group O(n log n + n k)). With
    ``l_method="flow"`` add three min-cost flows on O(2 window n + l n) arcs (window 128)
    (:func:`~graphanon.algorithms.nonreciprocal.greedy_diverse_assignments`).
    Memory O(n k + k nnz + n d / 64): the graph, the ``k`` assignments, the members
    matrix (about 160 bytes per edge), the bit vote's packed records and
    base (16 bytes per record and 64-item word) and its distance rows (about
    8 bytes per occurrence and assignment); the Gray order about 16
    bytes per packed bitmap byte. Checked up front against the
    memory budget (:mod:`graphanon.utils.memory`): a ``k`` near ``n`` on large
    data stops with a :class:`~graphanon.errors.MemoryBudgetError` naming ``k``.

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
    Xiao, Tao. Anatomy. VLDB 2006, Sec. 3 (labels in groups apart from the
    rows). Ghinita, Tao, Kalnis. ICDE 2008, Sec. IV (CAHD's histogram check).
    """
    if priors is not None:
        return reuse_priors(data, priors, k=k if k is not None else l, l=l, unsafe_secret_seed=unsafe_secret_seed)
    n = data.n_records
    if n == 0:
        raise ParameterError("cannot anonymize an empty dataset")
    p = None
    if l is not None:
        p = check_l_params(data.labels, n, k=k, l=l, l_method=l_method, diversity=diversity, c=c)
        l = check_k(l, n, "l")  # noqa: E741
        k = l if k is None else k
    k = check_k(k, n)
    check_memory(
        _BYTES_PER_EDGE * n * k + _BYTES_PER_VOTE * k * data.matrix.nnz
        + _BYTES_PER_VOTE_WORD * n * -(-data.matrix.shape[1] // 64),
        what=f"nonreciprocal recoding with k={k} on {n} records ({n * k} generalization-graph edges)",
        advice="lower k (CLI: -k): the graph, its k assignments and the bit vote all hold n x k entries",
    )
    rng = check_random_state(rng)
    tsp_seed = int(rng.integers(2**31 - 1))
    perm = record_order(
        data, order, min_segment=min_segment, max_segment=max_segment, tsp_time_limit=tsp_time_limit,
        tsp_step_limit=tsp_step_limit, tsp_solver=tsp_solver, rng=tsp_seed, client=client, progress=progress
    )
    params: dict[str, object] = {
        "k": k, "l": l, "order": order if isinstance(order, str) else "given", "extraction": extraction,
        "l_method": l_method if l is not None else None, "min_segment": min_segment, "max_segment": max_segment,
    }
    if p is not None:  # label groups (l with l_method="groups")
        params.update(group_params(p, diversity, c), grouping=grouping)
    if isinstance(order, str) and order == "gray-tsp":  # the budget used: the same fields, seeded or not
        params["tsp_time_limit"], params["tsp_step_limit"] = tsp_budget(
            tsp_time_limit, tsp_step_limit, tsp_solver
        )
        params["tsp_solver"] = tsp_solver  # always recorded (releases made before it was recorded used "ortools")
    record_groups = None
    # The graph is public structure; its decomposition into k disjoint matchings is secret: drawn
    # from OS entropy, so every edge is the true link with probability exactly 1/k for a seed holder.
    secret = secret_generator(unsafe_secret_seed)
    if p is not None and grouping == "random":
        # groups drawn in secret from the label counts (Anatomy), the k-anonymous ring (docs/attacks.md, (j))
        report(progress, 0, 1, f"label groups of {p} distinct labels")
        record_groups = random_label_groups(data.labels, p, secret)
        report(progress, 1, 1, f"label groups of {p} distinct labels")
        graph = GeneralizationGraph.ring(perm, k, data.record_ids)
        greedy = None
    elif p is not None:
        # groups along the order, then one ring per group, so a record's graph candidates are its group's rows
        report(progress, 0, 1, f"label groups of {p} distinct labels")
        record_groups = ring_groups(data.labels, p, k, perm)
        report(progress, 1, 1, f"label groups of {p} distinct labels")
        graph = GeneralizationGraph(grouped_ring(perm, record_groups, k), data.record_ids)
        greedy = None
    elif l is None:
        graph = GeneralizationGraph.ring(perm, k, data.record_ids)
        greedy = None
    else:
        # the paper's l-diverse graphs (their numba kernels, the min-cost flow) load only for them
        from graphanon.algorithms.nonreciprocal.diverse import greedy_diverse_assignments

        greedy = greedy_diverse_assignments(
            data.matrix, data.labels, l, perm, rng=rng, method=l_method, progress=progress
        )
        graph = GeneralizationGraph.from_assignments(greedy, data.record_ids)
    # numba (the extraction kernels, bit voting): loaded by the run, not by reading the declaration
    from graphanon.algorithms.nonreciprocal.extraction import extract_assignments
    from graphanon.release.nonreciprocal import NonreciprocalRelease

    assignments = extract_assignments(graph, method=extraction, rng=secret, progress=progress)
    chosen = int(secret.integers(assignments.shape[0]))
    sigma = assignments[chosen]
    members = members_matrix(assignments, n)
    labels = None
    groups = None
    if l is not None:
        assert data.labels is not None  # check_diversity_feasible refused unlabelled data
        if record_groups is not None:  # label groups: aligned row i is record i's, in i's group
            groups = record_groups
            labels = deal_labels(data.labels, groups, secret)
        else:
            labels = [data.labels[int(j)] for j in sigma]
    aligned = NonreciprocalRelease.from_preimages(data, members, sigma, labels=labels, label_groups=groups,
                                                  algorithm="nr", params=params)
    report(progress, 0, 1, "publishing")
    release = publish(data, aligned, secret=secret)
    report(progress, 1, 1, "publishing")
    release.trace = NonreciprocalTrace(order=perm, graph=graph, assignments=assignments, greedy_assignments=greedy)
    return release


NR = MethodDeclaration(
    name="nr", family="nonreciprocal", function=anonymize_nonreciprocal, privacy_model="nonreciprocal",
    summary="nonreciprocal recoding: k-regular ring over the Gray-TSP order, closed-walk assignments, "
    "bit voting (--param l=L for l-diversity: labels in groups, grouping=random|order, diversity=distinct|entropy|recursive, c=C; "
    "l_method=flow|greedy-walk: the paper's; order=gray-tsp|gray|identity; "
    "extraction=closed-walk|backtracking)",
    params=NR_PARAMS,
    published=frozenset({"k", "l", "l_method", "label_group_size", "grouping", "diversity", "c", "order", "extraction",
                         *(p.name for p in TSP_PARAMS)}),
    priors=REUSES_PRIOR_ROWS, label_params=("l",), secret_structure_with_labels=True,
    required=(Required(("k", "l"), "-k 2", "k-anonymity, or l-diversity with --param l=L"),), options=("k", "seed", "scheduler"), prepare=prepare_nr,
    # l_method=flow|greedy-walk puts each label on its record's postimage row: the content-ranking adversary
    advice=Advice(label_ranking="publish labels in groups (the default --param l_method=groups) or use -a cahd"),
)
