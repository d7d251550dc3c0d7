"""The search record of HgHs/mHgHs: rounds, moves and evaluated candidates (``release.trace.search``).

Split from :mod:`graphanon.algorithms.hghs` (issue 12: modules under ~500 lines); import
:class:`SearchRound` and :class:`HierarchySearch` from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphanon.algorithms._hierarchy import HierarchyIndex, ThreatSet
from graphanon.taxonomy import Taxonomy

__all__ = ["HierarchySearch", "SearchRound"]


@dataclass
class SearchRound:
    """One top-down walk of the cut lattice (one HgHs run / one mHgHs round).

    Attributes
    ----------
    k, m : int, int or None
        The round enforces k^m-anonymity.
    start : list
        The starting cut (``[root]``).
    steps : list of dict
        One per move: ``expanded`` (the node replaced by its children),
        ``cost``, ``cost_generalization``, ``cost_suppression``,
        ``suppressed`` (labels) of the cut moved to, and ``candidates``: the
        evaluated child cuts as ``(expanded node, cost, n_suppressed)``.
    start_cost : tuple
        (cost, cost_G, cost_S, suppressed labels) of the starting cut.
    final_candidates : list
        The child cuts evaluated at the stopping cut (none was cheaper).
    n_threats : int
        Minimal threats of all cuts of this round's taxonomy.
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
    final_candidates: list = field(default_factory=list, repr=False)
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
        return self.cuts()[-1]

    @property
    def suppressed(self) -> list:
        return list(self.steps[-1]["suppressed"]) if self.steps else list(self.start_cost[3])

    @property
    def cost(self) -> float:
        return self.steps[-1]["cost"] if self.steps else self.start_cost[0]


@dataclass
class HierarchySearch:
    """What HgHs/mHgHs did: ``release.trace.search`` (see :class:`~graphanon.algorithms.cut.HierarchyTrace`).

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
        order = cut[np.argsort(idx.rank[cut], kind="stable")]
        threats = [idx.labels(t) for t in thr.within(order)]
        costs = {idx.nodes[i]: float(idx.sup_cost[i]) for i in order}
        return SuppressionEnumerationTree(idx.labels(order), threats, costs)
