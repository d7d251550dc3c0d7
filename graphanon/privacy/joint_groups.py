"""Joint worlds of releases whose labels are published in label groups (the joint audit's grouped releases).

An ``nr --param l=L`` release (``l_method="groups"``) publishes row ``j``'s
label group ``label_groups[j]``, and on the group's rows the group's labels
dealt by a secret uniform shuffle (:mod:`graphanon.privacy.label_groups`).
The label printed on a row is therefore no evidence about the record the
row stands for beyond the group's multiset. A possible world of such a
release is a perfect matching ``M`` of its records to its rows (in the match
graph) and a deal: a permutation of each group's labels over the group's
rows, the label of ``M^-1(j)`` printed on ``deal(j)``.

**Lemma.** A label assignment ``lambda`` of the release's records and a
perfect matching ``M`` belong to some world iff for every group ``G`` and
label ``s`` the records ``M`` puts on ``G``'s rows hold ``s`` exactly
``c_{G,s}`` times, the count of ``s`` among ``G``'s published labels.

*Proof.* A world's deal permutes the labels of the records on ``G``'s rows,
so their multiset is the published one. Conversely, if the multisets agree,
the published labels of ``G`` are some permutation of those records' labels,
and that permutation is a deal (every permutation is one the shuffle draws).
So the deal adds no constraint beyond the counts, and the printed order none
at all. []

The joint audit (:mod:`graphanon.privacy.joint`) models a grouped release by
that lemma: a joint world gives every person one label and, in each release,
a perfect matching of its records meeting every group's counts. A record
``a`` may then sit in group ``G`` only with a label of ``G``; it takes label
``s`` in some world only if it can reach a group holding ``s``.

*Propagation* (:func:`grouped_step`, a relaxation: it keeps every pair some
world uses). Two necessary conditions, each a flow: (i) a perfect matching of
the records to the rows, on the match edges ``(a, j)`` whose group shares a
label with ``a``'s allowed ones; (ii) a *cell* assignment: every record to one
cell ``(G, s)`` with ``s`` allowed for ``a`` and ``G`` reached by a viable edge
of (i), cell ``(G, s)`` taking exactly ``c_{G,s}`` records. A world gives both
(its matching, and each record's group and label), so an edge that no perfect
matching of (i) or of (ii) uses is in no world; the two filter each other
until they stop changing. The labels left to ``a`` are those of its viable
cells.

*Exact step* (:func:`add_grouped_constraints`, CP-SAT): a Boolean ``y_e`` per
viable match edge (exactly one per record, ``row_size`` per row class), a
Boolean ``w_{a,G}`` = the sum of ``a``'s edges into ``G``, a Boolean
``z_{a,G,s}`` per label ``s`` of ``G`` allowed for ``a`` with ``z -> x_{a,s}``
and ``sum_s z_{a,G,s} = w_{a,G}``, and per cell ``sum_a z_{a,G,s} =
c_{G,s}``. Since ``a`` has exactly one label, ``z_{a,G,s} = w_{a,G} and
x_{a,s}``: the constraints are the lemma's counts, so the model's solutions
are exactly the joint worlds.

References
----------
X. Xiao, Y. Tao. Anatomy: simple and effective privacy preservation. VLDB
2006, Sec. 3 (a group's sensitive values published as a multiset).
M. Xue et al. Anonymizing set-valued data by nonreciprocal recoding. KDD
2012, Sec. 3 (possible worlds: perfect matchings of the match graph).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.privacy.matchings import k_factor_flow, viable_edges

__all__ = ["add_grouped_constraints", "add_matching", "group_quota", "grouped_reach", "grouped_step", "grouped_world"]


def group_quota(release, codes: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per row, its label group; per group and global label code, its published label count.

    Parameters
    ----------
    release : NonreciprocalRelease
        With ``labels`` and ``label_groups``.
    codes : dict
        Global label code of every label value.

    Returns
    -------
    (row_group, quota) : ndarray (n_rows,), ndarray (n_groups, n_labels) of int64

    Examples
    --------
    >>> from graphanon.release import NonreciprocalRelease
    >>> r = NonreciprocalRelease(["a"], [[1], [1], [1]], [[0], [0], [0]], [0, 0, 0], ["x", "y", "x"],
    ...                          label_groups=[0, 0, 1])
    >>> group_quota(r, {"x": 0, "y": 1})[1].tolist()
    [[1, 1], [1, 0]]
    """
    g = np.asarray(release.label_groups, dtype=np.int64)
    lab = np.array([codes[x] for x in release.labels], dtype=np.int64)
    quota = np.zeros((int(g.max(initial=-1)) + 1, len(codes)), dtype=np.int64)
    np.add.at(quota, (g, lab), 1)
    return g, quota


