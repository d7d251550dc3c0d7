"""COAT: constraint-based, hierarchy-free anonymization of transactions.

COAT publishes a *set-based* global recoding: each original item is either
mapped to a published item that is a set of original items (``(a,b)``), or
suppressed. It is driven by explicit constraints:

* **privacy constraints** ``P``: itemsets an attacker may know. A constraint
  ``p`` is satisfied when its published itemset ``I = U_{i in p} Phi(i)`` is
  supported by at least ``k`` published records, or by none and every proper
  subset of ``I`` is supported by none or by at least ``k`` (Def. 3.4);
* **utility constraints** ``U``: a partition of the items; a published item
  must lie inside one block, and at most a fraction ``s`` of the items may be
  suppressed (Def. 3.8).

The greedy loop (Algorithm 1) repeatedly takes the unsatisfied privacy
constraint of largest published support, and inside it the published item of
least support; it merges that item with the member of its utility block whose
merged set has the least utility loss UL (Algorithm 2), or suppresses it
when the block has nothing left to merge with (Algorithm 3).


References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. Knowledge and Information Systems 28(2), 2011 (and the PKDD
workshop version "Utility-driven anonymization of transactions"), Sec. 3
(model, UL), Sec. 4 (Algorithms 1-3), Sec. 5.1 (Pgen, Algorithm 4).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from numbers import Real
from typing import TYPE_CHECKING

import numpy as np

from graphanon.algorithms.coat.state import CoatState, CoatTrace, MergeStep, RunLog, weight_function
from graphanon.algorithms.declaration import Advice, MethodDeclaration, Parameter
from graphanon.counting.support import minimal_infrequent_itemsets
from graphanon.errors import ParameterError
from graphanon.release import GlobalRecoding
from graphanon.release.publish import publish
from graphanon.taxonomy.constraint_sets import (
    KmConstraints,
    as_utility_blocks,
    parse_fraction,
    parse_privacy,
    parse_utility,
    privacy_constraint_ids,
)
from graphanon.taxonomy.tree import ItemGroups, Taxonomy
from graphanon.utils.docs import fill_doc
from graphanon.utils.labels import set_label
from graphanon.utils.params import (
    COMMON,
    MEANINGS,
    NO_VALIDATION,
    Interval,
    K,
    StrOptions,
    validate_params,
)
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.validation import check_k

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["CoatTrace", "MergeStep", "anonymize_coat"]


def _unsatisfied(state: CoatState, groups: list[int], sup: int) -> bool:
    if not groups:
        return False
    if sup >= state.k:
        return False
    if sup > 0:
        return True
    return state.violating_subset(groups) is not None


def _run_explicit(state: CoatState, constraints: list[np.ndarray]) -> None:
    """Explicit constraints, exactly by largest current published support.

    Every queued entry carries its constraint's version; a merge or suppression bumps
    the version of each constraint naming a member of the changed item and re-counts
    it (batched), so the top of the queue is always current.
    """
    k = state.k
    trace = state.trace
    inv: dict[int, list[int]] = {}
    for c, items in enumerate(constraints):
        for i in items.tolist():
            inv.setdefault(i, []).append(c)
    n_c = len(constraints)
    version = np.zeros(n_c, dtype=np.int64)
    done = np.zeros(n_c, dtype=bool)  # satisfied with support >= k (stays so) or fully suppressed
    heap: list = []
    seq = 0

    def enqueue(cs: list[int]) -> None:
        nonlocal seq
        cs = [c for c in cs if not done[c]]
        if not cs:
            return
        pubs = [tuple(state.groups_of(constraints[c])) for c in cs]
        sups = state.supports_of(pubs)
        for c, pub, sp_ in zip(cs, pubs, sups.tolist(), strict=True):
            version[c] += 1
            if not pub or sp_ >= k:
                done[c] = True
                continue
            heapq.heappush(heap, (-sp_, c, seq, int(version[c]), None))
            seq += 1

    touched: set = set()

    def listen(kind: str, g: int, members: list) -> None:
        for i in members:
            touched.update(inv.get(i, ()))

    state.listeners.append(listen)
    enqueue(list(range(n_c)))
    total = n_c
    while True:
        while heap:
            key, c, _, ver, derived = heapq.heappop(heap)
            if ver != version[c] or done[c]:
                continue  # outdated entry: the constraint was re-counted since
            sup = -key
            if sup == 0:
                pub = state.groups_of(constraints[c] if derived is None else derived)
                J = state.violating_subset(pub) if pub else None
                if J is None:
                    continue  # satisfied with support 0; re-queued if one of its items changes
                items = constraints[c]
                reps = np.array([int(items[np.flatnonzero(state.grp[items] == g)[0]]) for g in J], dtype=np.int64)
                heapq.heappush(heap, (-state.support_of(J), c, seq, ver, reps))
                seq += 1
                continue
            items = constraints[c] if derived is None else derived
            constraint = tuple(state.data.items[i] for i in constraints[c].tolist())
            trace.constraints_processed += 1
            touched.clear()
            state.satisfy(items, constraint)
            touched.add(c)
            enqueue(sorted(touched))
            if state.progress and trace.constraints_processed % 256 == 0:
                state.progress(int(done.sum()), total, f"{len(state.members)} published items")
        # Final check over every constraint not known to be satisfied for good.
        again = []
        for c in np.flatnonzero(~done).tolist():
            pub = state.groups_of(constraints[c])
            sup = state.support_of(pub) if pub else 0
            if _unsatisfied(state, pub, sup):
                again.append(c)
        if not again:
            return
        enqueue(again)


#: Stale entries re-counted at once when the top of the k^m queue is stale. Part of the
#: algorithm's definition, not a tuning knob: the re-counted entries are pushed back with new
#: ``seq``s, which orders them after entries of equal support, so it shapes the merge order.
RECOUNT_BATCH = 4096


def _violation_entries(levels, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The minimal violations of a level-wise search as queue entries.

    Items (rows padded with -1 to ``width``) and supports, level by level in search order.
    """
    rows = [np.pad(lvl.itemsets, ((0, 0), (0, width - lvl.itemsets.shape[1])), constant_values=-1)
            for lvl in levels if len(lvl)]
    if not rows:
        return np.empty((0, width), dtype=np.int64), np.empty(0, dtype=np.int64)
    sups = np.concatenate([lvl.supports for lvl in levels if len(lvl)])
    return np.concatenate(rows).astype(np.int64), sups.astype(np.int64)


