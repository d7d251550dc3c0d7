"""HgHs and mHgHs: k^m-anonymity by a taxonomy cut plus a suppression scenario.

Heuristic generalization with heuristic suppression (Liu & Wang, PAKDD 2010).
An anonymization is a pair (Cut, SS): the data is recoded by a taxonomy cut
and the cut nodes in the suppression scenario SS are removed from every
record. Its cost with LM, weighted by original occurrences, is

``cost(Cut, SS) = sum_{x in Cut} O(x) IL_G(x) + sum_{x in SS} O(x) IL_S(x)``

with ``IL_G(x) = (leaves(x) - 1)/(leaves(root) - 1)`` and ``IL_S = 1 - IL_G``.

* Outer loop: a top-down greedy walk of the cut lattice from {root}: every
  child cut (one node replaced by its children) is evaluated with its own
  suppression scenario; the walk moves to the cheapest child while that
  lowers the cost.
* Inner loop: the greedy descent of the suppression scenario enumeration tree:
  cut nodes in descending ``O * IL_S`` (ties: taxonomy preorder); a node is
  kept unless it completes a minimal threat with the nodes kept before it.
* The minimal threats of *all* cuts are mined once, on the records x nodes
  extended matrix (see :mod:`graphanon.algorithms.hierarchy._index`); for k^2
  (m=2, mHgHs round 2) the walk mines only the threats within its near set
  as it goes (:class:`~graphanon.algorithms.hierarchy._walk.MinedNearThreats`).
* mHgHs runs rounds i = 1..m, round i enforcing k^i on the taxonomy reduced
  below the previous round's cut, so each round's threat set stays small.

References
----------
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Sec. 3 (HgHs), Sec. 4.1 (minimal threats of all
cuts), Sec. 4.2 (mHgHs).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from graphanon.algorithms.declaration import COARSENED_TO_PRIORS, Advice, MethodDeclaration
from graphanon.algorithms.hierarchy._declared import GLOBAL_COSTS, PUBLIC_TAXONOMY
from graphanon.algorithms.hierarchy._index import HierarchyIndex, evaluate_cut
from graphanon.algorithms.hierarchy._search import HierarchySearch, SearchRound
from graphanon.algorithms.hierarchy._walk import walk_round
from graphanon.algorithms.hierarchy.cut import (
    cover_cut,
    cut_recoding,
    public_taxonomy_recoding,
    recode_to_priors,
)
from graphanon.counting.support import generalize_matrix
from graphanon.errors import ParameterError
from graphanon.metrics.loss import ncp
from graphanon.release import GlobalRecoding
from graphanon.release.publish import publish
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.docs import fill_doc
from graphanon.utils.params import COMMON, MEANINGS, NO_VALIDATION, K, M, validate_params
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.validation import check_k

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = [
    "HierarchySearch",
    "SearchRound",
    "anonymize_hghs",
    "anonymize_mhghs",
    "best_suppression",
]


def _prepare(data, taxonomy, k, m):
    check_k(k, data.n_records)
    index = HierarchyIndex(data, taxonomy)
    return index, m


def _public_release(data, index, search: HierarchySearch, algorithm: str, params: dict,
                    unsafe_secret_seed: int | None, priors) -> GlobalRecoding:  # fmt: skip
    """The search's cut with its suppressed nodes generalized instead (:func:`cover_cut`), every leaf named."""
    if priors is not None:
        raise ParameterError("public_taxonomy=True does not combine with priors: publish the update with the same "
                             "public_taxonomy setting as a release of its own, or leave public_taxonomy out")  # fmt: skip
    groups = cover_cut(data, index.taxonomy, search.cut, search.suppressed, k=params["k"], m=params["m"])
    # only k and m: the search's costs, rounds and suppression counts describe the cut before its
    # suppressed nodes were generalized (they would say where those were), and an NCP counts the codes
    # of the data in each published item (``graphanon evaluate`` computes it from the data)
    rel = public_taxonomy_recoding(data, index.taxonomy, groups, algorithm=algorithm, params=dict(params))
    rel.trace = replace(rel.trace, search=search)
    return publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)


