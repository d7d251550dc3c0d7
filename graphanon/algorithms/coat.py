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

This module also provides :func:`pgen`, the generator of privacy constraints
from the data (Algorithm 4: the maximal infrequent records).

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. Knowledge and Information Systems 28(2), 2011 (and the PKDD
workshop version "Utility-driven anonymization of transactions"), Sec. 3
(model, UL), Sec. 4 (Algorithms 1-3), Sec. 5.1 (Pgen, Algorithm 4).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.registry import AlgorithmSpec, RunOptions, register
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.privacy.km import check_k
from graphanon.release import GlobalRecoding, publish
from graphanon.release.global_recoding import set_label
from graphanon.support import VerticalBitmaps, generalize_matrix, minimal_infrequent_itemsets
from graphanon.taxonomy import ItemGroups, Taxonomy

__all__ = [
    "CoatTrace",
    "KmConstraints",
    "MergeStep",
    "anonymize_coat",
    "as_utility_blocks",
    "pgen",
]

Progress = Callable[[int, int, str], None]
_LN2 = math.log(2.0)


# ---------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class KmConstraints:
    """The privacy constraint set of *all* ``m``-itemsets, kept implicit.

    With this set COAT enforces k^m-anonymity (Loukides et al., Sec. 3.2 and
    Sec. 6.2). The constraints are never listed: only the published itemsets
    of at most ``m`` items whose support lies in ``(0, k)`` can be
    unsatisfied, and those are found by level-wise search
    (:func:`graphanon.support.minimal_infrequent_itemsets`) and re-found
    around each merged item.

    Parameters
    ----------
    m : int
        Attacker knowledge (number of items), >= 1.
    """

    m: int

    def __post_init__(self) -> None:
        if isinstance(self.m, bool) or not isinstance(self.m, (int, np.integer)) or self.m < 1:
            raise ParameterError(f"KmConstraints needs a whole number m >= 1, got {self.m!r}")


def _constraint_ids(data, constraints) -> list[np.ndarray]:
    out = []
    for n, p in enumerate(constraints):
        if isinstance(p, (str, bytes)) or not isinstance(p, Iterable):
            raise ParameterError(
                f"privacy constraint #{n} is {p!r}; each privacy constraint is an iterable of items, "
                f"e.g. [['a', 'b', 'c'], ['d', 'e']]"
            )
        labels = list(dict.fromkeys(p))
        if not labels:
            raise ParameterError(f"privacy constraint #{n} is empty; a privacy constraint names at least one item")
        unknown = [x for x in labels if not data.has_item(x)]
        if unknown:
            raise ParameterError(
                f"privacy constraint #{n} {labels[:8]} names item(s) not in the data: {unknown[:5]}"
            )
        out.append(np.array([data.item_id(x) for x in labels], dtype=np.int64))
    return out


def as_utility_blocks(data, utility_constraints) -> tuple[np.ndarray, list[list]]:
    """Block index of every item of ``data`` from a utility constraint set.

    Parameters
    ----------
    data : TransactionData
    utility_constraints : None, "all", ItemGroups, Taxonomy level groups, mapping or list of lists
        ``None`` or ``"all"``: one block holding every item (any merge is
        allowed). Otherwise a partition of the items; items of a block that
        do not occur in the data's vocabulary are ignored.

    Returns
    -------
    block : int array, shape (n_items,)
        Block of each item.
    blocks : list of lists of item labels
        The blocks (restricted to the data's items), in input order.

    Raises
    ------
    ParameterError
        When an item of the data is in no block or in two blocks.
    """
    if utility_constraints is None or (isinstance(utility_constraints, str) and utility_constraints == "all"):
        return np.zeros(data.n_items, dtype=np.int64), [list(data.items)]
    if isinstance(utility_constraints, str):
        raise ParameterError(
            f"utility constraints {utility_constraints!r}: give 'all', an ItemGroups, or a list of item lists"
        )
    if isinstance(utility_constraints, ItemGroups):
        groups = utility_constraints
    elif isinstance(utility_constraints, Mapping):
        groups = ItemGroups(utility_constraints)
    else:
        groups = ItemGroups.from_lists(utility_constraints)
    groups.check_covers(data.items, what="the data (utility constraints must partition the items)")
    block = np.full(data.n_items, -1, dtype=np.int64)
    blocks: list[list] = []
    for members in groups:
        present = [x for x in members if data.has_item(x)]
        if not present:
            continue
        b = len(blocks)
        blocks.append(present)
        block[data.item_ids(present)] = b
    return block, blocks