def _run_km(state: CoatState, m: int) -> None:
    """All m-itemsets as constraints, in rounds.

    A round finds the minimal published itemsets of <= m items with support
    in (0, k) (the only unsatisfiable constraints' cores) by level-wise search,
    then satisfies them by largest current support first (ties: first queued),
    re-counting stale entries :data:`RECOUNT_BATCH` at a time. Rounds repeat
    until the search finds nothing. The queue is compiled
    (:func:`~graphanon.algorithms.coat._kernels.next_fresh`): it returns to
    Python only to satisfy its next current violation, and pops exactly what the
    Python ``heapq`` loop it replaced popped (tests/algorithms/test_coat_engine.py).
    """
    from graphanon.algorithms.coat import _kernels  # numba: compiled on first use

    k = state.k
    trace = state.trace
    while True:
        viol, _ = minimal_infrequent_itemsets(state.published_matrix(), k, m)
        items, sups = _violation_entries(viol, max(m, 1))
        if not len(items):
            return
        trace.violations_found += len(items)
        groups = items.copy()  # the published items each entry was counted on: its items, now
        t_push = np.full(len(items), state.clock, dtype=np.int64)
        queue, nxt = _kernels.fill_queue(sups, k)
        while (e := _kernels.next_fresh(queue, nxt, items, groups, t_push, state.grp, state.changed_at,
                                        state.bits, state.words, state.sup, k, state.clock, RECOUNT_BATCH)) >= 0:
            row = items[e]
            row = row[row >= 0]
            trace.constraints_processed += 1
            constraint = tuple(state.data.items[i] for i in row.tolist())
            state.satisfy(row, constraint)
            if state.progress and trace.constraints_processed % 256 == 0:
                state.progress(trace.constraints_processed, trace.violations_found, f"{int(queue[2 * k])} queued")


@validate_params({"k": K, "s": [Interval(Real, 0, 1)], **COMMON, "privacy": [KmConstraints, "array-like"],
                  "utility": [None, StrOptions(("all",)), ItemGroups, Mapping, "array-like"],
                  "weights": [None, Taxonomy, "callable"], "suppression_penalty": NO_VALIDATION},
                 meanings={**MEANINGS, "s": "the largest fraction of items that may be suppressed: 0.15 or, on "
                           "the command line, 15%"})