def _release(
    data, index, search: HierarchySearch, algorithm: str, params: dict, unsafe_secret_seed: int | None, priors=None,
    public_taxonomy: bool = False,
) -> GlobalRecoding:
    if public_taxonomy:
        return _public_release(data, index, search, algorithm, params, unsafe_secret_seed, priors)
    total = index.total_occurrences
    rel = cut_recoding(
        data,
        index.taxonomy,
        search.cut,
        search.suppressed,
        algorithm=algorithm,
        params={
            **params,
            "cost": search.cost,
            "cost_generalization": search.cost_generalization,
            "cost_suppression": search.cost_suppression,
            "ncp_taxonomy": search.cost / total if total else 0.0,
            "rounds": [
                {
                    "m": r.m,
                    "cut_size": len(r.cut),
                    "n_suppressed": len(r.suppressed),
                    "cost": r.cost,
                    "threats": r.n_threats,
                }
                for r in search.rounds
            ],
            # never the walk (expanded nodes in order, nor its length): replayed on the public
            # taxonomy it rebuilds the full cut, suppressed nodes included; it stays in
            # release.trace.search (in memory only)
        },
    )
    rel.params["ncp"] = ncp(data, rel)
    rel.trace = replace(rel.trace, search=search)
    if priors is not None:
        rel = recode_to_priors(data, rel, priors, taxonomy=index.taxonomy, k=params["k"], m=params["m"])
    return publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)


@validate_params({"k": K, "m": M, "public_taxonomy": ["boolean"], **COMMON, "priors": NO_VALIDATION,
                  "taxonomy": [Taxonomy]}, meanings=MEANINGS)
