"""The suppression scenario enumeration tree of one cut (Liu & Wang, Sec. 3.2).

Each tree node is a pair (headlist, taillist) of cut nodes: the headlist is
kept, everything else is suppressed. The root has an empty headlist and the
whole cut (in descending suppression cost) as taillist; the j-th child of a
node moves the j-th taillist item to the headlist and keeps the suffix after
it as taillist. A node is *valid* when its headlist contains no minimal
threat; descendants of an invalid node are invalid. HgHs descends greedily to
the first valid child until none is left: the suppression scenario is the
cut minus that node's headlist.

References
----------
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Sec. 3.2, Fig. 2 (b).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping, Sequence

import networkx as nx

__all__ = ["SuppressionEnumerationTree"]


class SuppressionEnumerationTree:
    """Lazy set-enumeration tree of the suppression scenarios of one cut.

    Parameters
    ----------
    order : sequence
        The cut's nodes in descending suppression cost (the root's taillist).
    threats : iterable of iterables
        The minimal threats within the cut.
    costs : mapping, optional
        Suppression cost ``O(x) * IL_S(x)`` of each cut node.

    Notes
    -----
    Complexity: validity of a node is O(threats of its last item x threat size);
    :meth:`greedy_path` is O(|cut| * (|cut| + threat incidences)) at worst.

    Examples
    --------
    >>> t = SuppressionEnumerationTree(["Q", "K", "H", "e", "i"], [["H", "K", "Q"], ["e", "i"]])
    >>> [head for head, _ in t.greedy_path()]
    [(), ('Q',), ('Q', 'K'), ('Q', 'K', 'e')]
    >>> t.suppressed(t.greedy_path()[-1])
    ['H', 'i']
    """

    def __init__(
        self,
        order: Sequence[Hashable],
        threats: Iterable[Iterable[Hashable]],
        costs: Mapping[Hashable, float] | None = None,
    ) -> None:
        self.order = tuple(order)
        self.threats = [frozenset(t) for t in threats]
        self.costs = dict(costs or {})
        self._by_item: dict = {}
        for t in self.threats:
            for x in t:
                self._by_item.setdefault(x, []).append(t)

    def root(self) -> tuple:
        """The root node: nothing kept yet, every item of the order still to decide."""
        return ((), self.order)

    def children(self, node: tuple) -> list[tuple]:
        """The children of ``node``: one more item kept, taken from the items still to decide."""
        head, tail = node
        return [(head + (x,), tail[j + 1 :]) for j, x in enumerate(tail)]

    def is_valid(self, node: tuple) -> bool:
        """No minimal threat is contained in the headlist."""
        head = set(node[0])
        return not any(t <= head for x in node[0] for t in self._by_item.get(x, ()))

    def suppressed(self, node: tuple) -> list:
        """The items ``node`` suppresses (those of the order it does not keep)."""
        head = set(node[0])
        return [x for x in self.order if x not in head]

    def suppression_cost(self, node: tuple) -> float:
        """The total cost of the items ``node`` suppresses."""
        return float(sum(self.costs.get(x, 0.0) for x in self.suppressed(node)))

    def greedy_path(self) -> list[tuple]:
        """Root, then repeatedly the first valid child, until none is valid."""
        node = self.root()
        path = [node]
        while True:
            head, tail = node
            nxt = None
            for j, x in enumerate(tail):
                cand = (head + (x,), tail[j + 1 :])
                if self.is_valid(cand):
                    nxt = cand
                    break
            if nxt is None:
                return path
            node = nxt
            path.append(node)

    def to_networkx(self, *, max_nodes: int = 40) -> nx.DiGraph:
        """A bounded breadth-first part of the tree plus the whole greedy path.

        The greedy path and the invalid children it rejected are always
        included; ``max_nodes`` bounds the breadth-first part.

        Nodes are ``(headlist, taillist)`` tuples with attributes ``head``,
        ``tail``, ``valid``, ``on_path`` and ``cost`` (suppression cost);
        invalid nodes are not expanded (their subtrees are invalid).
        """
        g = nx.DiGraph()
        path = self.greedy_path()
        on_path = set(path)

        def add(n):
            if n not in g:
                g.add_node(n, head=list(n[0]), tail=list(n[1]), valid=self.is_valid(n), on_path=n in on_path,
                           cost=self.suppression_cost(n))

        for a, b in zip(path, path[1:], strict=False):
            add(a)
            add(b)
            g.add_edge(a, b, on_path=True)
        add(path[0])
        for i, n in enumerate(path):  # the rejected (invalid) children before each greedy choice
            nxt = path[i + 1] if i + 1 < len(path) else None
            for c in self.children(n):
                if c == nxt:
                    break
                add(c)
                g.add_edge(n, c, on_path=False)
        queue = deque([path[0]])
        while queue and g.number_of_nodes() < max_nodes:
            n = queue.popleft()
            if not g.nodes[n]["valid"]:
                continue
            for c in self.children(n):
                if c not in g and g.number_of_nodes() >= max_nodes:
                    break
                add(c)
                if not g.has_edge(n, c):
                    g.add_edge(n, c, on_path=False)
                queue.append(c)
        return g

    def __repr__(self) -> str:
        """A short summary: cut size and number of threats."""
        return f"<SuppressionEnumerationTree: cut of {len(self.order)} nodes, {len(self.threats)} threats>"
