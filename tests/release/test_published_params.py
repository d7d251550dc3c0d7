"""Published parameters (issue 20): every release publishes only allowlisted fields (docs/privacy.md),
the writer refuses any other, and nothing left in the file rebuilds a private thing -- the full cut,
suppressed names, an order, an assignment, a group, a seed, or whether the run was seeded."""

from __future__ import annotations

import json

import pytest

from graphanon.cli.registry import RunOptions, get_algorithm, registered
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ReleaseFormatError
from graphanon.release import PUBLISHED_PARAMS, check_published_params, load_release
from graphanon.taxonomy import Taxonomy

from .test_publication import METHODS, _data

SWAPS = {"partswap": {"categories": "random:3"}, "fullswap": {"categories": "random:3"}, "randswap": {},
         "partsupp": {"categories": "random:3"}, "splitperson": {"categories": "random:3"}}


@pytest.fixture(scope="module")
def data():
    return _data()


@pytest.fixture(scope="module")
def tax(data):
    return Taxonomy.balanced(data.items, 3, prefix="NODEQ")


def _relational(data):
    """``data`` with a relational table (age, gender; record ids as the table's): what rt reads."""
    from graphanon.relational import RelationalTable, RTData

    n = data.n_records
    table = RelationalTable(data.record_ids, {"age": [20 + (7 * i) % 50 for i in range(n)],
                                              "gender": ["F" if i % 3 else "M" for i in range(n)]})
    return RTData(data, table)