@fill_doc(secret='the row shuffle')
def anonymize_hghs(
    data: TransactionData,
    *,
    taxonomy: Taxonomy,
    k: int,
    m: int | None = None,
    public_taxonomy: bool = False,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    priors=None,
) -> GlobalRecoding:
    """k^m-anonymize ``data`` by HgHs: greedy cut search with greedy suppression.

    Parameters
    ----------
    data : TransactionData
        Items must be leaves of ``taxonomy``.
    taxonomy : Taxonomy
        The item hierarchy.
    k : int
        Every published itemset of at most ``m`` items has support 0 or >= k.
    m : int or None
        Attacker knowledge; None is k^infinity (any number of items).
    progress : callable(done, total, message), optional
        Called after each move of the cut search.
    %(unsafe_secret_seed)s

    priors : release, Prior, or a sequence of them, optional
        Earlier global recodings of ``data``: the cut is raised to a function
        of the priors' common refinement
        (:func:`~graphanon.algorithms.prior.coarsened_cut`), so together
        they reveal no more than the priors; a refinement that is not
        k^m-anonymous raises :class:`~graphanon.errors.InfeasibleError`.
    public_taxonomy : bool
        The taxonomy is public (a classification such as ICD-9): publish
        nothing that names a code. The search's suppressed nodes are
        generalized instead (:func:`~graphanon.algorithms.hierarchy.cut.cover_cut`:
        published again, then the least supported item of each k^m
        violation raised to its parent, or pooled with another item when
        that parent is the root), and each published item lists all its
        taxonomy leaves, present in the data or not
        (:func:`~graphanon.algorithms.hierarchy.cut.public_taxonomy_recoding`).
        The params keep only ``k``, ``m``, ``n_suppressed_nodes`` (0) and
        ``public_taxonomy`` (no NCP: it counts the data's codes in each
        item). Not with ``priors``.

    Returns
    -------
    GlobalRecoding
        Recoded by the chosen cut, with the chosen cut nodes suppressed, rows
        in a secret random order. ``release.trace`` is a
        :class:`~graphanon.algorithms.hierarchy.cut.HierarchyTrace`: the ``cut``, the
        ``suppressed`` nodes and the ``search`` (a :class:`HierarchySearch`:
        lattice path, candidates, enumeration tree), in memory only: the
        saved release names no suppressed node. ``release.params`` holds ``cost``,
        ``cost_generalization`` (``cost_G(Cut)``), ``cost_suppression``
        (``cost_S(SS)``), ``ncp`` (the canonical NCP of ``docs/metrics.md``,
        over the data's items), ``ncp_taxonomy`` (``cost`` per original
        occurrence: the search objective, over the taxonomy's leaves) and the
        search path.

    Raises
    ------
    ParameterError
        For k outside [1, records] or m < 1.
    TaxonomyError
        When items of the data are not leaves of the taxonomy.
    MemoryBudgetError
        When threat mining would exceed the memory budget (bound ``m`` or
        use :func:`anonymize_mhghs`).

    See Also
    --------
    graphanon.privacy.KmAnonymity : The audit of its releases.
    graphanon.algorithms.anonymize_mhghs : The m-round form for large taxonomies.
    graphanon.algorithms.anonymize_aa : Generalization only.

    Notes
    -----
    Complexity: threat mining: one level-wise search over the records x nodes extended
    matrix (about ``height + 1`` times the occurrences), up to size m - for
    large m this is the bottleneck the paper answers with mHgHs. With
    ``m=2`` the walk mines only the threats lying in its near set, when
    their last node enters it (one sparse product of the entering nodes'
    columns with the extended matrix per move); ``params["rounds"][0]["threats"]``
    then counts those. Memory
    grows with the frequent itemsets of the extended matrix, exponentially
    in the record length times ``height + 1`` when ``m=None`` and ``k`` is
    small; the mining checks each level against the memory budget
    (:mod:`graphanon.utils.memory`) and stops with a
    :class:`~graphanon.errors.MemoryBudgetError` that names ``m`` and mHgHs
    instead of exhausting memory.

    Search: at most ``internal nodes`` moves, each choosing among one child
    cut per expandable cut node by their cost *changes*, then evaluating the
    chosen cut in full (O(nodes + incidences of its nodes)). With
    single-node threats (m=1, mHgHs round 1) a change is a fixed per-node
    delta: O(|Cut|) numpy work per move. Otherwise a candidate's change of
    the greedy scenario is found from the nodes it touches (its children and
    the later threat partners of nodes whose fate changes, in rank order),
    all candidates in one compiled call: O(sum over candidates of the
    touched nodes' near-threat incidences) per move, where only threats
    lying in the cut plus its expandable nodes' children are listed (built
    incrementally, O(all incidences) per walk). Exact: the same path as
    evaluating every child cut in full (``tests/algorithms/test_large_vocabulary.py``).
    The trace stores O(1) per move; a step's cut and scenario are replayed
    when read.

    Measured (``benchmarks/large_vocabulary.py``, k=5, m=2, 2 cores at load
    average 5-13): full retail-like data (88,162 records, 16,470 items,
    fan-out-5 taxonomy of 20,578 nodes): 8.1 M pair threats, 81 moves,
    5.4 s at load 5, 14.5-31 s at load 7-13, of which threat mining (the
    pair supports of the extended matrix) is nearly all and the walk about
    1 s; peak RSS 1.05 GB (before: 314 s at load 7, nearly all of it the
    walk). Mining only the near threats (``benchmarks/hghs_threats.py``,
    load 12-14, best of 3): 548,102 threats mined, 5.8 s wall (2.0 s CPU)
    instead of 9.2 s (3.8 s), peak RSS 385 MiB instead of 1,066 MiB, the
    same release.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = anonymize_hghs(data, taxonomy=tax, k=2)
    >>> rel.trace.cut, rel.trace.suppressed, round(rel.params["cost"], 6)
    (('P', 'f', 'g', 'M', 'e', 'i'), ('i',), 5.6)

    References
    ----------
    Liu, Wang. PAKDD 2010, Sec. 3-4.1.
    """
    index, m = _prepare(data, taxonomy, k, m)
    # k^2: the walk mines the pair threats near its cuts itself (_walk.MinedNearThreats)
    rnd, threats = walk_round(index, None if m == 2 else index.threats(k, m), k, m, ~index.is_leaf, progress, "HgHs")
    cut = np.sort(index.positions(rnd.cut))
    cost, g, s, sup = evaluate_cut(index, threats, cut)
    search = HierarchySearch(taxonomy, [rnd], index.labels(cut), index.labels(np.sort(sup)), g, s, index, threats)
    return _release(data, index, search, "hghs", {"k": k, "m": m}, unsafe_secret_seed, priors,
                    public_taxonomy=public_taxonomy)


@validate_params({"k": K, "m": M, "public_taxonomy": ["boolean"], **COMMON, "priors": NO_VALIDATION,
                  "taxonomy": [Taxonomy]}, meanings=MEANINGS)