def _weight_function(data, weights):
    """Return ``f(member_ids, lca_state) -> weight`` helpers for UL, or None for weight 1."""
    if weights is None:
        return None
    if isinstance(weights, Taxonomy):
        weights.check_covers(data.items)
        return ("taxonomy", weights)
    if callable(weights):
        return ("callable", weights)
    raise ParameterError(
        f"weights must be None (weight 1), a Taxonomy (semantic distance) or a callable on item label "
        f"tuples, got {type(weights).__name__}"
    )


# ---------------------------------------------------------------------------- trace
@dataclass(frozen=True)
class MergeStep:
    """One operation of a COAT run.

    Attributes
    ----------
    step : int
        Position in the run.
    kind : {"merge", "suppress"}
    items : tuple of tuples
        ``merge``: the two published items (as member tuples) merged;
        ``suppress``: one tuple, the published item removed.
    result : tuple
        Members of the published item produced (empty for ``suppress``).
    support : int
        Support of the result (or of the suppressed item) at that time.
    constraint : tuple
        The privacy constraint (original items) being satisfied.
    """

    step: int
    kind: str
    items: tuple
    result: tuple
    support: int
    constraint: tuple


@dataclass
class CoatTrace:
    """What a COAT run did: operations in order and the constraints it worked on."""

    steps: list[MergeStep] = field(default_factory=list)
    constraints_processed: int = 0
    violations_found: int = 0
    suppressed: list = field(default_factory=list)


