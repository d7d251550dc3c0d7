"""DiffPart: a synthetic set-valued dataset under epsilon-differential privacy (Chen et al., PVLDB 2011).

Top-down partitioning over a context-free taxonomy of the **public item
universe**. The first partition holds every record under the cut ``{root}``.
A partition is split on one node ``v`` of its cut: each record goes to the
sub-partition named by *which children of* ``v`` *it holds* (a non-empty
subset of the children; the sub-partition's cut replaces ``v`` by those
children). Every possible sub-partition -- the ``2^f - 1`` subsets of
``v``'s ``f`` children, empty or not -- gets a noisy count; the small ones
stop, the others are split again, and a sub-partition whose cut holds leaves
only is a *leaf partition*: its noisy count is the number of copies of that
itemset in the synthetic dataset.

Privacy (add/remove one record). A record lies in one sub-partition of each
split, so the counts of one split compose in parallel; along a record's path
the budgets add up (sequential composition) to at most ``epsilon``: half of
it is kept for the leaf partitions, the other half is spent adaptively on the
internal splits (below). The taxonomy and the universe are public and given
by the caller, never built from the data (a universe taken from the data
would publish which items occur; the function refuses data items outside the
universe instead of widening it). Every count is noised by OpenDP's exact
discrete Laplace (:mod:`graphanon.algorithms.dp.noise`) from OS entropy; the
node to split is drawn uniformly among the cut's highest nodes (independent
of the data). The release publishes only the leaf itemsets and their noisy
counts, epsilon, the parameters and the universe.

Decisions where the paper leaves room (settled by reading the authors' C++
code, ``McGill-DMaS/Privacy-DiffPart``; no code was taken from it):

* **Fan-out**: the authors build a balanced taxonomy with fan-out 10 over
  the item domain; so does ``fanout=10`` here when a ``universe`` (not a
  taxonomy) is given (:meth:`graphanon.taxonomy.Taxonomy.balanced`). A node
  may have at most 12 children (``2^12 - 1`` noisy counts per split).
* **Which node to split**: uniformly at random among the cut's nodes of the
  greatest height (as the authors).
* **Budget split**: ``epsilon / 2`` for the leaf partitions; a partition with
  ``r`` internal budget left and a cut holding ``I`` internal taxonomy nodes
  (counted in the subtrees of its cut nodes) releases its sub-partitions'
  counts at ``eps_bar = r / I``, and each internal sub-partition keeps
  ``r - eps_bar`` (at the root ``r = epsilon / 2``, so
  ``eps_bar = epsilon / 2 / |internal nodes|`` as in the paper). A
  sub-partition whose cut holds leaves only is released with everything its
  path has left, ``r + epsilon / 2`` (the authors do this for the last
  split; here it holds for every leaf partition, which only spends budget a
  path would otherwise leave unused).
* **Thresholds**: an internal sub-partition is split further when its noisy
  count is at least ``c_internal * sqrt(2) * h / eps_bar`` (``h``: the
  height of the split node; ``sqrt(2) / eps`` is the noise's standard
  deviation); a leaf partition is published when its noisy count is at least
  ``max(1, c_leaf * sqrt(2) / eps)``. The authors' constants are
  ``c_internal = 6.75`` and ``c_leaf = 2.75``.
* **Noise**: the authors add continuous Laplace noise from ``rand()`` and
  round; here the counts get exact discrete Laplace noise (the same scale,
  no floating-point leak). The authors' code also takes the total number of
  records as known for the root; here the root's count is never computed
  nor released (the root is always split).
* **Empty sub-partitions** get noise like the others, all of them (one
  vectorized draw per split): the authors draw one per empty subset too.

Examples
--------
>>> from graphanon.data import from_iterable
>>> data = from_iterable([["a", "b"]] * 40 + [["c"]] * 30)
>>> rel = anonymize_diffpart(data, epsilon=2.0, universe=["a", "b", "c", "d"], fanout=2)
>>> rel.kind, rel.params["epsilon"], rel.fingerprint is None, rel.items
('synthetic', 2.0, True, ('a', 'b', 'c', 'd'))
>>> anonymize_diffpart(data, epsilon=1.0, universe=["a", "b"])
Traceback (most recent call last):
...
graphanon.errors.ParameterError: record 41 holds item 'c', which is not in the public universe; give a universe (or taxonomy) that holds every item the data may hold -- it must not be built from the data

References
----------
R. Chen, N. Mohammed, B. C. M. Fung, B. C. Desai, L. Xiong. *Publishing
set-valued data via differential privacy.* PVLDB 4(11):1087-1098, 2011,
Section 4 (Algorithm 1, the partitioning; 4.2, the budget allocation; 4.3,
the thresholds).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from numbers import Real

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.declaration import MethodDeclaration, Parameter
from graphanon.algorithms.dp.noise import check_epsilon, discrete_laplace
from graphanon.data import TransactionData
from graphanon.errors import ParameterError
from graphanon.release.synthetic import SyntheticRelease
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.labels import as_label
from graphanon.utils.params import Interval, validate_params
from graphanon.utils.progress import ProgressCallback, report

__all__ = ["MAX_FANOUT", "anonymize_diffpart"]

#: the largest number of children a split node may have (2^f - 1 noisy counts per split)
MAX_FANOUT = 12


class _Tree:
    """The taxonomy as arrays: children, height, internal-node count and leaf range of each node."""

    def __init__(self, tax: Taxonomy) -> None:
        order = list(tax.nodes)  # preorder
        pos = {v: i for i, v in enumerate(order)}
        self.children = [[pos[c] for c in tax.children(v)] for v in order]
        n = len(order)
        self.leaves = [v for v in order if not self.children[pos[v]]]
        leaf_pos = {v: j for j, v in enumerate(self.leaves)}
        self.height = np.zeros(n, dtype=np.int64)
        self.internal = np.zeros(n, dtype=np.int64)
        self.lo = np.zeros(n, dtype=np.int64)
        self.hi = np.zeros(n, dtype=np.int64)
        for i in range(n - 1, -1, -1):  # children come after their parent in preorder
            ch = self.children[i]
            if not ch:
                self.lo[i] = leaf_pos[order[i]]
                self.hi[i] = self.lo[i] + 1
                continue
            self.height[i] = 1 + max(self.height[c] for c in ch)
            self.internal[i] = 1 + sum(int(self.internal[c]) for c in ch)
            self.lo[i] = min(self.lo[c] for c in ch)
            self.hi[i] = max(self.hi[c] for c in ch)
        self.root = 0
        wide = [order[i] for i in range(n) if len(self.children[i]) > MAX_FANOUT]
        if wide:
            raise ParameterError(
                f"taxonomy node {wide[0]!r} has {len(self.children[pos[wide[0]]])} children; DiffPart splits on "
                f"every subset of a node's children, so at most {MAX_FANOUT} are allowed (use a balanced taxonomy "
                "with a smaller fanout)"
            )


def _universe_taxonomy(taxonomy, universe, fanout: int) -> Taxonomy:
    if taxonomy is None and universe is None:
        raise ParameterError(
            "diffpart needs the public item universe: give a taxonomy (its leaves are the universe) or a universe "
            "(a list of every item the data may hold); the items observed in the data are not public"
        )
    if universe is not None:
        labels = [as_label(x) for x in universe]
        if len(set(labels)) != len(labels):
            raise ParameterError("the universe names an item twice")
        if not labels:
            raise ParameterError("the universe is empty")
        if taxonomy is None:
            return Taxonomy.balanced(labels, fanout=fanout)
        if set(labels) != set(taxonomy.leaves):
            raise ParameterError("the universe and the taxonomy's leaves differ; give one of them")
    return taxonomy


@validate_params({
    "epsilon": [Interval(Real, 0, None, closed="neither")],
    "taxonomy": [None, Taxonomy],
    "universe": [None, "array-like"],
    "fanout": [Interval(int, 2, MAX_FANOUT, closed="both")],
    "c_internal": [Interval(Real, 0, None, closed="left")],
    "c_leaf": [Interval(Real, 0, None, closed="left")],
    "progress": [None, "callable"],
}, meanings={"epsilon": "the privacy loss of the release"})
def anonymize_diffpart(
    data: TransactionData,
    *,
    epsilon: float,
    taxonomy: Taxonomy | None = None,
    universe: Sequence[Hashable] | None = None,
    fanout: int = 10,
    c_internal: float = 6.75,
    c_leaf: float = 2.75,
    progress: ProgressCallback | None = None,
) -> SyntheticRelease:
    """Publish a synthetic dataset of ``data`` under ``epsilon``-DP with DiffPart.

    Parameters
    ----------
    data : TransactionData
        The records (every item must be in the universe).
    epsilon : float
        The privacy loss (> 0), for add/remove of one record.
    taxonomy : Taxonomy, optional
        A context-free (public, data-independent) taxonomy whose leaves are
        the universe.
    universe : sequence of item labels, optional
        The public item universe; a balanced taxonomy of ``fanout`` is built
        over it when ``taxonomy`` is not given.
    fanout : int
        Children per node of the built taxonomy (2 to 12; the authors use 10).
    c_internal, c_leaf : float
        The threshold constants (module docstring; the authors' 6.75 and 2.75).
    progress : callable, optional
        ``progress(done, total, message)`` per split (total unknown: 0).

    Returns
    -------
    SyntheticRelease
        The leaf itemsets with their noisy counts; no fingerprint, no link.

    Notes
    -----
    Complexity: per split of a partition of ``n_p`` records on a node of
    ``f`` children, O(nnz(records) + 2^f) (one sparse product, one vectorized
    draw of ``2^f - 1`` noisy counts); the number of splits is bounded by the
    noisy counts passing the thresholds. Sensitivity 1 per count; budget on
    any record's path at most ``epsilon`` (module docstring).
    """
    eps = check_epsilon(epsilon)
    tax = _universe_taxonomy(taxonomy, universe, fanout)
    tree = _Tree(tax)
    X = _records_over_universe(data, tree.leaves)
    gen = np.random.default_rng()  # OS entropy; the split node is data-independent, and never seeded
    leaf_half = eps / 2
    # a partition: (record indices, cut as a tuple of node ids, internal budget left)
    has_items = np.flatnonzero(np.diff(X.indptr) > 0)
    stack: list[tuple[np.ndarray, tuple[int, ...], float]] = [(has_items, (tree.root,), eps / 2)]
    out_sets: list[tuple[int, ...]] = []
    out_counts: list[int] = []
    splits = 0
    if tree.height[tree.root] == 0:  # a one-item universe: the root is a leaf
        root_noisy = int(discrete_laplace([len(has_items)], eps)[0])
        _publish_leaf(root_noisy, len(has_items), eps, c_leaf, (tree.root,), tree, out_sets, out_counts)
        stack = []
    while stack:
        rows, cut, r = stack.pop()
        splits += 1
        report(progress, splits, 0, "DiffPart: splitting partitions")
        top = max(int(tree.height[u]) for u in cut)
        candidates = [u for u in cut if tree.height[u] == top]
        v = candidates[int(gen.integers(len(candidates)))]
        ch = tree.children[v]
        f = len(ch)
        rest = tuple(u for u in cut if u != v)
        internal_cut = int(sum(int(tree.internal[u]) for u in cut))
        eps_bar = r / internal_cut
        # which children each record holds, as a bit code (>= 1: a record of the partition holds an item under v)
        counts = _subset_counts(X, rows, tree, ch)
        codes = np.arange(1, 1 << f)
        bits = (codes[:, None] >> np.arange(f)[None, :]) & 1
        rest_internal = internal_cut - int(tree.internal[v])
        sub_internal = rest_internal + bits @ tree.internal[ch]
        final = sub_internal == 0
        eps_leaf = _leaf_budget(r, leaf_half)
        noisy = np.empty(len(codes), dtype=np.int64)
        if final.any():
            noisy[final] = discrete_laplace(counts[final], eps_leaf)
        if (~final).any():
            noisy[~final] = discrete_laplace(counts[~final], eps_bar)
        threshold = c_internal * math.sqrt(2) * top / eps_bar
        member = None
        for s in np.flatnonzero(final | _passes(noisy, counts, threshold)):
            sub_cut = rest + tuple(ch[j] for j in range(f) if bits[s, j])
            if final[s]:
                _publish_leaf(int(noisy[s]), int(counts[s]), eps_leaf, c_leaf, sub_cut, tree, out_sets, out_counts)
                continue
            if member is None:
                member = _subset_codes(X, rows, tree, ch)
            stack.append((rows[member == codes[s]], sub_cut, r - eps_bar))
    S = _itemsets(out_sets, len(tree.leaves))
    params = {
        "epsilon": eps, "mechanism": "DiffPart (Chen et al. 2011), discrete Laplace noise (OpenDP)",
        "neighbouring": "add/remove one record", "fanout": int(fanout) if taxonomy is None else None,
        "c_internal": float(c_internal), "c_leaf": float(c_leaf),
        "taxonomy": "balanced over the universe" if taxonomy is None else f"given (height {int(tree.height[0])})",
    }
    return SyntheticRelease(items=tree.leaves, itemsets=S, counts=out_counts, algorithm="diffpart",
                            params={k: v for k, v in params.items() if v is not None})


def _records_over_universe(data: TransactionData, leaves: list) -> sp.csr_array:
    """The records with columns renamed to universe positions; a data item outside the universe is refused."""
    where = {x: j for j, x in enumerate(leaves)}
    col = np.array([where.get(as_label(x), -1) for x in data.items], dtype=np.int64)
    X = sp.csr_array(data.matrix)
    bad = np.flatnonzero(col[X.indices] < 0)
    if len(bad):
        record = int(np.searchsorted(X.indptr, bad[0], side="right")) - 1
        item = data.items[X.indices[bad[0]]]
        raise ParameterError(
            f"record {record + 1} holds item {as_label(item)!r}, which is not in the public universe; give a "
            "universe (or taxonomy) that holds every item the data may hold -- it must not be built from the data"
        )
    out = sp.csr_array((np.ones(X.nnz, dtype=np.int64), col[X.indices], X.indptr), shape=(X.shape[0], len(leaves)))
    out.sort_indices()
    return out


def _subset_codes(X: sp.csr_array, rows: np.ndarray, tree: _Tree, ch: list[int]) -> np.ndarray:
    """Per record of ``rows``, the bit code of the children of the split node it holds items under."""
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64)
    part = X[rows]
    f = len(ch)
    lo, hi = tree.lo[ch], tree.hi[ch]
    M = np.zeros((X.shape[1], f), dtype=np.int64)
    for j in range(f):
        M[lo[j] : hi[j], j] = 1
    held = np.asarray(part @ M) > 0
    return held.astype(np.int64) @ (1 << np.arange(f))


def _subset_counts(X: sp.csr_array, rows: np.ndarray, tree: _Tree, ch: list[int]) -> np.ndarray:
    """The true count of every non-empty subset of the children (codes 1 .. 2^f - 1)."""
    codes = _subset_codes(X, rows, tree, ch)
    return np.bincount(codes, minlength=1 << len(ch))[1:].astype(np.int64)


def _leaf_budget(r: float, leaf_half: float) -> float:
    """The epsilon of a leaf partition's count: what its path left of the internal half, plus the leaf half."""
    return r + leaf_half


def _passes(noisy, true, threshold: float):
    """Whether a (noisy) count passes ``threshold``: the decision reads the noisy count only, never ``true``.

    ``true`` is passed so that the empirical audit can plant the bug of a
    threshold read from the exact count (tests/algorithms/test_dp_empirical.py) by
    replacing this one function.
    """
    return noisy >= threshold


def _publish_leaf(noisy: int, true: int, eps: float, c_leaf: float, cut: tuple, tree: _Tree, out_sets: list,
                  out_counts: list) -> None:
    """Keep a leaf partition when its noisy count passes ``max(1, c_leaf * sqrt(2) / eps)``."""
    if _passes(noisy, true, max(1.0, c_leaf * math.sqrt(2) / eps)):
        out_sets.append(tuple(sorted(int(tree.lo[u]) for u in cut)))
        out_counts.append(noisy)


def _itemsets(sets: list[tuple[int, ...]], d: int) -> sp.csr_array:
    ptr = np.concatenate([[0], np.cumsum([len(s) for s in sets])]).astype(np.int64)
    flat = np.fromiter((j for s in sets for j in s), dtype=np.int64, count=int(ptr[-1]))
    return sp.csr_array((np.ones(len(flat), dtype=bool), flat, ptr), shape=(len(sets), d))


#: The ``privacy_model`` of a DP method: tested empirically, never audited from a release (docs/dp.md).
DP_MODEL = "dp"


def _prepare_diffpart(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    """``-a diffpart``: ``--epsilon`` is needed; the public universe is ``--universe`` or a typed ``--taxonomy``.

    A DP method reads the public item universe -- ``--taxonomy FILE`` (its
    leaves) or ``--universe FILE`` (one item per line) -- never the items
    observed in the data. A taxonomy the user typed wins; a bundled one is
    used when no ``--universe`` is given.
    """
    if opts.epsilon is None:
        raise ParameterError("algorithm 'diffpart' needs --epsilon E (the privacy loss of the release, > 0)")
    taxonomy = opts.taxonomy if opts.universe is None or opts.is_given("taxonomy") else None
    if taxonomy is not None and opts.universe is None and "fanout" in opts.params:
        raise ParameterError("--param fanout builds a taxonomy over --universe; with --taxonomy drop it")
    kwargs["taxonomy"] = taxonomy
    return kwargs


DIFFPART = MethodDeclaration(
    name="diffpart", family="dp", function=anonymize_diffpart, privacy_model=DP_MODEL,
    summary="DiffPart: a synthetic dataset under epsilon-DP by top-down partitioning over a public taxonomy "
            "(Chen et al. 2011; needs --epsilon and --universe or --taxonomy)",
    params=(
        Parameter("fanout", int, 10, "children per node of the balanced taxonomy built over --universe (2-12)"),
        Parameter("c_internal", float, 6.75, "threshold constant of internal partitions (the authors' 6.75)"),
        Parameter("c_leaf", float, 2.75, "threshold constant of leaf partitions (the authors' 2.75)"),
    ),
    # a DP release states epsilon, the mechanism, its settings and the public universe's taxonomy -- no count
    published=frozenset({"epsilon", "mechanism", "neighbouring", "fanout", "c_internal", "c_leaf", "taxonomy"}),
    options=("taxonomy", "epsilon", "universe"), prepare=_prepare_diffpart,
)
