"""LCG and GGD: the Clump paper's golden examples and brute force on random taxonomies."""

import itertools
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.graphs.lcg import NodeIndex, ggd, ggd_fraction, groups_to_lcg, lcg_labels
from graphanon.taxonomy import Taxonomy

GOLDEN = [  # SPEC §3 / the paper's Examples 2-3
    ([0, 1], ["Fruit", "Beef"], Fraction(11, 7)),
    ([2, 3], ["Fruit", "Dairy"], Fraction(15, 7)),
    ([4, 5, 6], ["Fruit", "Fruit"], Fraction(26, 7)),
    ([7, 8], ["Food", "Fruit"], Fraction(18, 7)),
]


def test_golden_lcgs_and_ggds():
    data, tax = load("clump_food"), load_taxonomy("clump_food")
    idx = NodeIndex(tax, data.items)
    assert idx.lm[idx.pos["Fruit"]] == 2 / 7
    counts = idx.counts(data.matrix)
    lengths = np.diff(data.matrix.indptr)
    for rows, labels, expected in GOLDEN:
        assert sorted(lcg_labels(idx, data, rows)) == sorted(labels)
        assert ggd_fraction(idx, data, rows) == expected
        dense = np.asarray(counts[rows].todense())
        assert abs(ggd(idx, dense, lengths[rows]) - float(expected)) < 1e-12
    group = np.array([0, 0, 1, 1, 2, 2, 2, 3, 3])
    per_record, per_group = groups_to_lcg(idx, counts, group)
    assert np.allclose(per_group, [float(g) for _, _, g in GOLDEN])
    assert per_record.shape == (9, idx.n_nodes) and per_record[[4]].sum() == 2


@st.composite
def groups(draw):
    n_items = draw(st.integers(1, 6))
    items = [f"i{j}" for j in range(n_items)]
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    n_int = draw(st.integers(1, 4))
    parent = {f"N{i}": f"N{int(rng.integers(0, i))}" for i in range(1, n_int)}
    for x in items:
        parent[x] = f"N{int(rng.integers(0, n_int))}"
    tax = Taxonomy.from_parent_map(parent)
    n_rec = draw(st.integers(1, 3))
    records = [draw(st.lists(st.sampled_from(items), min_size=0, max_size=4, unique=True)) for _ in range(n_rec)]
    return tax, records, items


def _fits(tax, copies, record) -> bool:
    """Some injective map copies -> distinct record items, each under its copy's node."""
    if len(copies) > len(record):
        return False
    return any(
        all(tax.is_ancestor(node, item) for node, item in zip(copies, perm))
        for perm in itertools.permutations(record, len(copies))
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups())
def test_lcg_is_optimal_against_brute_force(inst):
    tax, records, items = inst
    data = from_iterable(records, items=items)
    idx = NodeIndex(tax, data.items)
    rows = list(range(len(records)))
    best = None
    shortest = min(len(r) for r in records)
    m = idx.universe
    lm = {v: Fraction(tax.leaf_count(v) - 1, max(m - 1, 1)) for v in tax.nodes}
    n_occ = sum(len(r) for r in records)
    for size in range(shortest + 1):
        for copies in itertools.combinations_with_replacement(tax.nodes, size):
            if all(_fits(tax, copies, r) for r in records):
                cost = len(records) * sum(lm[c] for c in copies) + n_occ - len(records) * size
                best = cost if best is None else min(best, cost)
    got = ggd_fraction(idx, data, rows)
    assert got == best
    # the LCG itself is a valid common generalization reaching that cost
    assert all(_fits(tax, lcg_labels(idx, data, rows), r) for r in records)