# ---------------------------------------------------------------------------- engine
class _CoatState:
    """Published groups with packed record bitmaps, the utility blocks and the loop."""

    def __init__(self, data, block, k, s, weights, progress, trace):
        self.data = data
        self.n = data.n_records
        self.M = data.n_items
        self.k = k
        self.max_suppressed = math.floor(s * self.M + 1e-9)
        self.s = s
        vb = VerticalBitmaps(data.matrix)
        self.bits = vb.bits  # row g: bitmap of group whose representative is g
        self.grp = np.arange(self.M, dtype=np.int64)  # group representative of each item, -1 = suppressed
        self.members: dict[int, list[int]] = {i: [i] for i in range(self.M)}
        self.sup = np.bitwise_count(self.bits).sum(axis=1).astype(np.int64)
        self.block = block
        self.live: dict[int, set] = {}
        for i in range(self.M):
            self.live.setdefault(int(block[i]), set()).add(i)
        self.weights = weights
        self.lca = {}
        if weights is not None and weights[0] == "taxonomy":
            tax = weights[1]
            self.tax_total = len(tax.leaves)
            self.lca = {i: data.items[i] for i in range(self.M)}
        self.n_suppressed = 0
        self.grp_list = list(range(self.M))  # Python mirror of grp for scalar lookups
        self.changed_at = [0] * self.M  # clock of the last merge into each group
        self.clock = 0
        self.progress = progress
        self.trace = trace
        self.listeners: list[Callable[[str, int, list], None]] = []

    # -------------------------------------------------------------- supports
    def support_of(self, groups: Sequence[int]) -> int:
        if len(groups) == 0:
            return self.n
        if len(groups) == 1:
            return int(self.sup[groups[0]])
        acc = np.bitwise_and.reduce(self.bits[np.asarray(groups)], axis=0)
        return int(np.bitwise_count(acc).sum())

    def supports_of(self, itemsets: list[tuple]) -> np.ndarray:
        """Supports of many group itemsets at once (batched by size; empty -> 0)."""
        out = np.zeros(len(itemsets), dtype=np.int64)
        by_size: dict[int, list[int]] = {}
        for j, t in enumerate(itemsets):
            if t:
                by_size.setdefault(len(t), []).append(j)
        for size, idx in by_size.items():
            arr = np.array([itemsets[j] for j in idx], dtype=np.int64)
            acc = self.bits[arr[:, 0]].copy()
            for c in range(1, size):
                acc &= self.bits[arr[:, c]]
            out[np.asarray(idx)] = np.bitwise_count(acc).sum(axis=1)
        return out

    def groups_of(self, items: np.ndarray) -> list[int]:
        g = self.grp[items]
        out: list[int] = []
        seen = set()
        for x in g.tolist():
            if x >= 0 and x not in seen:
                seen.add(x)
                out.append(x)
        return out

    def labels(self, g: int) -> tuple:
        return tuple(self.data.items[i] for i in sorted(self.members[g]))

    # -------------------------------------------------------------- UL of a candidate merge
    def _log_weight(self, g: int, cands: np.ndarray) -> np.ndarray:
        if self.weights is None:
            return np.zeros(len(cands))
        kind, w = self.weights
        out = np.empty(len(cands))
        if kind == "taxonomy":
            for j, h in enumerate(cands.tolist()):
                node = w.lca(self.lca[g], self.lca[h])
                out[j] = math.log(max(w.leaf_count(node), 1) / self.tax_total)
        else:
            mg = self.labels(g)
            for j, h in enumerate(cands.tolist()):
                val = float(w(tuple(sorted(mg + self.labels(h), key=self.data.item_id))))
                if not 0.0 < val <= 1.0:
                    raise ParameterError(f"the weight function returned {val} for a merge; weights must be in (0, 1]")
                out[j] = math.log(val)
        return out

    def best_partner(self, g: int) -> int | None:
        cands = [h for h in self.live[int(self.block[g])] if h != g]
        if not cands:
            return None
        # Ties: input order (the item order of the data's vocabulary / block listing).
        cands = np.array(sorted(cands, key=lambda h: min(self.members[h])), dtype=np.int64)
        union = np.bitwise_count(self.bits[cands] | self.bits[g]).sum(axis=1).astype(np.float64)
        size = np.array([len(self.members[h]) for h in cands.tolist()], dtype=np.float64) + len(self.members[g])
        log_count = size * _LN2 + np.log1p(-np.exp2(-size))  # log(2^size - 1)
        key = log_count + self._log_weight(g, cands) + np.log(np.maximum(union, 0.5))
        return int(cands[int(np.argmin(key))])

    # -------------------------------------------------------------- operations
    def merge(self, g: int, h: int, constraint: tuple) -> int:
        if len(self.members[g]) < len(self.members[h]):
            g, h = h, g
        before = (self.labels(h), self.labels(g)) if min(self.members[h]) < min(self.members[g]) else (
            self.labels(g), self.labels(h))
        self.bits[g] |= self.bits[h]
        self.sup[g] = int(np.bitwise_count(self.bits[g]).sum())
        mh = self.members.pop(h)
        self.members[g].extend(mh)
        self.grp[np.asarray(mh)] = g
        for i in mh:
            self.grp_list[i] = g
        self.clock += 1
        self.changed_at[g] = self.clock
        self.live[int(self.block[g])].discard(h)
        if self.lca:
            self.lca[g] = self.weights[1].lca(self.lca[g], self.lca.pop(h))
        self.trace.steps.append(
            MergeStep(len(self.trace.steps), "merge", before, self.labels(g), int(self.sup[g]), constraint)
        )
        for fn in self.listeners:
            fn("merge", g, self.members[g])
        return g

    def suppress(self, g: int, constraint: tuple) -> None:
        labels = self.labels(g)
        self.n_suppressed += len(self.members[g])
        if self.n_suppressed > self.max_suppressed:
            b = int(self.block[g])
            bmem = [self.data.items[i] for i in np.flatnonzero(self.block == b)]
            btxt = f"{bmem[:10]}" + (f" ({len(bmem)} items)" if len(bmem) > 10 else "")
            raise InfeasibleError(
                f"COAT cannot satisfy the privacy constraint {list(constraint)} within the utility "
                f"constraints: published item {set_label(labels)} (support {int(self.sup[g])}, k={self.k}) "
                f"cannot be merged further inside its utility constraint #{b} "
                f"{btxt} and suppressing it "
                f"would suppress {self.n_suppressed} of {self.M} items "
                f"({100.0 * self.n_suppressed / self.M:.3g}% > s = {100.0 * self.s:.3g}%); relax the utility "
                f"constraints, raise s, or lower k"
            )
        mem = self.members.pop(g)
        self.grp[np.asarray(mem)] = -1
        for i in mem:
            self.grp_list[i] = -1
        self.clock += 1
        self.live[int(self.block[g])].discard(g)
        self.trace.steps.append(MergeStep(len(self.trace.steps), "suppress", (labels,), (), int(self.sup[g]), constraint))
        self.trace.suppressed.extend(labels)
        for fn in self.listeners:
            fn("suppress", g, mem)

    # -------------------------------------------------------------- Algorithm 1, steps 4-14
    def satisfy(self, items: np.ndarray, constraint: tuple) -> None:
        """Make the published itemset of ``items`` reach support >= k (or vanish)."""
        k = self.k
        while True:
            pub = self.groups_of(items)
            if not pub:
                return
            sup = self.support_of(pub)
            if sup >= k or sup == 0:
                return
            # Step 4 reads "while p is unsatisfied and |I| > 1"; taken literally it would suppress
            # every infrequent single item, which contradicts Sec. 6.2 (m = 1 runs suppress
            # nothing). A single published item is merged like any other while its block allows.
            sups = self.sup[np.asarray(pub)]
            g = pub[int(np.argmin(sups))]  # least support, ties: order in the constraint
            h = self.best_partner(g)
            if h is not None:
                self.merge(g, h, constraint)
            elif self.sup[g] < k:
                self.suppress(g, constraint)
            else:
                # g (support >= k) cannot be merged: generalize the least-supported item of the
                # constraint that still can be; when none can, go to the suppression phase.
                order = np.argsort(sups, kind="stable")
                for j in order.tolist():
                    g2 = pub[j]
                    h2 = self.best_partner(g2) if g2 != g else None
                    if h2 is not None:
                        self.merge(g2, h2, constraint)
                        break
                else:
                    break
        # Suppression phase (steps 11-14): least-supported published items first.
        while True:
            pub = self.groups_of(items)
            if not pub:
                return
            sup = self.support_of(pub)
            if sup >= k or sup == 0:
                return
            g = pub[int(np.argmin(self.sup[np.asarray(pub)]))]
            self.suppress(g, constraint)

    # -------------------------------------------------------------- violation search on published groups
    def violating_subset(self, groups: list[int]) -> list[int] | None:
        """A subset of ``groups`` with support in (0, k), or None (level-wise, bitmaps)."""
        k = self.k
        arr = np.asarray(groups)
        s1 = self.sup[arr]
        bad = np.flatnonzero((s1 > 0) & (s1 < k))
        if len(bad):
            return [groups[int(bad[np.argmax(s1[bad])])]]
        freq = [(g,) for g, s in zip(groups, s1.tolist(), strict=False) if s >= k]
        maps = {(g,): self.bits[g] for g, in freq}
        size = 1
        while len(freq) > 1 and size < len(groups):
            size += 1
            nxt = []
            prev = set(freq)
            for a in range(len(freq)):
                pa = freq[a]
                for b in range(a + 1, len(freq)):
                    pb = freq[b]
                    if pa[:-1] != pb[:-1]:
                        continue
                    cand = pa + (pb[-1],)
                    if size > 2 and any(cand[:j] + cand[j + 1 :] not in prev for j in range(size - 1)):
                        continue
                    bm = maps[pa] & self.bits[pb[-1]]
                    c = int(np.bitwise_count(bm).sum())
                    if 0 < c < k:
                        return list(cand)
                    if c >= k:
                        maps[cand] = bm
                        nxt.append(cand)
            freq = nxt
        return None

    def published_matrix(self, rows: np.ndarray | None = None, drop: int | None = None) -> sp.csr_array:
        X = self.data.matrix if rows is None else self.data.matrix[rows]
        code = self.grp.copy()
        if drop is not None:
            code[code == drop] = -1
        return generalize_matrix(X, code, self.M)

    def records_of(self, g: int) -> np.ndarray:
        bits = np.unpackbits(self.bits[g].view(np.uint8), bitorder="little")[: self.n]
        return np.flatnonzero(bits)