@fill_doc(secret='the row shuffle')
def anonymize_coat(
    data: TransactionData,
    *,
    privacy,
    utility=None,
    k: int,
    s: float,
    weights=None,
    suppression_penalty=None,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
) -> GlobalRecoding:
    """Anonymize ``data`` with COAT under privacy and utility constraints.

    Parameters
    ----------
    data : TransactionData
        The original records.
    privacy : list of item lists, or KmConstraints
        The itemsets to protect (Def. 3.3). ``KmConstraints(m)`` stands for
        all ``m``-itemsets (k^m-anonymity) without listing them.
    utility : None, "all", ItemGroups, mapping or list of item lists
        A partition of the items (Def. 3.7): published items stay inside one
        block. ``None``/``"all"``: one block, any merge allowed.
    k : int
        Protection level: a protected itemset is shared by >= k records or none.
    s : float
        Largest fraction of the items that may be suppressed, in ``[0, 1]``
        (0.005 for the paper's 0.5%).
    weights : None, Taxonomy or callable
        The UL weight ``w`` of a merged set: 1 (default); with a taxonomy,
        the semantic distance ``leaves(lca) / leaves(root)`` (Example 3.15:
        ``(a,b)`` under a node of 3 of 8 leaves has weight 0.375); or a
        callable on the tuple of item labels returning a number in (0, 1].
    suppression_penalty : optional
        Not used to choose operations (COAT never trades merges for
        suppressions); accepted and recorded so that the release's UL can be
        computed with the same penalty (:func:`graphanon.metrics.ul`).
    %(unsafe_secret_seed)s
    progress : callable(done, total, message), optional
        Progress callback.

    Returns
    -------
    GlobalRecoding
        Published items are sets labelled ``"(a,b)"`` (single items keep
        their label), rows in a secret random order; ``algorithm="coat"``.
        ``release.trace`` is the :class:`CoatTrace` (merge/suppression
        history, in memory only, never saved; it names the suppressed items,
        so keep it with the producer).

    Raises
    ------
    InfeasibleError
        When satisfying a privacy constraint would suppress more than ``s``
        of the items: the message names the privacy constraint, the utility
        constraint and the suppression reached. No partial release is returned.
    ParameterError
        For bad ``k``, ``s``, constraints naming unknown items, or utility
        constraints that do not partition the items.

    See Also
    --------
    graphanon.privacy.PrivacyConstraints : The audit of its releases.
    graphanon.privacy.UtilityConstraints : The check of the utility constraints.
    graphanon.algorithms.anonymize_aa : Generalization over a taxonomy instead of constraints.

    Notes
    -----
    Complexity: each merge costs O(n / 64 + L + G): the co-supports of the item being
    merged are counted on its records (total length ``L``), then one pass over
    the ``G`` live published items of its block (with weight 1 only the first
    candidate of least union per merged size is scored, see
    :meth:`CoatState.best_partner`). Each constraint evaluation costs
    O(|p| * n / 64). With ``KmConstraints(m)`` a round is one level-wise search
    for the ``V`` minimal violations (the Apriori projected-database cost of
    :func:`~graphanon.counting.support.minimal_infrequent_itemsets`), then a compiled
    queue: O(1) per push and pop (a bucket queue: supports lie in ``(0, k)``),
    and a stale top re-counts the next 4,096 entries, each in O(m) when none of
    its published items changed since its count, else in O(m * n / 4096 + w)
    (AND + popcount over the ``w`` words nonzero in all of its published items,
    stopping at ``k``). Rounds repeat until a search finds nothing (three
    searches on the data below). Memory: the bitmaps (items x n / 8 bytes)
    plus O(V * m) for the queue. Measured on full retail-like data (88,162 records, 16,470 items,
    k=5, m=2, s=0.5%; 1.83 M violations, 2.6 M re-counts, 7,807 constraints
    satisfied in 16,141 steps): 3.8 s and 560 MiB peak RSS on an idle 2-core
    machine, 10.9 s at load 8.6 (before: 54.5 s and 1.0 GB idle, 91 s at load 6);
    T10I4D100K-like data (100,000 records): 0.5 s idle. Details in
    ``docs/performance.md``. The kernels compile once per installation (about
    7 s, cached by numba).

    Examples
    --------
    >>> from graphanon.datasets import load, load_constraints
    >>> data, c = load("coat_fig1"), load_constraints("coat_fig1")
    >>> rel = anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=c["k"], s=c["s"])
    >>> rel.render_record(int(rel.link.row_of_record[0]))   # record 0's published row
    '(a,b) c e f (g,h)'

    References
    ----------
    Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization
    of transactions. KAIS 2011, Sec. 4, Algorithms 1-3; tie and stall rules
    as fixed in graphanon's SPEC, Sec. 1.
    """
    k = check_k(k, max(data.n_records, 1))
    block, blocks = as_utility_blocks(data, utility)
    wfun = weight_function(data, weights)
    trace = RunLog()
    state = CoatState(data, block, k, float(s), wfun, progress, trace)
    if isinstance(privacy, KmConstraints):
        _run_km(state, int(privacy.m))
        p_desc = f"all {privacy.m}-itemsets"
    else:
        if isinstance(privacy, (str, bytes)):
            raise ParameterError("privacy (the privacy constraints) must be a list of item lists or KmConstraints(m)")
        constraints = privacy_constraint_ids(data, list(privacy))
        _run_explicit(state, constraints)
        p_desc = f"{len(constraints)} constraints"
    mapping = {}
    for _g, mem in state.members.items():
        label = set_label([data.items[i] for i in sorted(mem)])
        for i in mem:
            mapping[data.items[i]] = label
    for j in np.flatnonzero(state.grp < 0).tolist():
        mapping[data.items[j]] = None
    params = {"k": k, "s": float(s), "privacy": p_desc, "utility_blocks": len(blocks)}
    if suppression_penalty is not None and not callable(suppression_penalty):
        params["suppression_penalty"] = "custom"
    rel = GlobalRecoding.from_mapping(data, mapping, universe=data.n_items, algorithm="coat", params=params)
    rel = publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)
    if progress:
        progress(1, 1, f"done: {len(state.members)} published items, {state.n_suppressed} suppressed")
    rel.trace = trace.freeze()
    return rel