def _run(name, data, tax, seed):
    if name in ("rt", "rt-naive"):  # relational-transaction data: the same records with a relational table
        return get_algorithm(name).run(_relational(data), RunOptions(k=3, m=2, taxonomy=tax, seed=seed))
    if name in ("diffpart", "privbasis"):  # DP: no seed, no -k; the taxonomy stands for the public universe
        params = {"k": "5"} if name == "privbasis" else {}
        return get_algorithm(name).run(data, RunOptions(epsilon=1.0, taxonomy=tax, params=params))
    if name in SWAPS:
        return get_algorithm(name).run(data, RunOptions(seed=seed, params=dict(SWAPS[name])))
    k, m, params, _ = METHODS[name]
    return get_algorithm(name).run(data, RunOptions(k=k, m=m, taxonomy=tax, seed=seed, params=dict(params)))


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _int_lists(value):
    if isinstance(value, list):
        if value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            yield value
        for v in value:
            yield from _int_lists(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _int_lists(v)


def test_every_method_has_an_allowlist():
    assert set(registered()) == set(PUBLISHED_PARAMS)


@pytest.mark.parametrize("name", sorted(PUBLISHED_PARAMS))
def test_saved_params_are_allowlisted_and_rebuild_nothing_private(name, data, tax, tmp_path):
    seeded, unseeded = _run(name, data, tax, 4321), _run(name, data, tax, None)
    docs = []
    for tag, rel in (("s", seeded), ("u", unseeded)):
        rel.save(tmp_path / f"{tag}.json")
        docs.append(json.loads((tmp_path / f"{tag}.json").read_text())["params"])
    for params in docs:
        assert set(params) <= PUBLISHED_PARAMS[name]
        # no order, assignment or group: no list of record numbers as long as the data
        assert all(len(lst) < data.n_records for lst in _int_lists(params))
        # no record id, no suppressed item or node name, no taxonomy node other than published ones
        published = {str(pi.label) for pi in getattr(seeded, "published_items", ())}
        named = set(_strings(params))
        assert not {r for r in data.record_ids} & named
        suppressed = {str(x) for rel in (seeded, unseeded)
                      for x in (getattr(rel.trace, "suppressed", None) or ())}
        assert not suppressed & named
        assert not (set(map(str, tax.nodes)) - published) & named, "a param names an unpublished taxonomy node"
    # the same fields whether or not the run was seeded (and never the seed itself)
    assert set(docs[0]) == set(docs[1])
    assert "4321" not in json.dumps(docs[0])


@pytest.mark.parametrize("name, params", [
    ("cahd", {"l": "3", "diversity": "recursive", "c": "1"}),
    ("cahd", {"l": "3", "diversity": "entropy"}),
    ("partswap", {"categories": "random:3", "spread": "2"}),
    ("fullswap", {"categories": "random:3", "spread": "3"}),
])
def test_method_options_that_add_params_are_allowlisted(name, params, data, tmp_path):
    """Options that add fields to params (l-diversity variants, swap spread) save: they are on the list."""
    rel = get_algorithm(name).run(data, RunOptions(params=dict(params)))
    added = set(rel.params) - set(_run(name, data, None, None).params) if name in SWAPS else set(rel.params)
    assert added, "the option should add a field to params"
    rel.save(tmp_path / "r.json")
    assert set(load_release(tmp_path / "r.json").params) <= PUBLISHED_PARAMS[name]


@pytest.mark.parametrize("name", ["cut", "hghs", "nr", "cahd", "clump", "partition", "partswap", "splitperson"])
def test_writer_refuses_a_field_off_the_allowlist(name, data, tax, tmp_path):
    """One release of each kind (global / nonreciprocal / local / perturbed): a non-allowlisted param
    makes save() raise and write nothing."""
    rel = _run(name, data, tax, 1)
    rel.params["path"] = [["ROOT", 1.0]]
    with pytest.raises(ReleaseFormatError, match="may not publish parameter 'path'"):
        rel.save(tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()
    del rel.params["path"]
    rel.save(tmp_path / "r.json")
    assert load_release(tmp_path / "r.json").params == rel.params


def test_nested_fields_are_checked_too():
    check_published_params("hghs", {"rounds": [{"m": 1, "cut_size": 3, "n_suppressed": 0, "cost": 1.0,
                                                "threats": 0}]})
    with pytest.raises(ReleaseFormatError, match="rounds.steps"):
        check_published_params("hghs", {"rounds": [{"m": 1, "steps": 4}]})
    with pytest.raises(ReleaseFormatError, match="'extra'"):
        check_published_params("my-own-method", {"k": 2, "extra": 1})


def _replay_walk(taxonomy, params):
    """The issue's adversary: replay an expansion path found in the params on the public taxonomy
    (start from the root, expand each named node in turn). Returns the rebuilt cut, or None when no
    param is such a path."""
    root = next(v for v in taxonomy.nodes if taxonomy.parent(v) is None)
    for value in params.values():
        if not (isinstance(value, list) and value and all(isinstance(s, list) and s for s in value)):
            continue
        cut, ok = {root}, True
        for step in value:
            node = step[0]
            if not isinstance(node, str) or node not in cut:
                ok = False
                break
            cut = (cut - {node}) | set(taxonomy.children(node))
        if ok:
            return cut
    return None


@pytest.mark.parametrize("algorithm,k,m", [("hghs", 5, 2), ("hghs", 20, 3), ("mhghs", 10, 2), ("mhghs", 20, 3)])
def test_hghs_file_does_not_rebuild_the_cut(algorithm, k, m, tmp_path):
    data, tax = load("groceries"), load_taxonomy("groceries")
    rel = get_algorithm(algorithm).run(data, RunOptions(k=k, m=m, taxonomy=tax))
    assert rel.trace.suppressed, "the case must suppress nodes"
    # the walk is kept in memory (trace) ...
    steps = rel.trace.search.rounds[-1].steps
    assert steps and all("expanded" in st for st in steps)
    rel.save(tmp_path / "r.json")
    params = json.loads((tmp_path / "r.json").read_text())["params"]
    # ... but the file has no walk to replay, and names no node that is not published
    assert _replay_walk(tax, params) is None
    names = set(_strings(params))
    assert not names & set(map(str, tax.nodes))
    assert not names & set(map(str, rel.trace.suppressed))
    # the replay adversary does rebuild the cut when the walk is there (the test is not vacuous)
    leaky = {**params, "path": [[st["expanded"], st["cost"]] for st in steps]}
    assert _replay_walk(tax, leaky) == set(rel.trace.cut)