def _unsatisfied(state: _CoatState, groups: list[int], sup: int) -> bool:
    if not groups:
        return False
    if sup >= state.k:
        return False
    if sup > 0:
        return True
    return state.violating_subset(groups) is not None


def _run_explicit(state: _CoatState, constraints: list[np.ndarray]) -> None:
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


def _run_km(state: _CoatState, m: int) -> None:
    """All m-itemsets as constraints, in rounds.

    A round finds the minimal published itemsets of <= m items with support
    in (0, k) (the only unsatisfiable constraints' cores) by level-wise search,
    then satisfies them by largest support first, re-counting stale entries in
    batches. Rounds repeat until the search finds nothing.
    """
    k = state.k
    trace = state.trace
    heap: list = []
    seq = 0
    grp = state.grp_list
    changed = state.changed_at

    def current(items: tuple) -> tuple:
        out = []
        for i in items:
            g = grp[i]
            if g >= 0 and g not in out:
                out.append(g)
        return tuple(out)

    def entries(levels) -> list:
        nonlocal seq
        out = []
        now = state.clock
        for lvl in levels:
            if not len(lvl):
                continue
            rows = lvl.itemsets.tolist()
            sups = lvl.supports.tolist()
            for row, sp_ in zip(rows, sups, strict=False):
                items = tuple(row)
                out.append((-sp_, seq, items, now, items))
                seq += 1
        trace.violations_found += len(out)
        return out

    viol, _ = minimal_infrequent_itemsets(state.published_matrix(), k, m)
    heap.extend(entries(viol))
    heapq.heapify(heap)

    def fresh(entry) -> bool:
        _, _, items, t_push, groups = entry
        return current(items) == groups and max(changed[g] for g in groups) <= t_push

    while True:
        while heap:
            if not fresh(heap[0]):
                # Re-count a batch of the top entries at once (packed bitmaps, by size).
                batch = [heapq.heappop(heap) for _ in range(min(len(heap), 4096))]
                cur = [current(e[2]) for e in batch]
                sups = state.supports_of(cur)
                for e, pub, sp_ in zip(batch, cur, sups.tolist(), strict=False):
                    if pub and 0 < sp_ < k:
                        heapq.heappush(heap, (-sp_, seq, e[2], state.clock, pub))
                        seq += 1
                continue
            key, _, items, _, groups = heapq.heappop(heap)
            trace.constraints_processed += 1
            constraint = tuple(state.data.items[i] for i in items)
            state.satisfy(np.asarray(items, dtype=np.int64), constraint)
            if state.progress and trace.constraints_processed % 256 == 0:
                state.progress(trace.constraints_processed, trace.violations_found, f"{len(heap)} queued")
        viol, _ = minimal_infrequent_itemsets(state.published_matrix(), k, m)
        if not any(len(v) for v in viol):
            return
        heap.extend(entries(viol))
        heapq.heapify(heap)