def grouped_reach(ea: np.ndarray, group: np.ndarray, quota: np.ndarray, n_classes: int) -> np.ndarray:
    """Per record class, the labels of the groups its match edges reach (its labels read alone).

    Examples
    --------
    >>> grouped_reach(np.array([0, 1]), np.array([0, 1]), np.array([[1, 1, 0], [0, 0, 2]]), 2).tolist()
    [[True, True, False], [False, False, True]]
    """
    M = sp.csr_array((np.ones(len(ea)), (ea, group)), shape=(n_classes, quota.shape[0]))
    return np.asarray((M @ (quota > 0).astype(np.float64)) > 0)


def _cells(allowed, ea, group, quota):
    """The distinct (record class, group) pairs of the edges, and their cell edges (pair, label)."""
    n_groups, n_labels = quota.shape
    key = ea * n_groups + group
    pairs, inverse = np.unique(key, return_inverse=True)
    pa, pg = pairs // n_groups, pairs % n_groups
    ok = allowed[pa] & (quota[pg] > 0)  # (pairs, labels)
    pi, ps = np.nonzero(ok)
    return pa, pg, inverse.reshape(-1), pi, ps


def grouped_step(allowed: np.ndarray, size: np.ndarray, g):
    """The propagation on one grouped release (module docstring): viable match edges and reached labels.

    Parameters
    ----------
    allowed : ndarray of bool (n_classes, n_labels)
        Labels each record class may still take.
    size : ndarray (n_classes,)
        Records per class.
    g : joint release graph
        ``ea``, ``eb`` (class edges), ``group`` (group of each edge's row class),
        ``quota`` (group label counts), ``row_size``, ``present``.

    Returns
    -------
    (viable, reach) or None
        ``viable``: bool per edge of ``g``, used by some perfect matching
        that also admits a cell assignment (both flows at their fixpoint);
        ``reach``: bool (n_classes, n_labels), the labels of each present
        class's viable cells (absent classes: every label). None when either
        flow has no perfect solution: no world exists within ``allowed``.

    Notes
    -----
    Complexity: per inner round two max-flows and two strongly-connected-components
    passes (:func:`~graphanon.privacy.matchings.viable_edges`); the rounds stop
    when no edge is dropped (at most the number of edges).
    """
    left = np.where(g.present, size, 0)
    keep = (allowed[g.ea] & (g.quota[g.group] > 0)).any(axis=1)
    n_labels = g.quota.shape[1]
    cell_size = g.quota.reshape(-1)
    while True:
        ea, eb = g.ea[keep], g.eb[keep]
        flow = k_factor_flow(left, g.row_size, ea, eb, 1)
        if not flow.full or left.sum() != g.row_size.sum():
            return None
        viable = np.zeros(len(g.ea), dtype=bool)
        viable[np.flatnonzero(keep)[viable_edges(left, g.row_size, ea, eb, flow, 1)]] = True
        pa, pg, _, pi, ps = _cells(allowed, g.ea[viable], g.group[viable], g.quota)
        ca, cb = pa[pi], pg[pi] * n_labels + ps
        cflow = k_factor_flow(left, cell_size, ca, cb, 1)
        if not cflow.full:
            return None
        cviable = viable_edges(left, cell_size, ca, cb, cflow, 1)
        reach = np.repeat(~g.present[:, None], n_labels, axis=1)
        reach[ca[cviable], ps[cviable]] = True
        n_groups = g.quota.shape[0]
        good = np.unique(ca[cviable] * n_groups + pg[pi][cviable])  # (class, group) pairs with a viable cell
        still = viable & np.isin(g.ea * n_groups + g.group, good)
        if (still == viable).all():  # the viable edges of the viable edges are themselves: a fixpoint
            return viable, reach
        keep = still


