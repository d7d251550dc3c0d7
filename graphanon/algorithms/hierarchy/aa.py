"""Apriori Anonymization (AA): k^m-anonymity by full-subtree global generalization.

AA (Terrovitis, Mamoulis, Kalnis, PVLDB 2008) makes passes i = 1..m. Pass i
counts the i-itemsets of the data generalized by the current cut (the
Apriori count tree of i-itemsets of generalized items) and fixes every
violating itemset (support in (0, k)) by full-subtree generalization: a cut
node is replaced by its parent, and every cut node under that parent goes
with it. Cuts only ever move up, so a pass never undoes the anonymity of the
earlier passes (generalization cannot lower a non-zero support).

Choices where the paper leaves room (documented in ``docs/hierarchy.md``):

* The count tree is the level-wise search
  :func:`~graphanon.counting.support.minimal_infrequent_itemsets` on the published
  matrix of the current cut, which is a column subset of the records x nodes
  extended matrix (no re-generalization of the data per pass).
* Violations are fixed in ascending support. A violating itemset (mapped
  through the current cut; skipped when earlier steps already fixed it) is
  fixed by the cheapest full-subtree generalization of its members: every
  choice of one ancestor-or-self per member is a candidate, costed by the NCP
  increase (weighted by original occurrences) of the subtrees it generalizes,
  and the cheapest candidate that lifts the support to >= k is applied.
* After a sweep over the violations the pass recounts, until no violation of
  size <= i remains.

References
----------
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 4 (Apriori-based anonymization, count tree, full-subtree
generalization).
Liu, Wang. PAKDD 2010, Sec. 5 (AA as the baseline, NCP as the measure).
"""

from __future__ import annotations

import itertools
from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np

from graphanon.algorithms.declaration import COARSENED_TO_PRIORS, Advice, MethodDeclaration
from graphanon.algorithms.hierarchy._aa_counts import BlockCounts, LocalCounts, drop_repeats
from graphanon.algorithms.hierarchy._declared import GLOBAL_COSTS, PUBLIC_TAXONOMY
from graphanon.algorithms.hierarchy._index import HierarchyIndex
from graphanon.algorithms.hierarchy.cut import (
    cover_cut,
    cut_recoding,
    public_taxonomy_recoding,
    recode_to_priors,
)
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.metrics.loss import ncp
from graphanon.release import GlobalRecoding
from graphanon.release.publish import publish
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.docs import fill_doc
from graphanon.utils.params import COMMON, MEANINGS, NO_VALIDATION, Interval, K, M, validate_params
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.validation import check_k

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["aa_cut", "aa_recoding", "anonymize_aa"]


@validate_params({"k": K, "m": M, **COMMON, "n_partitions": [None, Interval(Integral, 1, None)],
                  "public_taxonomy": ["boolean"], "client": NO_VALIDATION, "priors": NO_VALIDATION,
                  "taxonomy": [Taxonomy]},
                 meanings=MEANINGS)