def anonymize_coat(
    data,
    privacy_constraints,
    utility_constraints,
    k: int,
    s: float,
    weights=None,
    suppression_penalty=None,
    progress: Progress | None = None,
    *,
    return_trace: bool = False,
    unsafe_secret_seed: int | None = None,
):
    """Anonymize ``data`` with COAT under privacy and utility constraints.

    Parameters
    ----------
    data : TransactionData
        The original records.
    privacy_constraints : list of item lists, or KmConstraints
        The itemsets to protect (Def. 3.3). ``KmConstraints(m)`` stands for
        all ``m``-itemsets (k^m-anonymity) without listing them.
    utility_constraints : None, "all", ItemGroups, mapping or list of item lists
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
    progress : callable(done, total, message), optional
        Progress callback.
    return_trace : bool
        Also return a :class:`CoatTrace` (merge/suppression history; it names
        the suppressed items, so keep it with the producer).
    unsafe_secret_seed : int, optional
        Tests only: fixes the secret row shuffle, which otherwise comes from
        operating-system entropy (:func:`~graphanon.release.publish`). Never
        recorded in the release.

    Returns
    -------
    GlobalRecoding
        Published items are sets labelled ``"(a,b)"`` (single items keep
        their label), rows in a secret random order; ``algorithm="coat"``. With ``return_trace``, the pair
        ``(release, trace)``.

    Raises
    ------
    InfeasibleError
        When satisfying a privacy constraint would suppress more than ``s``
        of the items: the message names the privacy constraint, the utility
        constraint and the suppression reached. No partial release is returned.
    ParameterError
        For bad ``k``, ``s``, constraints naming unknown items, or utility
        constraints that do not partition the items.

    Complexity
    ----------
    Each merge costs O(B * n / 64) word operations for the ``B`` members of
    the utility block (UL of every candidate through packed bitmaps); each
    constraint evaluation O(|p| * n / 64). With ``KmConstraints(m)`` the
    initial violations come from one level-wise search, and after each merge
    only the records of the merged item are searched again (new violations
    must contain it).

    Examples
    --------
    >>> from graphanon.datasets import load, load_constraints
    >>> data, c = load("coat_fig1"), load_constraints("coat_fig1")
    >>> rel = anonymize_coat(data, c["privacy"], c["utility"], k=c["k"], s=c["s"])
    >>> rel.render_record(int(rel.link.row_of_record[0]))   # record 0's published row
    '(a,b) c e f (g,h)'

    References
    ----------
    Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization
    of transactions. KAIS 2011, Sec. 4, Algorithms 1-3; tie and stall rules
    as fixed in graphanon's SPEC, Sec. 1.
    """
    k = check_k(k, max(data.n_records, 1))
    if isinstance(s, bool) or not isinstance(s, (int, float, np.floating)) or not 0.0 <= float(s) <= 1.0:
        raise ParameterError(
            f"s is the largest fraction of items that may be suppressed, in [0, 1] (0.15 or, on the "
            f"command line, 15%); got {s!r}"
        )
    block, blocks = as_utility_blocks(data, utility_constraints)
    wfun = _weight_function(data, weights)
    trace = CoatTrace()
    state = _CoatState(data, block, k, float(s), wfun, progress, trace)
    if isinstance(privacy_constraints, KmConstraints):
        _run_km(state, int(privacy_constraints.m))
        p_desc = f"all {privacy_constraints.m}-itemsets"
    else:
        if isinstance(privacy_constraints, (str, bytes)):
            raise ParameterError("privacy_constraints must be a list of item lists or KmConstraints(m)")
        constraints = _constraint_ids(data, list(privacy_constraints))
        _run_explicit(state, constraints)
        p_desc = f"{len(constraints)} constraints"
    mapping = {}
    for _g, mem in state.members.items():
        label = set_label([data.items[i] for i in sorted(mem)])
        for i in mem:
            mapping[data.items[i]] = label
    for i in np.flatnonzero(state.grp < 0):
        mapping[data.items[int(i)]] = None
    params = {"k": k, "s": float(s), "privacy": p_desc, "utility_blocks": len(blocks)}
    if suppression_penalty is not None and not callable(suppression_penalty):
        params["suppression_penalty"] = "custom"
    rel = GlobalRecoding.from_mapping(data, mapping, universe=data.n_items, algorithm="coat", params=params)
    rel = publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)
    if progress:
        progress(1, 1, f"done: {len(state.members)} published items, {state.n_suppressed} suppressed")
    return (rel, trace) if return_trace else rel


