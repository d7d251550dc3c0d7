"""The search record of HgHs/mHgHs: rounds, moves and evaluated candidates (``release.trace.search``).

Split from :mod:`graphanon.algorithms.hierarchy.hghs` (issue 12: modules under ~500 lines); import
:class:`SearchRound` and :class:`HierarchySearch` from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from graphanon.algorithms.hierarchy._index import HierarchyIndex, ThreatSet, evaluate_cut
from graphanon.taxonomy.tree import Taxonomy

__all__ = ["CutReplay", "HierarchySearch", "SearchRound", "WalkStep"]


class CutReplay:
    """The cuts of one walk, replayed from its start and its expanded nodes on demand.

    A walk on a large taxonomy makes thousands of moves over cuts of
    thousands of nodes; storing every visited cut and scenario would take
    O(moves x cut) time and memory. Instead the walk records the expanded
    node of each move here, and a step's cut is rebuilt by replaying the
    expansions (O(moves x fan-out + nodes); the last replayed cut is kept, so
    reading the steps in order costs O(total moves x fan-out + nodes) per
    read) and its suppression scenario by evaluating that cut
    (:func:`~graphanon.algorithms.hierarchy._index.evaluate_cut`, the same
    evaluation the walk made).
    """

    def __init__(self, index: HierarchyIndex, threats: ThreatSet, start: np.ndarray) -> None:
        self.index, self.threats = index, threats
        self.start = np.asarray(start, dtype=np.int64)
        self.expanded: list[int] = []
        self._at: tuple[int, np.ndarray] | None = None  # (step, node mask) of the last replayed cut

    def positions(self, step: int) -> np.ndarray:
        """The cut after move ``step`` (0-based; -1: the start), as sorted node positions."""
        if self._at is None or self._at[0] > step:
            mask = np.zeros(self.index.n_nodes, dtype=bool)
            mask[self.start] = True
            self._at = (-1, mask)
        at, mask = self._at
        for x in self.expanded[at + 1 : step + 1]:
            mask[x] = False
            mask[self.index.children(x)] = True
        self._at = (step, mask)
        return np.flatnonzero(mask)

    def cut(self, step: int) -> list:
        return self.index.labels(self.positions(step))

    def suppressed(self, step: int) -> list:
        sup = evaluate_cut(self.index, self.threats, self.positions(step))[3]
        return self.index.labels(np.sort(sup))


class WalkStep(Mapping):
    """One move of the walk, read like a dict (see :attr:`SearchRound.steps`).

    ``cut`` and ``suppressed`` are rebuilt on access by the round's
    :class:`CutReplay`; the other entries are stored.
    """

    _KEYS = ("expanded", "cut", "cost", "cost_generalization", "cost_suppression", "suppressed", "candidates")

    def __init__(self, replay: CutReplay, step: int, x: int, cost: float, g: float, s: float, candidates) -> None:
        replay.expanded.append(int(x))
        self._replay, self._step = replay, step
        self._values = {
            "expanded": replay.index.nodes[int(x)], "cost": cost, "cost_generalization": g,
            "cost_suppression": s, "candidates": candidates,
        }

    def __getitem__(self, key):
        if key == "cut":
            return self._replay.cut(self._step)
        if key == "suppressed":
            return self._replay.suppressed(self._step)
        return self._values[key]

    def __iter__(self):
        return iter(self._KEYS)

    def __len__(self) -> int:
        return len(self._KEYS)

    def __repr__(self) -> str:
        return f"WalkStep(expanded={self._values['expanded']!r}, cost={self._values['cost']!r})"


@dataclass
class SearchRound:
    """One top-down walk of the cut lattice (one HgHs run / one mHgHs round).

    Attributes
    ----------
    k, m : int, int or None
        The round enforces k^m-anonymity.
    start : list
        The starting cut (``[root]``).
    steps : list of mappings
        One per move (a read-only :class:`WalkStep` mapping): ``expanded``
        (the node replaced by its children), ``cut``, ``cost``,
        ``cost_generalization``, ``cost_suppression``, ``suppressed``
        (labels) of the cut moved to, and ``candidates``: the evaluated child
        cuts as ``(expanded node, cost, n_suppressed)`` (None once a round has
        kept 200,000 of them: large taxonomies keep the path only). ``cut``
        and ``suppressed`` are rebuilt when read.
    start_cost : tuple
        (cost, cost_G, cost_S, suppressed labels) of the starting cut.
    final_candidates : list or None
        The child cuts evaluated at the stopping cut (none was cheaper); None
        when there were too many to keep.
    n_threats : int
        Minimal threats the round used: of all cuts of this round's
        taxonomy, or with k^2 (HgHs with ``m=2``, mHgHs round 2) those the
        walk mined, lying within its near set (the cuts it visited and their
        child cuts).
    allowed : list or None
        Nodes of the reduced taxonomy (None: the whole taxonomy).
    frontier : list or None
        The previous round's cut, whose nodes are the leaves of the reduced
        taxonomy (None in the first round and for HgHs).
    """

    k: int
    m: int | None
    start: list
    start_cost: tuple
    steps: list = field(default_factory=list, repr=False)
    final_candidates: list | None = field(default_factory=list, repr=False)
    n_threats: int = 0
    allowed: list | None = field(default=None, repr=False)
    frontier: list | None = field(default=None, repr=False)

    def cuts(self) -> list[list]:
        """The cuts visited, from the start to the chosen one (labels, preorder)."""
        out = [list(self.start)]
        for st in self.steps:
            out.append(list(st["cut"]))
        return out

    @property
    def cut(self) -> list:
        return list(self.steps[-1]["cut"]) if self.steps else list(self.start)

    @property
    def suppressed(self) -> list:
        return list(self.steps[-1]["suppressed"]) if self.steps else list(self.start_cost[3])

    @property
    def cost(self) -> float:
        return self.steps[-1]["cost"] if self.steps else self.start_cost[0]


@dataclass
class HierarchySearch:
    """What HgHs/mHgHs did: ``release.trace.search`` (see :class:`~graphanon.algorithms.hierarchy.cut.HierarchyTrace`).

    Attributes
    ----------
    taxonomy : Taxonomy
    rounds : list of SearchRound
        One for HgHs, one per round for mHgHs.
    cut, suppressed : list
        The chosen cut and suppression scenario (labels).
    cost_generalization, cost_suppression : float
        ``cost_G(Cut)`` and ``cost_S(SS)``; their sum is the total cost.
    """

    taxonomy: Taxonomy = field(repr=False)
    rounds: list = field(repr=False)
    cut: list
    suppressed: list
    cost_generalization: float
    cost_suppression: float
    _index: HierarchyIndex | None = field(default=None, repr=False)
    _threats: ThreatSet | None = field(default=None, repr=False)

    @property
    def cost(self) -> float:
        return self.cost_generalization + self.cost_suppression

    def lattice(self, round: int = -1):
        """The :class:`~graphanon.graphs.CutLattice` of a round with its search path."""
        from graphanon.graphs.lattice import CutLattice

        rnd = self.rounds[round]
        lat = CutLattice(self.taxonomy, frontier=rnd.frontier)
        cuts = [lat.key(c) for c in rnd.cuts()]
        lat.path = cuts
        lat.costs[cuts[0]] = rnd.start_cost[0]
        candidates = [st["candidates"] for st in rnd.steps] + [rnd.final_candidates]
        for cut, cands in zip(cuts, candidates, strict=True):
            if cands is None:  # not kept on a large taxonomy (see SearchRound.steps)
                continue
            children = dict(lat.children(cut))
            for node, cost, _ in cands:
                lat.costs[children[node]] = cost
        return lat

    def enumeration_tree(self):
        """The :class:`~graphanon.graphs.SuppressionEnumerationTree` of the chosen cut."""
        from graphanon.graphs.enumeration import SuppressionEnumerationTree

        idx, thr = self._index, self._threats
        cut = idx.positions(self.cut)
        order = idx.by_rank[np.isin(idx.by_rank, cut)]
        threats = [idx.labels(t) for t in thr.within(order)]
        costs = {idx.nodes[i]: float(idx.sup_cost[i]) for i in order}
        return SuppressionEnumerationTree(idx.labels(order), threats, costs)