def anonymize_mhghs(
    data: TransactionData,
    *,
    taxonomy: Taxonomy,
    k: int,
    m: int | None = None,
    public_taxonomy: bool = False,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    priors=None,
) -> GlobalRecoding:
    """k^m-anonymize ``data`` by mHgHs: HgHs in rounds on shrinking taxonomies.

    Round i runs HgHs for k^i on the taxonomy reduced below the cut chosen
    in round i - 1 (that cut's nodes become leaves), so the cut only moves
    up and each round mines the threats of a small taxonomy. With ``m=None``
    the rounds continue until the previous round's published records are no
    longer than the round number (then k^i implies k^infinity).

    Parameters
    ----------
    data, taxonomy, k, m, unsafe_secret_seed, progress, priors, public_taxonomy :
        As in :func:`anonymize_hghs`.

    Returns
    -------
    GlobalRecoding
        As in :func:`anonymize_hghs`; ``release.trace.search.rounds`` has one
        :class:`SearchRound` per round and ``params["rounds"]`` a summary.

    See Also
    --------
    graphanon.privacy.KmAnonymity : The audit of its releases.
    graphanon.algorithms.anonymize_hghs : The one-round search.

    Notes
    -----
    Complexity: round i: threat mining of size <= i on ``records x (nodes above the
    previous cut)``, plus the HgHs walk (see :func:`anonymize_hghs`): round 1
    (single-node threats) O(|Cut|) numpy work per move, later rounds the
    compiled exact child-cut changes over the near threats. Memory: the
    extended matrix, the round's threats and the mining's pair supports (the
    peak).

    Measured (``benchmarks/large_vocabulary.py``, k=5, m=2, 2 cores at load
    average 6-12): full retail-like data (88,162 records, 16,470 items,
    fan-out-5 taxonomy): 8.7 s at load 6, 10.5 s at load 7, 19 s at load
    12; peak RSS 984 MiB (at load 7, round 1: 3,081 moves to a 12,322-node
    cut, about 2 s; round 2: 7.2 M pair threats mined in about 8.6 s, 81
    moves in 0.6 s); before: 195 s on an idle machine (the walk
    copied every visited cut and re-ran the greedy scenario on a giant threat
    component per candidate). T10I4D100K-like data (100,000 records):
    1.1-3.2 s, 378 MiB. Round 2 mining only the near threats
    (``benchmarks/hghs_threats.py``, load 12-14, best of 3): 548,098 threats
    instead of 7.2 M, 8.8 s wall (2.4 s CPU) instead of 15.4 s (4.3 s),
    peak RSS 404 MiB instead of 977 MiB, the same release.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = anonymize_mhghs(data, taxonomy=tax, k=2, m=1)
    >>> rel.trace.cut, rel.trace.suppressed
    (('a', 'b', 'c', 'd', 'f', 'g', 'M', 'e', 'i'), ())

    References
    ----------
    Liu, Wang. PAKDD 2010, Sec. 4.2.
    """
    index, m = _prepare(data, taxonomy, k, m)
    rounds: list = []
    allowed = np.ones(index.n_nodes, dtype=bool)
    prev_cut = None
    threats = None
    i = 0
    max_len = int(np.diff(data.matrix.indptr).max()) if data.n_records else 0
    while True:
        i += 1
        # an itemset of more items than the longest record has support 0, so rounds beyond
        # max_len mine no new threats (and -m 10**20 must not loop 10**20 times)
        if m is not None and i > min(m, max(max_len, 1)):
            break
        if m is None and (i > max(max_len, 1) or (rounds and _published_max_len(index, rounds[-1]) < i)):
            break
        if prev_cut is None:
            expandable = ~index.is_leaf
        else:
            allowed = np.zeros(index.n_nodes, dtype=bool)
            for c in prev_cut:
                a = int(c)
                while a >= 0 and not allowed[a]:
                    allowed[a] = True
                    a = int(index.parent[a])
            expandable = allowed.copy()
            expandable[prev_cut] = False
            expandable &= ~index.is_leaf
        # round 2 (pairs): the walk mines the threats near its cuts itself (_walk.MinedNearThreats)
        mined = None if i == 2 else index.threats(k, i, None if prev_cut is None else allowed, algorithm="mhghs")
        rnd, threats = walk_round(
            index, mined, k, i, expandable, progress, f"mHgHs round {i}",
            allowed=None if prev_cut is None else index.labels(np.flatnonzero(allowed)),
            frontier=None if prev_cut is None else index.labels(prev_cut), algorithm="mhghs",
        )
        rounds.append(rnd)
        prev_cut = np.sort(index.positions(rnd.cut))
    cut = prev_cut
    assert cut is not None and threats is not None  # round 1 always runs (m >= 1, max(max_len, 1) >= 1)
    cost, g, s, sup = evaluate_cut(index, threats, cut)
    search = HierarchySearch(taxonomy, rounds, index.labels(cut), index.labels(np.sort(sup)), g, s, index, threats)
    return _release(data, index, search, "mhghs", {"k": k, "m": m}, unsafe_secret_seed, priors,
                    public_taxonomy=public_taxonomy)