def add_matching(model, ea: np.ndarray, eb: np.ndarray, size: np.ndarray, g) -> list:
    """One CP-SAT variable per edge ``(ea[e], eb[e])`` of release ``g``'s graph, constrained to a matching.

    Every class present in the release takes exactly one edge; every row
    ``b`` takes exactly ``g.row_size[b]`` (the records it stands for).
    Returns the edge variables.
    """
    from ortools.sat.python import cp_model

    y = [model.new_bool_var("") for _ in range(len(ea))]
    by_a = np.argsort(ea, kind="stable")
    cut = np.searchsorted(ea[by_a], np.arange(len(size) + 1))
    for c in np.flatnonzero(g.present).tolist():
        model.add_exactly_one([y[e] for e in by_a[cut[c] : cut[c + 1]].tolist()])
    by_b = np.argsort(eb, kind="stable")
    cut = np.searchsorted(eb[by_b], np.arange(len(g.row_size) + 1))
    for b in range(len(g.row_size)):
        model.add(cp_model.LinearExpr.sum([y[e] for e in by_b[cut[b] : cut[b + 1]].tolist()]) == int(g.row_size[b]))
    return y


def add_grouped_constraints(model, x: list, var: np.ndarray, allowed: np.ndarray, size: np.ndarray, g) -> None:
    """Add one grouped release's joint-world constraints to a CP-SAT model (module docstring).

    Parameters
    ----------
    model : ortools.sat.python.cp_model.CpModel
    x : list of BoolVar
        One per allowed (record, label) pair: the record takes the label.
    var : ndarray of int (n_records, n_labels)
        Index in ``x`` of each allowed pair (-1 elsewhere).
    allowed : ndarray of bool (n_records, n_labels)
        After the propagation (records are single: ``size`` all 1).
    size : ndarray
    g : joint release graph (as for :func:`grouped_step`)

    Notes
    -----
    Complexity: O(viable edges + (record, group) pairs x labels) variables and
    constraints.
    """
    from ortools.sat.python import cp_model

    out = grouped_step(allowed, size, g)
    viable = out[0] if out is not None else np.zeros(len(g.ea), dtype=bool)
    if out is None:  # no world: say so to the solver
        model.add_bool_or([])
        return
    ea, eb, grp = g.ea[viable], g.eb[viable], g.group[viable]
    y = add_matching(model, ea, eb, size, g)
    pa, pg, inverse, pi, ps = _cells(allowed, ea, grp, g.quota)
    w = [model.new_bool_var("") for _ in range(len(pa))]
    by_p = np.argsort(inverse, kind="stable")
    cut = np.searchsorted(inverse[by_p], np.arange(len(pa) + 1))
    for p in range(len(pa)):
        model.add(cp_model.LinearExpr.sum([y[e] for e in by_p[cut[p] : cut[p + 1]].tolist()]) == w[p])
    z = [model.new_bool_var("") for _ in range(len(pi))]
    for t, pair in enumerate(var[pa[pi], ps].tolist()):
        model.add_implication(z[t], x[pair])
    cut = np.searchsorted(pi, np.arange(len(pa) + 1))  # pi is sorted (np.nonzero, row-major)
    for p in range(len(pa)):
        model.add(cp_model.LinearExpr.sum(z[cut[p] : cut[p + 1]]) == w[p])
    n_labels = g.quota.shape[1]
    cell = pg[pi] * n_labels + ps
    by_cell = np.argsort(cell, kind="stable")
    cut = np.searchsorted(cell[by_cell], np.arange(g.quota.size + 1))
    for q in np.flatnonzero(g.quota.reshape(-1)).tolist():
        zs = [z[t] for t in by_cell[cut[q] : cut[q + 1]].tolist()]
        model.add(cp_model.LinearExpr.sum(zs) == int(g.quota.reshape(-1)[q]))