@fill_doc(secret='the row shuffle')
def anonymize_aa(
    data: TransactionData,
    *,
    taxonomy: Taxonomy,
    k: int,
    m: int | None = None,
    n_partitions: int | None = None,
    public_taxonomy: bool = False,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    client=None,
    priors=None,
) -> GlobalRecoding:
    """k^m-anonymize ``data`` by Apriori Anonymization (global full-subtree generalization).

    Parameters
    ----------
    data : TransactionData
        Items must be leaves of ``taxonomy``.
    taxonomy : Taxonomy
        The item hierarchy.
    k : int
        Every published itemset of at most ``m`` items has support 0 or >= k.
    m : int or None
        Attacker knowledge (number of passes); None means up to the longest
        record (k^infinity).
    progress : callable(done, total, message), optional
        Called once per recount.
    %(unsafe_secret_seed)s
    client : dask.distributed.Client, optional
        Count on Dask: the records are cut into ``n_partitions`` row blocks
        on the workers, each worker builds its blocks of the extended
        (records x nodes) matrix and their vertical bitmaps, and every count
        of the run is a sum over blocks: each recount's level-wise search
        (:func:`graphanon.distributed.minimal_infrequent_itemsets` on the
        cut's columns), and before each sweep, in one round trip, the
        supports of every node set the sweep can ask about (its stale
        violations re-mapped, its candidate fixes:
        :func:`~graphanon.algorithms.hierarchy._aa_counts.fix_universe`).
        Round trips of a run: at most ``2 + R (2 m + 3)`` for ``R`` recounts
        (``params["recounts"]``; ``m``: the last pass), plus one per further
        2^22 sets when a sweep counts more, whatever the number of fixes
        (:func:`graphanon.distributed.count_round_trips` counts them). The
        client keeps the data, the taxonomy arrays and the cut, never the
        extended matrix or its bitmaps. The release equals the one-process
        release.
    n_partitions : int, optional
        With ``client``: record blocks (default one per worker).

    priors : release, Prior, or a sequence of them, optional
        Earlier global recodings of ``data``: the cut is raised to a function
        of the priors' common refinement
        (:func:`~graphanon.algorithms.prior.coarsened_cut`), so together
        they reveal no more than the priors; a refinement that is not k^m-anonymous
        raises :class:`~graphanon.errors.InfeasibleError`.
    public_taxonomy : bool
        The taxonomy is public: each published node lists all its taxonomy
        leaves as members (not only those present in the data), and cut
        nodes no record holds join the nearest node records hold
        (:func:`~graphanon.algorithms.hierarchy.cut.cover_cut`), so the file
        names no code; params ``k``, ``m``, ``n_suppressed_nodes`` (0) and
        ``public_taxonomy`` only (``docs/privacy.md``). Not with ``priors``.

    Returns
    -------
    GlobalRecoding
        The data recoded by the final cut, rows in a secret random order;
        nothing is suppressed. ``release.trace.cut`` is the cut;
        ``release.params`` holds ``cost`` (= ``cost_generalization``,
        LM over the taxonomy's leaves, weighted by original occurrences),
        ``cost_suppression`` (0), ``ncp`` (canonical, ``docs/metrics.md``),
        ``ncp_taxonomy`` (``cost`` per occurrence) and the number of
        generalization steps per pass.

    Raises
    ------
    InfeasibleError
        When even the root cut violates k (fewer than k non-empty records).
    ParameterError, TaxonomyError
        For k outside [1, records], m < 1, or items missing from the taxonomy.

    See Also
    --------
    graphanon.privacy.KmAnonymity : The audit of its releases.
    graphanon.algorithms.anonymize_hghs : Generalization and suppression (Liu & Wang).
    graphanon.algorithms.anonymize_cut : Publish a given cut.

    Notes
    -----
    Complexity: each recount is one level-wise search of size <= i over the current cut's
    columns of the extended matrix (projected-database cost of Apriori). The
    sweep over its ``V`` violations is vectorized: a violation is re-mapped
    and re-counted (O(i * n / 64) bitmap words, distinct sets once) only when
    a generalization covered one of its members since it was last counted,
    in blocks just before the scan reaches it, so the sweep costs O(V) numpy
    work plus that re-counting, and Python work only per *fix*. A fix tries at
    most prod(depth + 1) candidate generalizations (``(height + 1)^i``),
    each O(subtree) for its cost, in ascending cost until one fixes it. The
    number of recounts per pass is small in practice (each sweep fixes every
    violation it sees). Measured (k=5, m=2, retail-like data with 16,470
    items, balanced fan-out-5 taxonomy; ``docs/performance.md``): the sweep
    over 1.8 million pair violations went from 180 s to the time reported
    there; 30,000 records take 22.8 s at load 15 under cProfile. Memory: the
    vertical bitmaps of the extended matrix (nodes x records / 8 bytes,
    packed from the nonzeros by :func:`~graphanon.counting.support.sparse_bitmaps`)
    plus the level-wise search of pass ``i``, whose frequent itemsets can grow
    exponentially in ``i`` on long records; each level is checked against
    the memory budget (:mod:`graphanon.utils.memory`) and a
    :class:`~graphanon.errors.MemoryBudgetError` names ``m`` first.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = anonymize_aa(data, taxonomy=tax, k=2, m=2)
    >>> rel.trace.cut
    ('T',)

    References
    ----------
    Terrovitis, Mamoulis, Kalnis. PVLDB 2008, Sec. 4.
    """
    check_k(k, data.n_records)
    index = HierarchyIndex(data, taxonomy)
    counts = LocalCounts(index) if client is None else BlockCounts(index, client, n_partitions, progress)
    max_len = int(np.diff(data.matrix.indptr).max()) if data.n_records else 0
    cut, params = aa_cut(index, counts, k=k, m=m, max_len=max_len, progress=progress)
    if public_taxonomy:
        if priors is not None:
            raise ParameterError("public_taxonomy=True does not combine with priors: publish the update with the "
                                 "same public_taxonomy setting as a release of its own, or leave public_taxonomy out")
        groups = cover_cut(data, taxonomy, index.labels(cut), (), k=k, m=m)
        rel = public_taxonomy_recoding(data, taxonomy, groups, algorithm="aa", params={"k": k, "m": m})
        return publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)
    rel = aa_recoding(data, taxonomy, index, cut, params)
    if priors is not None:
        rel = recode_to_priors(data, rel, priors, taxonomy=taxonomy, k=k, m=m)
    return publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)


