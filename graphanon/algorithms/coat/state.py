"""The state of a COAT run.

Published groups with packed record bitmaps, utility blocks, supports and utility loss (UL, Loukides
et al. Sec. 3.3).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import bitmap_supports, generalize_matrix, sparse_bitmaps
from graphanon.errors import InfeasibleError, InternalError, ParameterError
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.labels import set_label

LN2 = math.log(2.0)


def weight_function(data, weights):
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


@dataclass(frozen=True)
class CoatTrace:
    """What a COAT run did (``release.trace``; in memory only, never saved).

    Attributes
    ----------
    steps : tuple of MergeStep
        The merges and suppressions, in order.
    constraints_processed : int
        Privacy constraints taken from the queue.
    violations_found : int
        Unsatisfied constraints found (k^m search).
    suppressed : tuple
        Labels of the suppressed items (keep the trace with the producer).
    """

    steps: tuple = ()
    constraints_processed: int = 0
    violations_found: int = 0
    suppressed: tuple = ()


@dataclass
class RunLog:
    """The mutable record a run keeps while it works; frozen into a :class:`CoatTrace` at the end."""

    steps: list[MergeStep] = field(default_factory=list)
    constraints_processed: int = 0
    violations_found: int = 0
    suppressed: list = field(default_factory=list)

    def freeze(self) -> CoatTrace:
        """The frozen trace of the run (steps, constraints processed, violations, suppressed items)."""
        return CoatTrace(tuple(self.steps), self.constraints_processed, self.violations_found, tuple(self.suppressed))


def nonzero_words(bits: np.ndarray) -> np.ndarray:
    """A one-bit-per-word index of packed bitmaps.

    Bit ``w`` of row ``g`` is set when word ``w`` of ``bits[g]`` is nonzero (so an AND of rows
    need only visit the words set in all of them).
    """
    packed = np.packbits(bits != 0, axis=1, bitorder="little")
    packed = np.pad(packed, ((0, 0), (0, -packed.shape[1] % 8)))
    return np.ascontiguousarray(packed).view(np.uint64)


# ---------------------------------------------------------------------------- engine
class CoatState:
    """Published groups with packed record bitmaps, the utility blocks and the loop."""

    def __init__(self, data, block, k, s, weights, progress, trace):
        self.data = data
        self.n = data.n_records
        self.M = data.n_items
        self.k = k
        self.max_suppressed = math.floor(s * self.M + 1e-9)
        self.s = s
        vb = sparse_bitmaps(data.matrix)
        self.bits = vb.bits  # row g: bitmap of group whose representative is g
        self.words = nonzero_words(self.bits)  # row g: which words of bits[g] are nonzero
        self.grp = np.arange(self.M, dtype=np.int64)  # group representative of each item, -1 = suppressed
        self.members: dict[int, list[int]] = {i: [i] for i in range(self.M)}
        self.sup = np.bitwise_count(self.bits).sum(axis=1).astype(np.int64)
        self.block = np.asarray(block, dtype=np.int64)
        self.live: dict[int, set] = {}
        for i in range(self.M):
            self.live.setdefault(int(block[i]), set()).add(i)
        # Array mirrors of the groups for the vectorized partner search: whether a representative
        # is live (neither merged away nor suppressed), its smallest member, its size.
        self.is_live = np.ones(self.M, dtype=bool)
        self.min_member = np.arange(self.M, dtype=np.int64)
        self.rep_of_min = np.arange(self.M, dtype=np.int64)  # live group whose smallest member is i, or -1
        self.size = np.ones(self.M, dtype=np.int64)
        self.one_block = bool(self.M == 0 or (self.block == self.block[0]).all())
        self.weights = weights
        self.lca = {}
        if weights is not None and weights[0] == "taxonomy":
            tax = weights[1]
            self.tax_total = len(tax.leaves)
            self.lca = {i: data.items[i] for i in range(self.M)}
        self.n_suppressed = 0
        self.changed_at = np.zeros(self.M, dtype=np.int64)  # clock of the last merge into each group
        self.clock = 0
        self.progress = progress
        self.trace = trace
        self.listeners: list[Callable[[str, int, list], None]] = []

    # -------------------------------------------------------------- supports
    def support_of(self, groups: Sequence[int]) -> int:
        """Records holding every published item of ``groups`` (all records for none)."""
        if len(groups) == 0:
            return self.n
        if len(groups) == 1:
            return int(self.sup[groups[0]])
        acc = np.bitwise_and.reduce(self.bits[np.asarray(groups)], axis=0)
        return int(np.bitwise_count(acc).sum())

    def supports_of(self, itemsets: list[tuple]) -> np.ndarray:
        """Supports of many group itemsets at once (:func:`graphanon.counting.support.bitmap_supports`; empty -> n)."""
        return bitmap_supports(self.bits, itemsets, self.n)

    def groups_of(self, items: np.ndarray) -> list[int]:
        """The published groups of ``items``, each once, in the order first met."""
        g = self.grp[items]
        out: list[int] = []
        seen = set()
        for x in g.tolist():
            if x >= 0 and x not in seen:
                seen.add(x)
                out.append(x)
        return out

    def labels(self, g: int) -> tuple:
        """The original item labels of published group ``g``, sorted by item id."""
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
        """The live group of ``g``'s utility block whose merge with ``g`` has the least UL.

        UL of the merged set: ``(2^size - 1) * weight * support``; the support of
        the union is ``sup(g) + sup(h) - co-support(g, h)``, the co-supports all
        counted at once on the records of ``g`` (their items, mapped to groups,
        each group once per record). Ties: input order (the smallest member, i.e.
        the item order of the data's vocabulary / block listing). With weight 1
        only the first candidate of least union per merged size is scored (the
        others cannot be least, see :func:`~._kernels.partner_candidates`).
        Raises InternalError when the compiled search offers anything else (-1,
        ``g``, a merged or suppressed group, another block): code that does not
        match its source.
        Complexity: O(items + n / 64 + total length of ``g``'s records).
        """
        # numba: compiled on first use
        from graphanon.algorithms.coat._kernels import partner_candidates

        X = self.data.matrix
        cands, union = partner_candidates(g, self.bits, X.indptr, X.indices, self.grp, self.rep_of_min, self.block,
                                          self.one_block, self.sup, self.size, self.weights is None)
        if not len(cands):
            return None
        union = union.astype(np.float64)
        size = (self.size[cands] + self.size[g]).astype(np.float64)
        log_count = size * LN2 + np.log1p(-np.exp2(-size))  # log(2^size - 1)
        key = log_count + self._log_weight(g, cands) + np.log(np.maximum(union, 0.5))
        h = int(cands[int(np.argmin(key))])
        if not (0 <= h < self.M and h != g and self.is_live[h] and self.block[h] == self.block[g]):
            # Unreachable with the kernel's source; seen once when a process ran machine code that
            # another source had left in numba's cache (graphanon.utils.numba_cache).
            raise InternalError(
                f"the compiled partner search (coat/_kernels.py) offered {h} as a merge partner of published "
                f"item {g}, which is not a live published item of its utility block: the machine code run "
                f"does not match the source; delete graphanon's __pycache__ folders (numba's cache) and rerun"
            )
        return h

    # -------------------------------------------------------------- operations
    def merge(self, g: int, h: int, constraint: tuple) -> int:
        """Merge groups ``g`` and ``h`` (for ``constraint``); return the surviving group."""
        if len(self.members[g]) < len(self.members[h]):
            g, h = h, g
        before = (self.labels(h), self.labels(g)) if min(self.members[h]) < min(self.members[g]) else (
            self.labels(g), self.labels(h))
        self.bits[g] |= self.bits[h]
        self.words[g] |= self.words[h]
        self.sup[g] = int(np.bitwise_count(self.bits[g]).sum())
        mh = self.members.pop(h)
        self.members[g].extend(mh)
        self.is_live[h] = False
        self.rep_of_min[self.min_member[h]] = -1
        self.rep_of_min[self.min_member[g]] = -1
        self.min_member[g] = min(self.min_member[g], self.min_member[h])
        self.rep_of_min[self.min_member[g]] = g
        self.size[g] += self.size[h]
        self.grp[np.asarray(mh)] = g
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
        """Suppress group ``g`` (for ``constraint``); raise when the suppression budget is exceeded."""
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
        self.is_live[g] = False
        self.rep_of_min[self.min_member[g]] = -1
        self.grp[np.asarray(mem)] = -1
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
        while (pub := self._unsatisfied(items)) is not None:
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
                    break  # nothing can be merged: suppression phase
        else:
            return  # satisfied without suppressing
        # Suppression phase (steps 11-14): least-supported published items first.
        while (pub := self._unsatisfied(items)) is not None:
            g = pub[int(np.argmin(self.sup[np.asarray(pub)]))]
            self.suppress(g, constraint)

    def _unsatisfied(self, items: np.ndarray):
        """The published items of ``items`` while their itemset has support in (0, k), else None."""
        pub = self.groups_of(items)
        if not pub:
            return None
        sup = self.support_of(pub)
        return None if sup >= self.k or sup == 0 else pub

    # -------------------------------------------------------------- violation search on published groups
    def violating_subset(self, groups: list[int]) -> list[int] | None:
        """A subset of ``groups`` with support in (0, k), or None (level-wise, bitmaps)."""
        k = self.k
        arr = np.asarray(groups)
        s1 = self.sup[arr]
        bad = np.flatnonzero((s1 > 0) & (s1 < k))
        if len(bad):
            return [groups[int(bad[np.argmax(s1[bad])])]]
        freq: list[tuple[int, ...]] = [(g,) for g, s in zip(groups, s1.tolist(), strict=False) if s >= k]
        maps: dict[tuple[int, ...], np.ndarray] = {(g,): self.bits[g] for g, in freq}
        size = 1
        while len(freq) > 1 and size < len(groups):
            size += 1
            nxt: list[tuple[int, ...]] = []
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
        """The published records (of ``rows``, default all) as a matrix over the groups, without group ``drop``."""
        X = self.data.matrix if rows is None else self.data.matrix[rows]
        code = self.grp.copy()
        if drop is not None:
            code[code == drop] = -1
        return generalize_matrix(X, code, self.M)
