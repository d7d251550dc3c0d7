"""Graphs of COAT: the constraint graph and the merge-history forest.

* :class:`ConstraintGraph` - the bipartite graph items <-> privacy
  constraints (an item is linked to every constraint that names it), with
  the utility partition as a third kind of node (item -> its block).
* :class:`MergeForest` - how published item sets were built: each merged set
  is a node whose two children are the sets merged; leaves are original
  items; suppressed sets are marked.

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. KAIS 2011, Sec. 3 (Figs. 1, 4 and 5 draw these structures).
"""

from __future__ import annotations

from collections.abc import Hashable

import networkx as nx

from graphanon.taxonomy.constraint_sets import as_utility_blocks
from graphanon.utils.labels import set_label

__all__ = ["ConstraintGraph", "MergeForest"]


class ConstraintGraph:
    """Items, privacy constraints and utility constraints as one graph.

    Parameters
    ----------
    data : TransactionData
    privacy_constraints : list of item lists
    utility_constraints : None, "all", ItemGroups, mapping or list of item lists

    Examples
    --------
    >>> from graphanon.datasets import load, load_constraints
    >>> c = load_constraints("coat_fig1")
    >>> g = ConstraintGraph(load("coat_fig1"), c["privacy"], c["utility"]).to_networkx()
    >>> g.number_of_nodes(), g.number_of_edges()  # 8 items + 2 constraints + 4 blocks
    (14, 16)
    """

    def __init__(self, data, privacy_constraints, utility_constraints=None) -> None:
        self.items = list(data.items)
        self.supports = dict(zip(data.items, data.supports().tolist(), strict=True))
        self.privacy = [tuple(p) for p in privacy_constraints]
        block, self.blocks = as_utility_blocks(data, utility_constraints)
        self.block_of = {x: int(b) for x, b in zip(data.items, block.tolist(), strict=True)}

    def to_networkx(self) -> nx.Graph:
        """Nodes ``("item", x)``, ``("constraint", i)``, ``("block", b)`` with a ``kind`` attribute.

        Edges have ``kind`` ``"privacy"`` (item - constraint) or ``"utility"`` (item -
        block).
        """
        g = nx.Graph()
        for x in self.items:
            g.add_node(("item", x), kind="item", label=str(x), support=self.supports[x], block=self.block_of[x])
        for i, p in enumerate(self.privacy):
            g.add_node(("constraint", i), kind="constraint", label="".join(map(str, p)) if all(
                len(str(x)) == 1 for x in p) else ",".join(map(str, p)), items=p)
            for x in p:
                g.add_edge(("item", x), ("constraint", i), kind="privacy")
        for b, members in enumerate(self.blocks):
            g.add_node(("block", b), kind="block", label=f"u{b + 1}", items=tuple(members))
            for x in members:
                g.add_edge(("item", x), ("block", b), kind="utility")
        return g


class MergeForest:
    """The merge history of a COAT run as a forest.

    Parameters
    ----------
    trace : CoatTrace
        From ``anonymize_coat(...)``.
    items : sequence, optional
        All original items (so that untouched items appear as single-node trees).

    Examples
    --------
    >>> from graphanon.algorithms.coat import anonymize_coat
    >>> from graphanon.datasets import load, load_constraints
    >>> data, c = load("coat_fig1"), load_constraints("coat_fig1")
    >>> trace = anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=5, s=0.15).trace
    >>> f = MergeForest(trace, data.items).to_networkx()
    >>> sorted(n for n in f if f.out_degree(n))
    ['(a,b)', '(g,h)']
    """

    def __init__(self, trace, items=None) -> None:
        self.steps = list(trace.steps)
        self.items = list(items) if items is not None else []

    def to_networkx(self) -> nx.DiGraph:
        """Edges parent set -> the two sets merged into it.

        Node attributes ``members``, ``step`` (when created), ``support`` and
        ``suppressed``.
        """
        g = nx.DiGraph()

        def node(members: tuple) -> Hashable:
            label = set_label(list(members))
            if label not in g:
                g.add_node(label, members=tuple(members), step=None, support=None, suppressed=False)
            return label

        for x in self.items:
            node((x,))
        for st in self.steps:
            if st.kind == "merge":
                parent = node(st.result)
                g.nodes[parent].update(step=st.step, support=st.support, constraint=st.constraint)
                for part in st.items:
                    g.add_edge(parent, node(part))
            else:
                n = node(st.items[0])
                g.nodes[n].update(suppressed=True, step=st.step, support=st.support)
        return g

    def roots(self) -> list:
        """The published (or suppressed) sets: nodes without a parent."""
        g = self.to_networkx()
        return [n for n in g if g.in_degree(n) == 0]