def aa_cut(index: HierarchyIndex, counts, *, k: int, m: int | None, max_len: int,
           progress: ProgressCallback | None = None) -> tuple[np.ndarray, dict]:
    """AA's passes: the final cut (preorder positions) and the release's parameters.

    ``counts`` answers the counting questions (:mod:`._aa_counts`: in this
    process or summed over Dask blocks); ``max_len`` is the longest record
    (passes beyond it find nothing). Shared by :func:`anonymize_aa` and the
    streamed writer :func:`graphanon.algorithms.hierarchy.aa_dask.write_aa_release`.
    """
    n = index.n_nodes
    in_cut = index.is_leaf.copy()
    owner = np.arange(n, dtype=np.int64)  # node -> its cut node (valid for nodes at or below the cut)
    # passes beyond the longest record find nothing new (no longer itemset has support > 0)
    m_eff = max(1, max_len) if m is None else min(m, max(1, max_len))
    steps_per_pass = []

    def step_cost(p: int) -> float:
        sl = slice(p, int(index.end[p]))
        return float(index.gen_cost[p] - index.gen_cost[sl][in_cut[sl]].sum())

    def generalize(p: int) -> None:
        sl = slice(p, int(index.end[p]))
        in_cut[sl] = False
        in_cut[p] = True
        owner[sl] = p

    recounts = 0
    for i in range(1, m_eff + 1):
        steps = 0
        while True:
            cut = np.flatnonzero(in_cut)
            viol = counts.violations(
                cut, k, i, what=f"AA pass {i} (k={k}, m={'inf' if m is None else m})",
                advice=f"bound the attacker knowledge, e.g. m={max(i - 1, 1)} (CLI: -m {max(i - 1, 1)})",
            )
            members, sups = _violations(viol, cut, i)
            recounts += 1
            if progress:
                progress(i, m_eff, f"AA pass {i}: {len(sups)} violating itemsets, cut of {len(cut)} nodes")
            if not len(sups):
                break
            steps += _sweep(index, members, sups, k, counts, owner, step_cost, generalize)
        steps_per_pass.append(steps)
    cut = np.flatnonzero(in_cut)
    g = float(index.gen_cost[cut].sum())
    total = index.total_occurrences
    return cut, {
        "k": k,
        "m": m,
        "cost": g,
        "cost_generalization": g,
        "cost_suppression": 0.0,
        "ncp_taxonomy": g / total if total else 0.0,
        "steps_per_pass": steps_per_pass,
        "recounts": recounts,
    }


def aa_recoding(data, taxonomy: Taxonomy, index: HierarchyIndex, cut: np.ndarray, params: dict) -> GlobalRecoding:
    """The row-aligned recoding of ``data`` by AA's ``cut``, with its parameters and NCP (not yet published).

    ``data`` may hold no records: the streamed writer builds the published
    items from an empty copy and gives ``ncp`` its own ``original`` (the
    counts of the records on the workers).
    """
    rel = cut_recoding(data, taxonomy, index.labels(cut), (), algorithm="aa", params=params)
    rel.params["ncp"] = ncp(index.data, rel)
    return rel