# ---------------------------------------------------------------------------- Pgen
def pgen(data, k: int) -> list[tuple]:
    """Privacy constraints from the data: the maximal infrequent records (Algorithm 4).

    A distinct record is returned when no other distinct record contains it
    and fewer than ``k`` records hold it. Since a maximal record is contained
    only in its own copies, both tests reduce to comparing its support with
    its multiplicity: ``sup(T) == copies(T) < k``.

    Parameters
    ----------
    data : TransactionData
    k : int

    Returns
    -------
    list of tuples of item labels
        In decreasing size, ties in order of first occurrence.

    Complexity
    ----------
    Deduplication by sorting per-record hash keys (vectorized), then one
    bitmap support per distinct record of multiplicity < k, batched by size:
    O(sum |T| * n / 64) word operations, no pairwise record loop.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> pgen(from_iterable([["a", "c", "f"], ["a", "c"], ["b", "h"]]), 2)
    [('a', 'c', 'f'), ('b', 'h')]

    References
    ----------
    Loukides et al., COAT, Sec. 5.1, Definition 5.1 and Algorithm 4.
    """
    k = check_k(k, max(data.n_records, 1))
    X = data.matrix
    X = sp.csr_array(X)
    X.sort_indices()
    n = X.shape[0]
    if n == 0:
        return []
    lengths = np.diff(X.indptr)
    rng = np.random.default_rng(0x5EED)
    r1 = rng.integers(1, 2**63 - 1, size=max(X.shape[1], 1), dtype=np.int64).astype(np.uint64)
    r2 = rng.integers(1, 2**63 - 1, size=max(X.shape[1], 1), dtype=np.int64).astype(np.uint64)
    nonempty = lengths > 0
    h1 = np.zeros(n, dtype=np.uint64)
    h2 = np.zeros(n, dtype=np.uint64)
    starts = X.indptr[:-1][nonempty]
    if X.nnz:
        h1[nonempty] = np.add.reduceat(r1[X.indices], starts)
        h2[nonempty] = np.add.reduceat(r2[X.indices] * np.uint64(3) + np.uint64(1), starts)
    order = np.lexsort((np.arange(n), h2, h1, lengths))
    key_change = np.ones(n, dtype=bool)
    key_change[1:] = (
        (lengths[order][1:] != lengths[order][:-1]) | (h1[order][1:] != h1[order][:-1]) | (h2[order][1:] != h2[order][:-1])
    )
    # Exact check of equal keys (guards against hash collisions): compare item lists.
    grp_first = order[np.maximum.accumulate(np.where(key_change, np.arange(n), 0))]
    same = ~key_change
    if same.any():
        rows = order[same]
        firsts = grp_first[same]
        ln = lengths[rows]
        seg_a = np.repeat(X.indptr[rows], ln) + (np.arange(ln.sum()) - np.repeat(np.cumsum(ln) - ln, ln))
        seg_b = np.repeat(X.indptr[firsts], ln) + (np.arange(ln.sum()) - np.repeat(np.cumsum(ln) - ln, ln))
        mism = X.indices[seg_a] != X.indices[seg_b]
        if mism.any():
            bad_rows = np.unique(np.repeat(np.arange(len(rows)), ln)[mism])
            key_change[np.flatnonzero(same)[bad_rows]] = True  # treat as distinct (vanishingly rare)
    group_id = np.cumsum(key_change) - 1
    n_groups = int(group_id[-1]) + 1
    copies = np.bincount(group_id, minlength=n_groups)
    first_pos = np.full(n_groups, n, dtype=np.int64)
    np.minimum.at(first_pos, group_id, order)
    cand = np.flatnonzero(copies < k)
    reps = first_pos[cand]
    reps = reps[lengths[reps] > 0]
    cand_copies = copies[group_id[np.argsort(order)][reps]]
    vb = VerticalBitmaps(X)
    sup = np.empty(len(reps), dtype=np.int64)
    rl = lengths[reps]
    for size in np.unique(rl):
        idx = np.flatnonzero(rl == size)
        for start in range(0, len(idx), 1024):
            part = idx[start : start + 1024]
            rows = reps[part]
            cols = X.indices[(X.indptr[rows][:, None] + np.arange(size)[None, :])]
            acc = vb.bits[cols[:, 0]].copy()
            for c in range(1, size):
                acc &= vb.bits[cols[:, c]]
            sup[part] = np.bitwise_count(acc).sum(axis=1)
    keep = reps[sup == cand_copies]
    keep = keep[np.lexsort((keep, -lengths[keep]))]
    items = data.items
    return [tuple(items[j] for j in X.indices[X.indptr[r] : X.indptr[r + 1]]) for r in keep.tolist()]


