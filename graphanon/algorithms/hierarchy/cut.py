"""Apply a user-given taxonomy cut (with optional suppression) as a global recoding.

The simplest hierarchy-based anonymizer, and a real tool in itself: a data
custodian chooses the level of detail to publish (say, product categories
instead of products), suppresses a few nodes, and audits the result.

References
----------
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 2 (cuts and full-subtree recoding).
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Sec. 2 (cut plus suppression scenario, LM cost).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np

from graphanon.algorithms.declaration import (
    COARSENED_TO_PRIORS,
    Advice,
    MethodDeclaration,
    Required,
)
from graphanon.algorithms.hierarchy._declared import CUT_PARAMS, prepare_cut
from graphanon.algorithms.prior import as_priors, coarsened_cut
from graphanon.counting.containment import record_supports
from graphanon.counting.support import generalize_matrix, minimal_infrequent_itemsets
from graphanon.errors import InfeasibleError, ParameterError, TaxonomyError
from graphanon.metrics.loss import ncp
from graphanon.release import GlobalRecoding
from graphanon.release.publish import publish
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.docs import fill_doc
from graphanon.utils.labels import as_labels
from graphanon.utils.params import COMMON, NO_VALIDATION, ExactlyOne, Interval, validate_params
from graphanon.utils.progress import ProgressCallback, report

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["HierarchyTrace", "anonymize_cut", "cover_cut", "cut_recoding", "public_taxonomy_recoding"]


@dataclass(frozen=True)
class HierarchyTrace:
    """What a hierarchy method chose (``release.trace`` of cut, AA, HgHs, mHgHs and MM).

    In memory only, for drawings and experiments: the release file names no
    suppressed node (``params["n_suppressed_nodes"]`` counts them).

    Attributes
    ----------
    cut : tuple or None
        The full cut (taxonomy nodes, suppressed ones included); None for
        MM, which generalizes nothing.
    suppressed : tuple
        The suppressed cut nodes (MM: the suppressed items).
    search : HierarchySearch or None
        HgHs/mHgHs only: the search path (rounds, steps, evaluated children),
        with ``search.lattice()`` and ``search.enumeration_tree()`` for the
        drawings in :mod:`graphanon.viz.hierarchy`.
    """

    cut: tuple | None
    suppressed: tuple
    search: Any = field(default=None, repr=False)


def cut_recoding(
    data,
    taxonomy: Taxonomy,
    cut: Iterable[Hashable],
    suppress: Iterable[Hashable] = (),
    *,
    algorithm: str = "cut",
    params: dict | None = None,
) -> GlobalRecoding:
    """Recode ``data`` by the taxonomy ``cut``, suppressing the cut nodes in ``suppress``.

    A building block: the result is row-aligned with ``data`` and not yet
    published (anonymizers end with :func:`~graphanon.release.publish`).

    Parameters
    ----------
    data : TransactionData
        Items must be leaves of ``taxonomy``.
    taxonomy : Taxonomy
        The item hierarchy.
    cut : iterable of nodes
        Exactly one node on every root-to-leaf path (validated).
    suppress : iterable of nodes
        Cut nodes removed from every record (a suppression scenario).
    algorithm, params :
        Provenance recorded in the release.

    Returns
    -------
    GlobalRecoding
        Each leaf maps to its cut node (``leaves`` = the node's leaf count,
        ``universe`` = the taxonomy's leaf count, so that NCP is the LM cost).
        ``release.trace`` is a :class:`HierarchyTrace` (the full ``cut`` and
        the suppressed nodes), in memory only: a saved release names no
        suppressed node, ``params["n_suppressed_nodes"]`` counts them.

    Notes
    -----
    Complexity: O(nodes + occurrences).

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = cut_recoding(data, tax, ["P", "f", "g", "M", "e", "i"], suppress=["i"])
    >>> rel.render_record(2)
    'P f M'
    """
    taxonomy.check_covers(data.items)
    cut = taxonomy.validate_cut(cut)
    suppress = list(as_labels(suppress, "taxonomy node"))
    cut_set = set(cut)
    for node in suppress:
        if node not in cut_set:
            raise TaxonomyError(f"cannot suppress {node!r}: it is not a node of the cut {cut}")
    suppressed = set(suppress)
    leaf_to_node = taxonomy.cut_map(cut)
    mapping = {item: (None if leaf_to_node[item] in suppressed else leaf_to_node[item]) for item in data.items}
    leaves = {node: taxonomy.leaf_count(node) for node in cut}
    rel = GlobalRecoding.from_mapping(
        data,
        mapping,
        leaves=leaves,
        universe=len(taxonomy.leaves),
        algorithm=algorithm,
        params={"n_suppressed_nodes": len(suppress), **(params or {})},
    )
    rel.trace = HierarchyTrace(cut=tuple(cut), suppressed=tuple(suppress))
    return rel


@validate_params(
    {"level": [Interval(Integral, 0, None), None], "public_taxonomy": ["boolean"], **COMMON,
     "cut": [None, Iterable], "suppress": [Iterable], "priors": NO_VALIDATION, "taxonomy": [Taxonomy]},
    meanings={"level": "a taxonomy depth, 0 = the root"},
    rules=[ExactlyOne(("cut", "level"), "cut: a list of nodes, level: a taxonomy depth")],
)
@fill_doc(secret='the row shuffle')
def anonymize_cut(
    data: TransactionData,
    *,
    taxonomy: Taxonomy,
    cut: Iterable[Hashable] | None = None,
    level: int | None = None,
    suppress: Iterable[Hashable] = (),
    public_taxonomy: bool = False,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    priors=None,
) -> GlobalRecoding:
    """Publish ``data`` generalized to a cut given by nodes or by taxonomy depth.

    Parameters
    ----------
    data : TransactionData
    taxonomy : Taxonomy
    cut : iterable of nodes, optional
        The cut's nodes.
    level : int, optional
        Instead of ``cut``: the cut :meth:`Taxonomy.level` ``(level)``
        (0 = root only; the height = the leaves).
    suppress : iterable of nodes
        Cut nodes to suppress.
    %(unsafe_secret_seed)s
    progress : callable(done, total, message), optional
        Called once when the recoding is done.
    priors : release, Prior, or a sequence of them, optional
        Earlier global recodings of ``data``: the cut is raised to a function
        of the priors' common refinement
        (:func:`~graphanon.algorithms.prior.coarsened_cut`), so together
        they reveal no more than the priors.
    public_taxonomy : bool
        The taxonomy is public: each published node lists all its taxonomy
        leaves, and cut nodes no record holds join the nearest node records
        hold (:func:`cover_cut` with nothing to fix), so the file names no
        code (``docs/privacy.md``). Not with ``suppress`` (a suppressed
        node is told apart from absent codes) nor ``priors``.

    Returns
    -------
    GlobalRecoding
        Rows in a secret random order; ``release.link`` is the private link,
        ``release.trace`` a :class:`HierarchyTrace` (the full cut and the
        suppressed nodes).

    See Also
    --------
    graphanon.privacy.KmAnonymity : The audit of its releases.
    graphanon.algorithms.anonymize_aa : A cut found by search instead of given.
    graphanon.algorithms.anonymize_hghs : A cut plus suppression found by search.

    Notes
    -----
    Complexity: O(taxonomy nodes + occurrences).

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = anonymize_cut(data, taxonomy=tax, level=1, unsafe_secret_seed=0)
    >>> rel.trace.cut, rel.n_records
    (('P', 'Q', 'e', 'i'), 8)

    This method makes no privacy promise by itself: audit its release (for
    example with :class:`~graphanon.privacy.KmAnonymity`) before publishing.
    """
    if level is not None:
        if level > taxonomy.height:
            raise ParameterError(f"level must be between 0 and the taxonomy height {taxonomy.height}, got {level}")
        cut = taxonomy.level(level)
    assert cut is not None  # exactly one of cut= and level= (which set it)
    if public_taxonomy:
        if suppress or priors is not None:
            raise ParameterError("public_taxonomy=True publishes no suppression and takes no priors: a suppressed "
                                 "node would be told apart from absent codes; leave suppress and priors out")
        groups = cover_cut(data, taxonomy, cut, k=1, m=1)  # every itemset held is held once: nothing to raise
        rel = public_taxonomy_recoding(data, taxonomy, groups, algorithm="cut", params={"level": level})
        report(progress, 1, 1, "cut recoding")
        return publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)
    rel = cut_recoding(data, taxonomy, cut, () if suppress is None else suppress, params={"level": level})
    report(progress, 1, 1, "cut recoding")
    if priors is not None:
        rel = recode_to_priors(data, rel, priors, taxonomy=taxonomy)
        rel.params["level"] = None  # the cut was raised: it is no longer that level
    return publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)


def recode_to_priors(data, release: GlobalRecoding, priors, *, taxonomy: Taxonomy, k: int | None = None,
                     m: int | None = None) -> GlobalRecoding:  # fmt: skip
    """``release`` (a cut recoding, row-aligned) recoded again by its cut raised to the priors.

    The cut of ``release.trace`` goes through
    :func:`~graphanon.algorithms.prior.coarsened_cut` (so the recoding is a
    function of the priors' common refinement; with ``k``, the refinement
    must be k^m-anonymous). The method name is kept; the parameters become
    ``k``, ``m``, ``priors`` (their number), ``ncp`` and
    ``n_suppressed_nodes`` of the raised cut -- the method's search numbers
    described the cut before raising and are dropped. Not yet published.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> prior = anonymize_cut(data, taxonomy=tax, cut=["P", "Q", "e", "i"])
    >>> fine = cut_recoding(data, tax, tax.level(2))
    >>> recode_to_priors(data, fine, prior, taxonomy=tax).trace.cut
    ('P', 'Q', 'e', 'i')
    """
    trace = release.trace
    cut, suppressed = coarsened_cut(data, priors, taxonomy=taxonomy, cut=trace.cut, suppressed=trace.suppressed,
                                    k=k, m=m)  # fmt: skip
    params = {"k": k if k is not None else release.params.get("k"), "m": m if k is not None else release.params.get("m"),
              "priors": len(as_priors(priors))}  # fmt: skip
    rel = cut_recoding(data, taxonomy, cut, suppressed, algorithm=release.algorithm, params=params)
    rel.params["ncp"] = ncp(data, rel)
    return rel


def _km_offender(records, k: int, m: int | None):
    """A published column of the lowest support inside a k^m violation of ``records`` (None when k^m-anonymous)."""
    lengths = np.diff(records.indptr)
    col_support = np.bincount(records.indices, minlength=records.shape[1])
    if m is None or m >= (int(lengths.max()) if len(lengths) else 0):
        bad = np.flatnonzero((lengths > 0) & (record_supports(records) < k))
        if not len(bad):
            return None
        row = records.indices[records.indptr[bad[0]] : records.indptr[bad[0] + 1]]
    else:
        levels, _ = minimal_infrequent_itemsets(records, k, m, max_violations=1)
        found = [lvl for lvl in levels if len(lvl)]
        if not found:
            return None
        row = found[0].itemsets[0]
    return int(row[np.argmin(col_support[row])])


class _Groups:
    """A partition of a taxonomy cut into published groups, and the recoding of the data by it."""

    def __init__(self, data, taxonomy: Taxonomy, cut: list) -> None:
        self.data, self.taxonomy = data, taxonomy
        self.groups: list[list] = [[v] for v in cut]

    def codes(self) -> np.ndarray:
        """Group index of every item of the data."""
        group_of = {v: g for g, nodes in enumerate(self.groups) for v in nodes}
        leaf_group = {leaf: group_of[v] for v, _ in group_of.items() for leaf in self.taxonomy.leaves_under(v)}
        return np.array([leaf_group[x] for x in self.data.items], dtype=np.int64)

    def records(self):

        return generalize_matrix(self.data.matrix, self.codes(), len(self.groups))

    def merge(self, members: list[int], extra: list) -> None:
        """Merge the groups ``members`` into one, adding the nodes ``extra``."""
        keep = sorted(set(members))
        merged = [v for g in keep for v in self.groups[g]] + list(extra)
        self.groups = [grp for g, grp in enumerate(self.groups) if g not in keep] + [merged]

    def raise_node(self, g: int, supports: np.ndarray) -> None:
        """Generalize group ``g``: its first node to its parent, or (a child of the root) pool it with another group."""
        tax = self.taxonomy
        node = self.groups[g][0]
        parent = tax.parent(node)
        if parent is not None and parent != tax.root:
            below = [(h, v) for h, grp in enumerate(self.groups) for v in grp if tax.is_ancestor(parent, v)]
            for h, v in below:
                self.groups[h] = [u for u in self.groups[h] if u != v]
            touched = sorted({h for h, _ in below})
            self.merge(touched, [parent])
            self.groups = [grp for grp in self.groups if grp]
            return
        others = [h for h in range(len(self.groups)) if h != g and supports[h] > 0]
        if not others:
            raise InfeasibleError(
                "fewer than k records hold an item: not even the whole taxonomy can be published as one item; "
                "lower k or publish nothing"
            )
        partner = min(others, key=lambda h: (supports[h], h))
        self.merge([g, partner], [])


def cover_cut(data, taxonomy: Taxonomy, cut: Iterable[Hashable], suppressed: Iterable[Hashable] = (), *, k: int,
              m: int | None) -> list[tuple]:  # fmt: skip
    """Groups of taxonomy nodes covering every leaf, suppressing nothing, whose recoding of ``data`` is k^m-anonymous.

    Starting from ``cut`` with its ``suppressed`` nodes published again
    (generalized instead of suppressed):

    1. while the recoding has an itemset of at most ``m`` published groups
       with support in ``(0, k)``, the group of least support in the first
       such (minimal) itemset is generalized: its node is raised to its
       parent (which absorbs every cut node below it), or, when that parent
       is the root, the group is pooled with the least supported other
       group (an item such as ``(C02,C11)``: a union of taxonomy nodes);
    2. every group that no record holds (taxonomy nodes all of whose
       leaves are absent from the data) joins the group of the nearest cut
       node in the taxonomy that records hold (deepest common ancestor;
       ties: the larger support) -- rows do not change.

    Generalizing only merges published items, so k^m, once reached, stays;
    the loop ends with one group at the latest. Every leaf of the taxonomy
    then lies in a group some record holds: the file shows no code apart
    from the others.

    Parameters
    ----------
    data : TransactionData
    taxonomy : Taxonomy
    cut : iterable of nodes
        A cut (for example a method's, suppressed nodes included).
    suppressed : iterable of nodes
        Its suppressed nodes (published again: they only need to be cut nodes).
    k, m :
        The k^m-anonymity to reach (``m=None``: k^infinity).

    Returns
    -------
    list of tuple
        The groups, each a tuple of taxonomy nodes.

    Raises
    ------
    InfeasibleError
        When fewer than ``k`` records hold an item.

    Notes
    -----
    Complexity: at most ``cut nodes + internal nodes`` generalizations, each
    one recoding (O(occurrences)) and one k^m check of the recoding (the
    level-wise support counting of the audits, or containment counting for
    k^infinity).

    References
    ----------
    Terrovitis, Mamoulis, Kalnis. PVLDB 2008, Sec. 2 (full-subtree recoding;
    k^m is kept by further generalization). Loukides, Gkoulalas-Divanis,
    Malin. COAT, KAIS 2011, Sec. 4 (set-based generalization, items as
    unions).

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> cover_cut(data, tax, ["P", "f", "g", "M", "e", "i"], ["i"], k=2, m=1)    # HgHs's cut for k=2
    [('P',), ('f',), ('g',), ('M',), ('e',), ('i',)]
    >>> cover_cut(data, tax, ["H", "K", "N", "M", "e", "i"], ["i"], k=2, m=2)    # HgHs's for k=2, m=2
    [('K',), ('H', 'i'), ('e', 'Q')]

    (AA, generalizing within the taxonomy only, publishes the root for k=2, m=2.)
    """
    suppressed = set(as_labels(suppressed, "taxonomy node"))
    cut = taxonomy.validate_cut(cut)
    missing = suppressed - set(cut)
    if missing:
        raise TaxonomyError(f"cannot publish {sorted(map(str, missing))[:3]} again: not nodes of the cut")
    state = _Groups(data, taxonomy, cut)
    while True:
        records = state.records()
        supports = np.bincount(records.indices, minlength=len(state.groups))
        g = _km_offender(records, k, m)
        if g is None:
            break
        state.raise_node(g, supports)
    empty = [g for g in range(len(state.groups)) if supports[g] == 0]
    if empty and len(empty) < len(state.groups):
        held = [g for g in range(len(state.groups)) if supports[g] > 0]
        host_of = {}
        for g in empty:
            node = state.groups[g][0]

            def closeness(h, node=node):
                return max(taxonomy.depth(taxonomy.lca(node, v)) for v in state.groups[h]), supports[h], -h

            host_of[g] = max(held, key=closeness)
        merged = [[*state.groups[h], *(v for g in empty if host_of[g] == h for v in state.groups[g])] for h in held]
        state.groups = merged
    return [tuple(grp) for grp in state.groups]


def public_taxonomy_recoding(data, taxonomy: Taxonomy, groups: Iterable[Iterable[Hashable]], *, algorithm: str,
                             params: dict | None = None) -> GlobalRecoding:  # fmt: skip
    """Recode ``data`` by groups of taxonomy nodes (no suppression), each naming all its taxonomy leaves.

    What a recipient holding the public taxonomy learns: the groups (each
    a published item, labelled by its node or, for several, ``(A,B)``) and
    the rows. ``members`` lists *all* taxonomy leaves of a group, present in
    the data or not, so the file does not say which codes occur; nothing is
    suppressed, so no code is missing from it (``docs/privacy.md``, "What
    the file still shows with a public taxonomy"). Row-aligned with
    ``data``, not yet published.

    Parameters
    ----------
    data : TransactionData
    taxonomy : Taxonomy
    groups : iterable of iterables of nodes
        Disjoint taxonomy nodes covering every leaf once (:func:`cover_cut`).
    algorithm, params :
        Provenance (``params["public_taxonomy"]`` is set to True).

    Returns
    -------
    GlobalRecoding
        ``leaves`` of an item = its taxonomy leaves; ``trace`` a
        :class:`HierarchyTrace` (``cut``: every node of the groups; no
        suppressed node).

    Raises
    ------
    TaxonomyError
        When the groups do not cover every leaf of the taxonomy exactly once.

    Notes
    -----
    Complexity: O(taxonomy + occurrences).

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = public_taxonomy_recoding(data, tax, [["P"], ["Q", "e"], ["i"]], algorithm="cut")
    >>> [(pi.label, pi.leaves) for pi in rel.published_items]
    [('P', 4), ('(Q,e)', 6), ('i', 1)]
    """
    from graphanon.release.global_recoding import PublishedItem

    node_groups = [tuple(as_labels(grp, "taxonomy node")) for grp in groups]
    nodes = [v for grp in node_groups for v in grp]
    taxonomy.validate_cut(nodes)
    group_of = {leaf: g for g, grp in enumerate(node_groups) for v in grp for leaf in taxonomy.leaves_under(v)}
    taxonomy.check_covers(data.items)
    code = np.array([group_of[x] for x in data.items], dtype=np.int64)
    items = []
    for grp in node_groups:
        label = grp[0] if len(grp) == 1 else "(" + ",".join(str(v) for v in grp) + ")"
        if len(grp) > 1 and label in taxonomy:
            raise TaxonomyError(f"the pooled item {label!r} has the name of a taxonomy node; rename that node")
        leaves = tuple(leaf for v in grp for leaf in taxonomy.leaves_under(v))
        items.append(PublishedItem(label, leaves, len(leaves)))
    rel = GlobalRecoding(
        published_items=items,
        records=generalize_matrix(data.matrix, code, len(node_groups)),
        universe=len(taxonomy.leaves),
        suppressed=(),
        algorithm=algorithm,
        params={"n_suppressed_nodes": 0, **(params or {}), "public_taxonomy": True},
        labels=data.labels,
    )
    rel.trace = HierarchyTrace(cut=tuple(nodes), suppressed=())
    return rel


CUT = MethodDeclaration(
    name="cut", family="hierarchy", function=anonymize_cut, privacy_model="km",
    summary="publish a user-given taxonomy cut (--param cut=A,B,... or level=D; suppress=X,Y); with -k K [-m M] "
    "the release is audited for k^m-anonymity and refused when it fails (--param force=true publishes it anyway)",
    params=CUT_PARAMS,
    published=frozenset({"level", "n_suppressed_nodes", "k", "m", "audit", "priors", "ncp", "public_taxonomy"}),
    published_nested={"audit": frozenset({"model", "satisfied", "violations"})},
    priors=COARSENED_TO_PRIORS, needs_taxonomy=True, verify=True, prepare=prepare_cut,
    required=(Required(("cut", "level"), "level=1", "the cut's nodes, or its depth"),),
    advice=Advice(coarser="a lower cut (--param level=...) or -a mhghs"),
)