def _violations(viol, cut: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The violating itemsets as cut-node rows padded with -1, in ascending support (stable: smaller itemsets first, then the search's lexicographic order), and their supports."""
    rows = [np.pad(cut[lvl.itemsets], ((0, 0), (0, width - lvl.size)), constant_values=-1) for lvl in viol if len(lvl)]
    if not rows:
        return np.zeros((0, width), dtype=np.int64), np.zeros(0, dtype=np.int64)
    members = np.concatenate(rows).astype(np.int64)
    sups = np.concatenate([lvl.supports for lvl in viol if len(lvl)]).astype(np.int64)
    order = np.argsort(sups, kind="stable")
    return members[order], sups[order]


def _mapped(owner: np.ndarray, members: np.ndarray, sentinel: int) -> np.ndarray:
    """Rows of ``members`` mapped through ``owner`` to the current cut.

    Sorted, duplicates and padding replaced by ``sentinel`` (larger than every node) at the end
    of each row.
    """
    out = np.where(members >= 0, owner[np.maximum(members, 0)], sentinel)
    out.sort(axis=1)
    return drop_repeats(out, sentinel)


def _set_supports(counts, sets: np.ndarray, sentinel: int) -> np.ndarray:
    """Supports of node sets (rows of ``sets``, ``sentinel``-padded at the end), each distinct set counted once by ``counts`` (AND of the vertical bitmaps, grouped by size)."""
    if not len(sets):
        return np.zeros(0, dtype=np.int64)
    width = sets.shape[1]
    if (sentinel + 1) ** width < 2**62:  # one int64 key per set: hash-based unique
        key = np.zeros(len(sets), dtype=np.int64)
        for c in range(width):
            key = key * (sentinel + 1) + sets[:, c]
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        uniq = sets[first]
    else:
        uniq, inverse = np.unique(sets, axis=0, return_inverse=True)
    return counts.padded(uniq, sentinel)[inverse.ravel()]


def _sweep(index, members, sups, k, counts, owner, step_cost, generalize) -> int:
    """Fix the violations ``members`` (ascending support) one by one through the moving cut.

    Equivalent to visiting every violation in order, mapping it through the
    current cut and fixing it when its support is still in (0, k); vectorized
    by noting that a violation's mapped itemset (hence its support) changes
    only when a generalization covers one of its original members. So the
    supports are known up front (the search counted them); a fix marks the
    later violations with a member under a generalized node (found through a
    node -> violation index) as stale, and stale violations are re-mapped and
    re-counted (distinct sets once, by bitmaps) in blocks just before the
    scan reaches them, once however often they went stale. ``counts``
    (:mod:`graphanon.algorithms.hierarchy._aa_counts`) does the counting; when it
    has ``prefetch`` (Dask, where a question costs a round trip), every set the
    sweep can ask about is counted before it starts, in one round trip
    (:func:`~graphanon.algorithms.hierarchy._aa_counts.fix_universe`), and the
    sweep's questions are answered from those supports. Returns the number of
    generalization steps.
    """
    n_found, width = members.shape
    sentinel = index.n_nodes
    need = (sups > 0) & (sups < k)
    stale = np.zeros(n_found, dtype=bool)
    flat = members.ravel()
    ok = flat >= 0
    inc_node, inc_item = flat[ok], np.repeat(np.arange(n_found, dtype=np.int64), width)[ok]
    order = np.argsort(inc_node, kind="stable")
    inc_node, inc_item = inc_node[order], inc_item[order]

    def covered(fix) -> np.ndarray:
        """The violations with a member under a node of ``fix`` (they go stale when it is applied)."""
        lo = np.searchsorted(inc_node, np.asarray(fix), side="left")
        hi = np.searchsorted(inc_node, index.end[np.asarray(fix)], side="left")
        return np.concatenate([inc_item[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True)])

    if counts.prefetch is not None:  # every set the sweep can count, in one round trip (Dask)
        counts.prefetch(owner, members)
    steps = 0
    pos = 0
    block = 256
    while pos < n_found:
        stop = min(n_found, pos + block)
        redo = pos + np.flatnonzero(stale[pos:stop])
        if len(redo):
            new_sup = _set_supports(counts, _mapped(owner, members[redo], sentinel), sentinel)
            need[redo] = (new_sup > 0) & (new_sup < k)
            stale[redo] = False
        hits = np.flatnonzero(need[pos:stop])
        if not len(hits):
            pos = stop
            block = min(block * 2, 1 << 16)
            continue
        block = 256
        j = pos + int(hits[0])
        cur = _mapped(owner, members[j : j + 1], sentinel)[0]
        cur = cur[cur < sentinel]
        if len(cur) == 1 and cur[0] == 0:
            raise InfeasibleError(
                f"k={k} cannot be met by generalization: only {int(counts.padded(cur[None], sentinel)[0])} "
                f"record(s) are non-empty, so "
                f"even the root {index.nodes[0]!r} has support below k; lower k"
            )
        fix = _cheapest_fix(index, cur, k, counts, step_cost)
        for p in fix:
            generalize(p)
            steps += 1
        pos = j + 1
        stale[covered(fix)] = True
    return steps


def _fix_candidates(index: HierarchyIndex, cur: np.ndarray, step_cost) -> list[tuple]:
    """The candidate fixes of the itemset ``cur``, in ascending cost (ties: fewer nodes, then the nodes).

    Every choice of one ancestor-or-self per member (the product of the
    members' root paths); the generalization nodes of a choice are its
    maximal proper ancestors, its cost the NCP increase of replacing the cut
    nodes under each by it. O(prod of (depth + 1)) choices.
    """
    end = index.end
    chains = []
    for u in cur:
        chain = [int(u)]
        while chain[-1] != 0:
            chain.append(int(index.parent[chain[-1]]))
        chains.append(chain)
    memo: dict[int, float] = {}
    seen = set()
    cands = []
    for combo in itertools.product(*[range(len(c)) for c in chains]):
        gens = {chains[j][c] for j, c in enumerate(combo) if c > 0}
        if not gens:
            continue
        top = tuple(sorted(p for p in gens if not any(q != p and q <= p < end[q] for q in gens)))
        if top in seen:
            continue
        seen.add(top)
        cost = 0.0
        for p in top:
            if p not in memo:
                memo[p] = step_cost(p)
            cost += memo[p]
        cands.append((cost, len(top), top))
    cands.sort()
    return [top for _, _, top in cands]


def _recoded(index: HierarchyIndex, cur: np.ndarray, tops: list[tuple], sentinel: int, width: int) -> np.ndarray:
    """The itemset ``cur`` recoded by each fix of ``tops``.

    Sorted rows padded with ``sentinel`` to ``width``.
    """
    end = index.end
    sets = np.full((len(tops), width), sentinel, dtype=np.int64)
    for row, top in enumerate(tops):
        mapped = set()
        for u in cur:
            v = int(u)
            for p in top:
                if p <= v < end[p]:
                    v = p
                    break
            mapped.add(v)
        sets[row, : len(mapped)] = sorted(mapped)
    return sets


def _cheapest_fix(index: HierarchyIndex, cur: np.ndarray, k: int, counts, step_cost, tops=None) -> list[int]:
    """The cheapest full-subtree generalization that lifts the itemset ``cur`` to support >= k.

    The candidates (:func:`_fix_candidates`, or ``tops``) are tried in
    ascending cost, ``counts.batch`` at a time (all at once when None); the
    first whose recoded itemset has support >= k is returned (the root
    always is, when the problem is feasible).
    """
    tops = _fix_candidates(index, cur, step_cost) if tops is None else tops
    sentinel = index.n_nodes
    batch = counts.batch or len(tops)
    for a in range(0, len(tops), batch):
        first = _first_fixing(counts.padded(_recoded(index, cur, tops[a : a + batch], sentinel, len(cur)), sentinel), k)
        if first is not None:
            return list(tops[a + first])
    return [0]


def _first_fixing(supports: np.ndarray, k: int) -> int | None:
    """Position of the first candidate fix whose recoded itemset has support >= k (None: none has)."""
    ok = np.flatnonzero(supports >= k)
    return int(ok[0]) if len(ok) else None


AA = MethodDeclaration(
    name="aa", family="hierarchy", function=anonymize_aa, privacy_model="km",
    summary="Apriori Anonymization: full-subtree global generalization for k^m-anonymity (Terrovitis et al. 2008)",
    params=(PUBLIC_TAXONOMY,),
    published=frozenset({"k", "m", "n_suppressed_nodes", *GLOBAL_COSTS, "ncp_taxonomy", "steps_per_pass", "recounts",
                         "priors", "public_taxonomy"}),
    priors=COARSENED_TO_PRIORS, needs_taxonomy=True, needs_k=True, options=("k", "m", "taxonomy", "scheduler"),
    stream="graphanon.algorithms.hierarchy.aa_dask:write_aa_release",
    advice=Advice(coarser="-a mhghs (it suppresses rare items instead of generalizing every item) or -a coat, or a "
                  "smaller -m"),
)
