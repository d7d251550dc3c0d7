"""Attack (i), issue 30 item 3: the records of a swapping release that lost items, found by holding them."""

from __future__ import annotations

import numpy as np
import pytest

from graphanon.algorithms import anonymize_partsupp, anonymize_partswap
from graphanon.attacks import lost_items_attack, lost_records
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.release import PerturbedRelease
from graphanon.taxonomy import ItemGroups
from graphanon.taxonomy.categories import parse_categories

CATS = ItemGroups({"A": ["a1", "a2", "a3", "a4"], "B": ["b1", "b2", "b3", "b4"], "C": ["c1", "c2", "c3"]})


def _brute_lost(data, release, link) -> list[bool]:
    out = []
    for i, rec in enumerate(data.records()):
        row = set(release.render_record(int(link.row_of_record[i])).split()) if release.n_records else set()
        rec = {str(x) for x in rec}
        out.append(row < rec)
    return out


def _random_data(seed: int, n: int = 40):
    rng = np.random.default_rng(seed)
    items = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "c1", "c2", "c3"]
    recs = [list(rng.choice(items, size=int(rng.integers(1, 6)), replace=False)) for _ in range(n)]
    return from_iterable(recs)


@pytest.mark.parametrize("seed", range(4))
def test_lost_records_against_brute_force(seed):
    data = _random_data(seed)
    for rel in (anonymize_partswap(data, categories=CATS, unpaired="suppress", rng=seed, unsafe_secret_seed=seed),
                anonymize_partsupp(data, categories=CATS, unsafe_secret_seed=seed)):
        assert lost_records(data, rel, rel.link).tolist() == _brute_lost(data, rel, rel.link)


def test_planted_suppressed_row_is_flagged():
    """A hand-made release: record 0 published as itself minus its heaviest category (A), no gift;
    records 1 and 2 exchanged their source items. The adversary holding all three flags record 0 only."""
    data = from_iterable([["a1", "a2", "b1"], ["b2", "b3", "c1"], ["a3", "a4", "c2"]])
    rows = [["b1"], ["a3", "a4", "c1"], ["b2", "b3", "c2"]]
    X = from_iterable(rows, items=data.items).matrix
    rel = PerturbedRelease.from_matrix(data, X, moves="swap-suppress", algorithm="custom")
    res = lost_items_attack(data, rel, categories=CATS, truth=np.arange(3))
    assert res.details["flagged"] == 1 and res.success == 1.0 and res.details["recall"] == 1.0
    assert res.bound == pytest.approx(1 / 3)  # one flag: within the sampling margin, but right
    # the same rows, but the file says every occurrence was conserved: nothing can be flagged
    swap = PerturbedRelease.from_matrix(data, X, moves="swap", algorithm="custom")
    assert lost_items_attack(data, swap, categories=CATS, truth=np.arange(3)).details["flagged"] == 0


def test_a_clear_occurrence_count_is_used():
    """A file stating the occurrences in clear gives the deficit; a flag whose source exceeds it is dropped."""
    data = from_iterable([["a1", "a2", "b1"], ["b2", "b3", "c1"], ["a3", "a4", "c2"]])
    X = from_iterable([["b1"], ["a3", "a4", "c1"], ["b2", "b3", "c2"]], items=data.items).matrix
    rel = PerturbedRelease.from_matrix(data, X, moves="swap-suppress", algorithm="custom")
    rel.fingerprint = {"occurrences": 9}
    res = lost_items_attack(data, rel, categories=CATS, truth=np.arange(3))
    assert res.details["deficit"] == 2 and res.details["flags_match_deficit"] is True
    rel.fingerprint = {"occurrences": 8}  # a deficit of 1 cannot hold record 0's two source items
    assert lost_items_attack(data, rel, categories=CATS, truth=np.arange(3)).details["flagged"] == 0
    assert lost_items_attack(data, rel, categories=CATS, truth=np.arange(3), use_counts=False).details["flagged"] == 1


def test_refuses_other_releases_and_bad_truth():
    data = from_iterable([["a1", "b1"], ["b2"]])
    rel = anonymize_partsupp(data, categories=CATS, unsafe_secret_seed=0)
    with pytest.raises(ParameterError, match="one published row per record"):
        lost_items_attack(data, rel, categories=CATS, truth=np.arange(3))
    with pytest.raises(ParameterError, match="perturbed"):
        lost_items_attack(data, object(), categories=CATS, truth=np.arange(2))


def test_the_suppress_rule_names_the_records_that_lost_items():
    """The finding, on bms1 (50 random categories, visiting order of seed 1): the old rule
    (unpaired="suppress") removes two records' heaviest category; an adversary holding every record
    flags one of them, rightly (the other's "record minus its category" also lies in a swapped-looking
    row), far above the base rate of 2 in 3,090."""
    data = load("bms1")
    cats = parse_categories("random:50", data, None)
    rel = anonymize_partswap(data, categories=cats, rng=1, unpaired="suppress", unsafe_secret_seed=0)
    assert rel.moves == "swap-suppress"
    res = lost_items_attack(data, rel, categories=cats, truth=rel.link)
    assert res.details["lost_targets"] == 2 and res.details["flagged"] == 1 and res.details["recall"] == 0.5
    assert res.success == 1.0 and res.bound < 0.001 and not res.within_bound()