def _published_max_len(index: HierarchyIndex, rnd: SearchRound) -> int:
    cut = index.positions(rnd.cut)
    code = index.cut_code(cut)
    sup = set(index.positions(rnd.suppressed).tolist())
    code = np.where(np.isin(cut[code], list(sup)), -1, code) if sup else code
    G = generalize_matrix(index.data.matrix, code, len(cut))
    return int(np.diff(G.indptr).max()) if G.shape[0] else 0


def best_suppression(data, *, taxonomy: Taxonomy, cut: Iterable[Hashable], k: int, m: int | None = None) -> dict:
    """The HgHs suppression scenario and cost of one given cut.

    Parameters
    ----------
    data, taxonomy, k, m :
        As in :func:`anonymize_hghs`.
    cut : iterable of nodes
        A cut of ``taxonomy`` (validated).

    Returns
    -------
    dict
        ``suppressed`` (labels), ``cost``, ``cost_generalization``,
        ``cost_suppression`` and ``threats`` (the minimal threats within the
        cut, as label lists).

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> r = best_suppression(data, taxonomy=tax, cut=["H", "K", "Q", "e", "i"], k=2)
    >>> r["suppressed"], round(r["cost"], 6)
    (['H', 'i'], 10.2)
    """
    index, m = _prepare(data, taxonomy, k, m)
    cut = np.sort(index.positions(taxonomy.validate_cut(cut)))
    in_cut = np.zeros(index.n_nodes, dtype=bool)
    in_cut[cut] = True
    # the threats within the cut: a minimal threat of all cuts whose nodes lie in the cut is a minimal
    # infrequent itemset of the cut's columns and conversely (its subsets lie in the cut too)
    threats = index.threats(k, m, in_cut)
    cost, g, s, sup = evaluate_cut(index, threats, cut)
    return {
        "suppressed": index.labels(np.sort(sup)),
        "cost": cost,
        "cost_generalization": g,
        "cost_suppression": s,
        "threats": [index.labels(t) for t in threats.within(cut)],
    }


def _hghs_declaration(name: str, function, summary: str, advice: Advice) -> MethodDeclaration:
    return MethodDeclaration(
        name=name, family="hierarchy", function=function,
        privacy_model="km", summary=summary, params=(PUBLIC_TAXONOMY,),
        published=frozenset({"k", "m", "n_suppressed_nodes", *GLOBAL_COSTS, "ncp_taxonomy", "rounds", "priors",
                             "public_taxonomy"}),
        # the rounds publish counts and costs only: the walk (the expanded nodes in order) would rebuild the
        # full cut on the public taxonomy, so it stays in release.trace.search
        published_nested={"rounds": frozenset({"m", "cut_size", "n_suppressed", "cost", "threats"})},
        priors=COARSENED_TO_PRIORS, needs_taxonomy=True, needs_k=True, options=("k", "m", "taxonomy"), advice=advice,
    )


HGHS = _hghs_declaration("hghs", anonymize_hghs, "HgHs: greedy taxonomy cut + greedy item suppression for "
                         "k^m-anonymity (Liu & Wang 2010)",
                         Advice(coarser="-a mhghs (it suppresses rare items instead) or -a coat, or a smaller -m"))
MHGHS = _hghs_declaration("mhghs", anonymize_mhghs, "mHgHs: HgHs in m rounds on shrinking taxonomies (scales to large m "
                          "and taxonomies)",
                          Advice(coarser="a smaller -m or -k, or -a coat (privacy constraints on the itemsets that "
                                 "matter)",
                                 less_suppression="a smaller -m or -k, or -a coat (it protects only the itemsets you "
                                 "list)"))