# ---------------------------------------------------------------------------- CLI adapter
def _read_constraint_file(path: str, data) -> list[list]:
    """A constraint file (format: :mod:`graphanon.constraints_io`), items matched to the data."""
    from graphanon.constraints_io import read_constraints

    return read_constraints(path, data)


def _bundled_constraints(data, which: str) -> list[list]:
    """The ``privacy`` or ``utility`` constraints shipped with the bundled example ``data.name``."""
    from graphanon.datasets import list_datasets, load_constraints

    shipping = [d["name"] for d in list_datasets() if "privacy_constraints" in d["extras"]]
    if data.name not in shipping:
        raise ParameterError(
            f"--param {which}=bundled: dataset {data.name!r} ships no constraints "
            f"(bundled ones: {', '.join(shipping)}); give a constraint file instead"
        )
    return load_constraints(data.name)[which]


def parse_privacy(spec: str, data, k: int):
    """CLI privacy spec: ``pgen``, ``km:M``, ``bundled`` or a constraint file path."""
    if spec == "pgen":
        return pgen(data, k)
    if spec == "bundled":
        return _bundled_constraints(data, "privacy")
    if spec.startswith("km:"):
        try:
            return KmConstraints(int(spec[3:]))
        except ValueError:
            raise ParameterError(f"--param privacy={spec!r}: km:M needs a whole number M") from None
    return _read_constraint_file(spec, data)