def grouped_world(allowed: np.ndarray, size: np.ndarray, g, fixed: np.ndarray, confirmed: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray | None:  # fmt: skip
    """One grouped release's labels in a joint world, preferring pairs not yet confirmed, or None.

    Records with ``fixed >= 0`` keep that label. First a minimum-weight
    perfect matching of the present records to the rows, on the viable edges
    whose group holds the record's fixed label (weight 1 when the row's group
    offers the record an allowed label not yet confirmed, 2 otherwise, plus
    noise): it gives every record a group. Then, within each group, a
    minimum-weight assignment of its records to the slots of its cells (cell
    ``(G, s)`` has ``c_{G,s}`` slots; a record takes an allowed label, its
    fixed one if any; weight 1 for a pair not yet confirmed, 2 otherwise,
    plus noise). Both are real, so by the lemma (module docstring) a
    finished attempt is a world of this release. None when either has no
    perfect solution (the attempt fails; the caller's exact step settles
    what is left). The matching comes first because it is the scarce part:
    assigning labels first and matching within the groups afterwards almost
    never finds a perfect matching when the groups are drawn at random.

    Returns
    -------
    ndarray of int64 (n_records,) or None
        The label code of every present record (-1 for absent ones).

    Notes
    -----
    Complexity: two sparse minimum-weight full bipartite matchings
    (LAPJVsp, :func:`scipy.sparse.csgraph.min_weight_full_bipartite_matching`)
    on the viable edges and on the (record, slot) pairs of their groups.
    """
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    out = grouped_step(allowed, size, g)
    if out is None:
        return None
    viable = out[0]
    ea, eb, grp = g.ea[viable], g.eb[viable], g.group[viable]
    free = fixed[ea] < 0
    keep = free | (g.quota[grp, np.where(free, 0, fixed[ea])] > 0)
    ea, eb, grp = ea[keep], eb[keep], grp[keep]
    inside = np.flatnonzero(g.present)
    pos = np.full(len(size), -1, dtype=np.int64)
    pos[inside] = np.arange(len(inside))
    # the matching: one node per row (row class b of size s stands for s identical rows)
    first = np.zeros(len(g.row_size) + 1, dtype=np.int64)
    np.cumsum(g.row_size, out=first[1:])
    reps = g.row_size[eb]
    ra, rg = np.repeat(ea, reps), np.repeat(grp, reps)
    row = np.repeat(first[eb], reps) + (np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps))
    offer = (g.quota[rg] > 0) & allowed[ra] & ~confirmed[ra]
    lone = fixed[ra] >= 0
    offer[lone] = False
    offer[np.flatnonzero(lone), fixed[ra][lone]] = ~confirmed[ra[lone], fixed[ra][lone]]
    weight = 2.0 - offer.any(axis=1) + 0.5 * rng.random(len(ra))
    W = sp.csr_array((weight, (pos[ra], row)), shape=(len(inside), int(first[-1])))
    try:
        rows, cols = min_weight_full_bipartite_matching(W)
    except ValueError:
        return None
    home = np.full(len(size), -1, dtype=np.int64)
    where = sp.csr_array((rg + 1, (pos[ra], row)), shape=W.shape)  # each (record, row) pair once
    home[inside[rows]] = np.asarray(where[rows, cols]).reshape(-1).astype(np.int64) - 1
    # the labels: each record to a slot of a cell of its own group
    n_labels = g.quota.shape[1]
    ok = allowed[inside] & (g.quota[home[inside]] > 0)
    pinned = fixed[inside] >= 0
    ok[pinned] &= np.arange(n_labels)[None, :] == fixed[inside][pinned][:, None]
    ci, cs = np.nonzero(ok)
    ca, cg = inside[ci], home[inside][ci]
    flat = g.quota.reshape(-1)
    start = np.zeros(len(flat) + 1, dtype=np.int64)
    np.cumsum(flat, out=start[1:])
    cell = cg * n_labels + cs
    reps = flat[cell]
    slot = np.repeat(start[cell], reps) + (np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps))
    sa, ss = np.repeat(ca, reps), np.repeat(cs, reps)
    weight = 2.0 - (~confirmed[sa, ss]) + 0.5 * rng.random(len(sa))
    W = sp.csr_array((weight, (pos[sa], slot)), shape=(len(inside), int(start[-1])))
    try:
        rows, cols = min_weight_full_bipartite_matching(W)
    except ValueError:
        return None
    code = sp.csr_array((ss + 1, (pos[sa], slot)), shape=W.shape)  # each (record, slot) pair once
    label = np.full(len(size), -1, dtype=np.int64)
    label[inside[rows]] = np.asarray(code[rows, cols]).reshape(-1).astype(np.int64) - 1
    return label