def _prepare_coat(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    """``-a coat``: the text policies become constraint sets; ``privacy`` is ``km:M`` from ``-m``, else ``pgen``.

    The text specs are parsed by :mod:`graphanon.taxonomy.constraint_sets` (shared with the ``constraints``
    audit model).
    """
    privacy = values["privacy"]
    k = kwargs["k"]
    if privacy is not None:
        opts.refuse(("m",), f"--param privacy={privacy} sets COAT's privacy constraints (k^m ones: privacy=km:M)")
    elif opts.is_given("m") and opts.m is None:
        raise ParameterError("-m inf: COAT's k^m constraints need a whole number m (or --param privacy=pgen)")
    else:
        privacy = f"km:{opts.m}" if opts.m is not None else "pgen"
    weights = values["weights"]
    if weights == "taxonomy" and opts.taxonomy is None:
        raise ParameterError("--param weights=taxonomy needs --taxonomy FILE")
    if weights != "taxonomy" and not values["utility"].startswith("taxonomy-level:"):
        opts.refuse(("taxonomy",), "COAT reads a taxonomy only with --param weights=taxonomy or "
                    "utility=taxonomy-level:N")
    kwargs.update(privacy=parse_privacy(privacy, data, k), utility=parse_utility(values["utility"], data, opts.taxonomy),
                  weights=opts.taxonomy if weights == "taxonomy" else None)
    return kwargs


COAT = MethodDeclaration(
    name="coat", family="coat", function=anonymize_coat, privacy_model="constraints",
    summary=(
        "COAT set-based generalization under constraints (--param privacy=pgen|km:M|bundled|FILE "
        "utility=all|bundled|groups:FILE|taxonomy-level:N s=0.5% weights=one|taxonomy)"
    ),
    params=(
        Parameter("privacy", str, None, "privacy constraints: pgen, km:M, bundled or a FILE (default: km:M from -m, "
                  "else pgen)", argument=None),
        Parameter("utility", str, "all", "utility constraints: all, bundled, groups:FILE or taxonomy-level:N",
                  argument=None),
        Parameter("s", parse_fraction, 0.005, "largest fraction of the items that may be suppressed (0.005 or 0.5%)"),
        Parameter("weights", str, "one", "item weights of the information loss", choices=("one", "taxonomy"),
                  argument=None),
    ),
    audit_params=("privacy", "utility", "s"),
    published=frozenset({"k", "s", "privacy", "utility_blocks", "suppression_penalty"}),
    needs_k=True, prepare=_prepare_coat,
    advice=Advice(less_suppression="-a aa or -a hghs with a taxonomy (they generalize instead), or fewer privacy "
                  "constraints"),
)