def parse_utility(spec: str, data, taxonomy):
    """CLI utility spec: ``all``, ``bundled``, ``groups:FILE`` or ``taxonomy-level:N``."""
    if spec == "all":
        return None
    if spec == "bundled":
        return _bundled_constraints(data, "utility")
    if spec.startswith("groups:"):
        return _read_constraint_file(spec[len("groups:") :], data)
    if spec.startswith("taxonomy-level:"):
        if taxonomy is None:
            raise ParameterError("--param utility=taxonomy-level:N needs --taxonomy FILE")
        try:
            depth = int(spec[len("taxonomy-level:") :])
        except ValueError:
            raise ParameterError(f"--param utility={spec!r}: N must be a whole number") from None
        return taxonomy.groups_at(depth)
    raise ParameterError(f"--param utility={spec!r}: use all, bundled, groups:FILE or taxonomy-level:N")


def parse_fraction(text: str) -> float:
    """``0.005`` or ``0.5%`` -> 0.005."""
    text = text.strip()
    if text.endswith("%"):
        return float(text[:-1]) / 100.0
    return float(text)


def _run(data, opts: RunOptions) -> GlobalRecoding:
    opts.unknown_params({"privacy", "utility", "s", "weights"})
    if opts.k is None:
        raise ParameterError("algorithm 'coat' needs -k K")
    privacy = opts.param("privacy", None, str)
    if privacy is not None:
        opts.refuse(("m",), f"--param privacy={privacy} sets COAT's privacy constraints (k^m ones: privacy=km:M)")
    elif opts.is_given("m") and opts.m is None:
        raise ParameterError("-m inf: COAT's k^m constraints need a whole number m (or --param privacy=pgen)")
    else:
        privacy = f"km:{opts.m}" if opts.m is not None else "pgen"
    P = parse_privacy(privacy, data, opts.k)
    U = parse_utility(opts.param("utility", "all", str), data, opts.taxonomy)
    s = opts.param("s", 0.005, parse_fraction)
    weights = opts.param("weights", "one", str)
    if weights not in ("one", "taxonomy"):
        raise ParameterError("--param weights= takes one or taxonomy")
    if weights == "taxonomy" and opts.taxonomy is None:
        raise ParameterError("--param weights=taxonomy needs --taxonomy FILE")
    if weights != "taxonomy" and not opts.param("utility", "all", str).startswith("taxonomy-level:"):
        opts.refuse(("taxonomy",), "COAT reads a taxonomy only with --param weights=taxonomy or utility=taxonomy-level:N")
    return anonymize_coat(
        data, P, U, k=opts.k, s=s, weights=opts.taxonomy if weights == "taxonomy" else None, progress=opts.progress,
        unsafe_secret_seed=opts.unsafe_secret_seed,
    )


register(
    AlgorithmSpec(
        name="coat",
        summary=(
            "COAT set-based generalization under constraints (--param privacy=pgen|km:M|bundled|FILE "
            "utility=all|bundled|groups:FILE|taxonomy-level:N s=0.5% weights=one|taxonomy)"
        ),
        run=_run,
        privacy_model="constraints",
        needs_taxonomy=False,
        params=("privacy", "utility", "s", "weights"),
        audit_params=("privacy", "utility", "s"),
    )
)
