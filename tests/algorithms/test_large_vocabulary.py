"""The vectorized large-vocabulary paths of AA, HgHs/mHgHs and COAT against their plain
definitions (the pre-vectorization loops, kept here as references), on random inputs."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms import anonymize_aa
from graphanon.algorithms.coat.state import LN2, CoatState, RunLog
from graphanon.algorithms.hierarchy._aa_counts import LocalCounts
from graphanon.algorithms.hierarchy._index import HierarchyIndex
from graphanon.algorithms.hierarchy._walk import EPS, MinedNearThreats, evaluate_cut, walk_round
from graphanon.algorithms.hierarchy.aa import _cheapest_fix
from graphanon.counting.support import VerticalBitmaps, minimal_infrequent_itemsets
from graphanon.data import from_iterable
from graphanon.errors import InfeasibleError
from graphanon.taxonomy import Taxonomy

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def instances(draw, max_internal=7, min_m=1):
    """Random records over up to 24 items and a random taxonomy of depth up to ~4."""
    n_items = draw(st.integers(2, 24))
    n_rec = draw(st.integers(3, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    records = [rng.choice(n_items, size=int(rng.integers(1, min(6, n_items) + 1)), replace=False).tolist()
               for _ in range(n_rec)]
    data = from_iterable(records)
    n_int = draw(st.integers(1, max_internal))
    parent = {f"I{i}": f"I{int(rng.integers(0, i))}" for i in range(1, n_int)}
    for x in data.items:
        parent[x] = f"I{int(rng.integers(0, n_int))}"
    tax = Taxonomy.from_parent_map(parent)
    k = draw(st.integers(2, min(6, n_rec)))
    m = draw(st.integers(min_m, 3))
    return data, tax, k, m


def reference_aa_cut(data, tax, k, m):
    """AA's cut by the plain loop: every violation, in ascending support, mapped through the
    current cut and fixed when its support is still in (0, k)."""
    index = HierarchyIndex(data, tax)
    E = index.extended
    bits = VerticalBitmaps(E)
    in_cut = index.is_leaf.copy()
    owner = np.arange(index.n_nodes)

    def step_cost(p):
        sl = slice(p, int(index.end[p]))
        return float(index.gen_cost[p] - index.gen_cost[sl][in_cut[sl]].sum())

    max_len = int(np.diff(data.matrix.indptr).max())
    for i in range(1, min(m, max_len) + 1):
        while True:
            cut = np.flatnonzero(in_cut)
            viol, _ = minimal_infrequent_itemsets(E[:, cut], k, i)
            found = [(int(lvl.supports[r]), cut[lvl.itemsets[r]]) for lvl in viol for r in range(len(lvl))]
            if not found:
                break
            found.sort(key=lambda t: t[0])
            for _, itemset in found:
                cur = np.unique(owner[itemset])
                sup = bits.support(cur)
                if 0 < sup < k:
                    if len(cur) == 1 and cur[0] == 0:
                        raise InfeasibleError("root")
                    for p in _cheapest_fix(index, cur, k, LocalCounts(index), step_cost):
                        sl = slice(p, int(index.end[p]))
                        in_cut[sl] = False
                        in_cut[p] = True
                        owner[sl] = p
    return tuple(index.labels(np.flatnonzero(in_cut)))


@SETTINGS
@given(instances())
def test_aa_sweep_equals_plain_loop(inst):
    data, tax, k, m = inst
    try:
        expected = reference_aa_cut(data, tax, k, m)
    except InfeasibleError:
        expected = None
    try:
        got = anonymize_aa(data, taxonomy=tax, k=k, m=m, unsafe_secret_seed=0).trace.cut
    except InfeasibleError:
        got = None
    assert got == expected


def reference_walk(index, threats, expandable):
    """The HgHs walk evaluating every child cut in full: the path and each visited (cut, suppressed)."""
    cur = np.array([0])
    cost = evaluate_cut(index, threats, cur)[0]
    path, visited = [], []
    while True:
        best = None
        for x in cur[expandable[cur]]:
            cand = np.sort(np.concatenate([cur[cur != x], index.children(x)]))
            c, _, _, sup = evaluate_cut(index, threats, cand)
            if best is None or c < best[0] - EPS * max(1.0, abs(best[0])):
                best = (c, x, cand, sup)
        if best is None or best[0] >= cost - EPS * max(1.0, abs(cost)):
            return path, visited
        cost, x, cur, sup = best
        path.append((index.nodes[x], cost))
        visited.append((index.labels(cur), index.labels(np.sort(sup))))


def check_walk(data, tax, k, m, expandable_seed=None):
    """The walk equals the plain loop: path, every candidate's cost, and each step's replayed
    cut and scenario (read backwards first, then in order). With ``expandable_seed`` only a
    random part of the internal nodes may be expanded (as in mHgHs rounds past the first)."""
    index = HierarchyIndex(data, tax)
    threats = index.threats(k, m)
    expandable = ~index.is_leaf
    if expandable_seed is not None:
        expandable &= np.random.default_rng(expandable_seed).random(index.n_nodes) < 0.7
    rnd, used = walk_round(index, threats, k, m, expandable, None, "test")
    assert used is threats and rnd.n_threats == len(threats)
    if m == 2:  # the walk mining its own pair threats takes the same steps with the same candidates
        mined_rnd, mined = walk_round(index, None, k, m, expandable, None, "test")
        # (the costs of the chosen cuts are full evaluations, so equal; a candidate's change may differ in the
        # last bits when the full set has no pairs: the walk then sums per-node deltas instead)
        assert [(s["expanded"], s["cost"]) for s in mined_rnd.steps] == [(s["expanded"], s["cost"]) for s in rnd.steps]
        for a, b in zip([s["candidates"] for s in mined_rnd.steps] + [mined_rnd.final_candidates],
                        [s["candidates"] for s in rnd.steps] + [rnd.final_candidates], strict=True):
            assert [(x, n) for x, _, n in a] == [(x, n) for x, _, n in b]
            assert np.allclose([c for _, c, _ in a], [c for _, c, _ in b], rtol=1e-12, atol=1e-12)
        assert [(s["cut"], s["suppressed"]) for s in mined_rnd.steps] == [(s["cut"], s["suppressed"]) for s in rnd.steps]
        every = {tuple(t[t >= 0]): sup for t, sup in zip(threats.members, threats.supports, strict=True)}
        listed = [tuple(t[t >= 0]) for t in mined.members]
        assert len(set(listed)) == len(listed) == mined_rnd.n_threats <= len(threats)
        assert all(every[t] == sup for t, sup in zip(listed, mined.supports, strict=True))  # only real threats
        for cut in mined_rnd.cuts():  # ... and all those within every visited cut
            assert set(mined.within(index.positions(cut))) == set(threats.within(index.positions(cut)))
    got = [(st_["expanded"], st_["cost"]) for st_ in rnd.steps]
    path, visited = reference_walk(index, threats, expandable)
    assert got == path
    for st_, (cut, sup) in list(zip(rnd.steps, visited, strict=True))[::-1]:
        assert (st_["cut"], st_["suppressed"]) == (cut, sup)
    assert rnd.cuts() == [index.labels([0])] + [cut for cut, _ in visited]
    assert (rnd.cut, rnd.suppressed) == (visited[-1] if visited else (index.labels([0]), rnd.start_cost[3]))
    # every candidate's cost (current cost + its change) equals a full evaluation
    cur = np.array([0])
    for st_ in rnd.steps:
        for node, c, n_sup in st_["candidates"]:
            x = index.pos[node]
            cand = np.sort(np.concatenate([cur[cur != x], index.children(x)]))
            full = evaluate_cut(index, threats, cand)
            assert abs(full[0] - c) <= 1e-9 * max(1.0, abs(c))
            assert len(full[3]) == n_sup
        cur = np.sort(index.positions(st_["cut"]))


@SETTINGS
@given(st.one_of(instances(), instances(max_internal=16, min_m=2)))
def test_walk_deltas_equal_full_evaluation(inst):
    check_walk(*inst)


@SETTINGS
@given(instances(max_internal=16, min_m=2), st.integers(0, 2**31))
def test_walk_with_restricted_expansions_equals_full_evaluation(inst, seed):
    """Only some internal nodes expandable: the near-threat lists follow the expandable children."""
    check_walk(*inst, expandable_seed=seed)


@SETTINGS
@given(instances(max_internal=16, min_m=2))
def test_threat_incidence_lists_every_threat_of_a_node_ascending(inst):
    data, tax, k, m = inst
    index = HierarchyIndex(data, tax)
    threats = index.threats(k, m)
    for x in range(index.n_nodes):
        expected = [t for t in range(len(threats)) if x in threats.members[t].tolist()]
        assert threats.idx[threats.ptr[x] : threats.ptr[x + 1]].tolist() == expected


@SETTINGS
@given(instances(max_internal=16, min_m=2), st.integers(0, 2**31), st.sampled_from([1, 4, 1024]))
def test_mined_near_lists_hold_exactly_the_threats_among_present_nodes(inst, seed, room):
    """Random walks of entering and expanding nodes (a first arena of 1 or 4 entries forces list moves and
    compactions): each node in the near set lists every k^2 threat of all cuts whose nodes are all in it
    now, none twice, and nothing that is not such a threat (its listed threats holding an expanded node
    aside, which can never complete)."""
    data, tax, k, _ = inst
    index = HierarchyIndex(data, tax)
    every = index.threats(k, 2)
    truth = {tuple(t[t >= 0].tolist()) for t in every.members}
    rng = np.random.default_rng(seed)
    MinedNearThreats.initial_room = room
    try:
        near = MinedNearThreats(index, k, ~index.is_leaf)
        cut = [0]
        near.enter(np.array(cut))
        gone: set[int] = set()
        while True:
            present = set(np.flatnonzero(near._present).tolist())
            for y in present:
                listed = [tuple(near.members[t, : near.sizes[t]].tolist()) for t in near.idx[near.ptr[y]:
                                                                                            near.ptr[y] + near.n[y]]]
                assert len(set(listed)) == len(listed) and set(listed) <= truth
                assert {t for t in listed if not gone & set(t)} == {t for t in truth if y in t and set(t) <= present}
            expandable = [x for x in cut if not index.is_leaf[x]]
            if not expandable:
                break
            x = int(rng.choice(expandable))
            cut = [c for c in cut if c != x] + index.children(x).tolist()
            gone.add(x)
            near.expand(x)
    finally:
        MinedNearThreats.initial_room = 1024


def test_walk_deltas_on_seeded_instances():
    """Deeper taxonomies with pair and triple threats, where changes cascade through partners."""
    for seed in range(120):
        rng = np.random.default_rng(seed)
        n_items = int(rng.integers(8, 30))
        records = [rng.choice(n_items, size=int(rng.integers(1, 6)), replace=False).tolist()
                   for _ in range(int(rng.integers(10, 60)))]
        data = from_iterable(records)
        n_int = int(rng.integers(3, 16))
        parent = {f"I{i}": f"I{int(rng.integers(0, i))}" for i in range(1, n_int)}
        for x in data.items:
            parent[x] = f"I{int(rng.integers(0, n_int))}"
        check_walk(data, Taxonomy.from_parent_map(parent), int(rng.integers(2, 6)), int(rng.integers(2, 4)))


@SETTINGS
@given(instances(), st.integers(0, 2**31))
def test_coat_partner_equals_bitmap_union(inst, seed):
    data, _, k, _ = inst
    rng = np.random.default_rng(seed)
    state = CoatState(data, np.zeros(data.n_items, dtype=np.int64), k, 1.0, None, None, RunLog())
    for _ in range(int(rng.integers(0, data.n_items))):  # random merges and suppressions first
        live = np.flatnonzero(state.is_live)
        if len(live) < 3:
            break
        g, h = rng.choice(live, 2, replace=False).tolist()
        if rng.random() < 0.2:
            state.suppress(g, ())
        else:
            state.merge(g, h, ())
    for g in np.flatnonzero(state.is_live).tolist():
        cands = sorted((h for h in state.members if h != g), key=lambda h: min(state.members[h]))
        if not cands:
            assert state.best_partner(g) is None
            continue
        union = np.array([np.bitwise_count(state.bits[h] | state.bits[g]).sum() for h in cands], dtype=float)
        size = np.array([len(state.members[h]) + len(state.members[g]) for h in cands], dtype=float)
        key = size * LN2 + np.log1p(-np.exp2(-size)) + np.log(np.maximum(union, 0.5))
        assert state.best_partner(g) == cands[int(np.argmin(key))]


@SETTINGS
@given(st.integers(0, 200), st.integers(1, 70), st.floats(0.0, 1.0), st.integers(0, 2**31))
def test_sparse_bitmaps_equal_dense_packing(n, m, density, seed):
    import scipy.sparse as sp

    from graphanon.counting.support import sparse_bitmaps

    X = sp.random_array((n, m), density=density, rng=np.random.default_rng(seed), format="csr").astype(bool)
    assert np.array_equal(sparse_bitmaps(X).bits, VerticalBitmaps(X).bits)
