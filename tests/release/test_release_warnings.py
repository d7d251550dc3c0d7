"""Warnings that tell the truth (issue 32): useless or weak releases are named, never refused."""

from __future__ import annotations

import json

import pytest

from graphanon.data import from_iterable
from graphanon.metrics.caveats import MAX_SUPPRESSION, Advice, release_warnings
from graphanon.release import GlobalRecoding, PerturbedRelease
from graphanon.taxonomy import Taxonomy
from tests.conftest import cli


def _run(tmp_path, *args):
    res = cli("anonymize", *args, "-o", tmp_path / "r.json")
    assert res.exit_code == 0, res.output
    assert all(len(line) <= 80 for line in res.stderr.splitlines())
    return res.stdout, res.stderr.replace("\n  ", " ")  # each warning on one line again (wrapped at 80 columns)


def _json(tmp_path, *args) -> dict:
    res = cli("anonymize", *args, "-o", tmp_path / "r.json", "--json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_everything_at_the_root_is_named_with_a_better_method(tmp_path):
    out, err = _run(tmp_path, "liuwang_fig1", "-a", "aa", "-k", "8", "-m", "2")
    assert "8 records released" in out  # the release is still written: a warning, not an error
    [line] = [x for x in err.splitlines() if x.startswith("graphanon: warning:")]
    assert "generalized to the root" in line and "-a mhghs" in line
    assert any("root" in w for w in _json(tmp_path, "liuwang_fig1", "-a", "aa", "-k", "8", "-m", "2")["warnings"])


def test_meps_like_codes_with_an_icd_taxonomy(tmp_path):
    """The issue's case: AA at k=5, m=2 publishes only '*'; mHgHs then suppresses most occurrences."""
    from tests.release.test_export import PARENT, RECORDS

    data = tmp_path / "meps.csv"
    data.write_text("tid,item\n" + "".join(f"r{i},{code}\n" for i, rec in enumerate(RECORDS) for code in rec))
    paths = []
    for leaf in {c for rec in RECORDS for c in rec}:
        chain = [leaf]
        while chain[-1] in PARENT:
            chain.append(PARENT[chain[-1]])
        paths.append(";".join(chain))
    (tmp_path / "icd.txt").write_text("\n".join(sorted(paths)) + "\n")
    _out, err = _run(tmp_path, data, "-a", "aa", "-k", "5", "-m", "2", "--taxonomy", tmp_path / "icd.txt")
    assert "generalized to the root '*'" in err and "-a mhghs" in err
    _out, err = _run(tmp_path, data, "-a", "mhghs", "-k", "5", "-m", "2", "--taxonomy", tmp_path / "icd.txt")
    assert "73% of the item occurrences are suppressed" in err and "-a coat" in err


def test_k1_is_not_described_as_protection(tmp_path):
    _out, err = _run(tmp_path, "liuwang_fig1", "-a", "aa", "-k", "1", "-m", "2")
    assert "k=1 protects no one" in err and "-k 2" in err


def test_high_suppression_is_named(tmp_path):
    _out, err = _run(tmp_path, "liuwang_fig1", "-a", "mm", "-k", "3", "-m", "2")
    line = next(x for x in err.splitlines() if "suppressed" in x)
    assert "83% of the item occurrences" in line and "-a aa" in line


def test_l_equal_to_the_number_of_labels_is_named(tmp_path):
    summary = _json(tmp_path, "nr_table1", "-a", "cahd", "-k", "2", "--param", "l=3")
    assert any("l=3 equals the number of distinct labels (3)" in w for w in summary["warnings"])


def test_a_useful_release_gets_no_warning(tmp_path):
    args = ("liuwang_fig1", "-a", "mhghs", "-k", "2", "-m", "2", "--param", "public_taxonomy=true")
    out, err = _run(tmp_path, *args)
    assert "warning" not in err
    assert _json(tmp_path, *args)["warnings"] == []


def test_suppressed_codes_under_a_taxonomy_are_named_with_public_taxonomy_as_the_fix(tmp_path):
    """Issue 30 item 4: whoever holds the taxonomy names what the file does not list (docs/attacks.md (i))."""
    _out, err = _run(tmp_path, "liuwang_fig1", "-a", "mhghs", "-k", "2", "-m", "2")
    [line] = [x for x in err.splitlines() if "whoever holds the taxonomy" in x]
    assert line.startswith("graphanon: warning: 1 item is suppressed") and "--param public_taxonomy=true" in line


def test_bench_reports_the_warnings():
    res = cli("bench", "liuwang_fig1", "-a", "aa", "-k", "1", "-m", "2", "--queries", "5", "--json")
    assert res.exit_code == 0, res.output
    assert [w[:9] for w in json.loads(res.stdout)["warnings"]] == ["k=1 prote"]


def test_python_checks_planted_releases():
    from graphanon.algorithms.registry import get_declaration

    data = from_iterable([["a", "b"], ["a"], ["c"], ["c", "d"]])
    # NCP 0.9 without the root: a node of 10 of 11 taxonomy leaves
    rel = GlobalRecoding.from_mapping(data, {x: "X" for x in data.items}, leaves={"X": 10}, universe=11,
                                      algorithm="hghs", params={"k": 2, "m": 2})
    [w] = release_warnings(data, rel)
    assert (w.code, w.message[:8]) == ("ncp", "NCP 0.90")
    assert release_warnings(data, rel, max_ncp=0.95) == []
    # suppression just above and at the threshold (occurrences: 6; 2 suppressed = 33%, 1 = 17%)
    two = GlobalRecoding.from_mapping(data, {"a": None, "b": "b", "c": "c", "d": "d"}, algorithm="mm",
                                      params={"k": 2, "m": 1})
    assert [w.code for w in release_warnings(data, two)] == ["suppression"]
    one = GlobalRecoding.from_mapping(data, {"a": "a", "b": None, "c": "c", "d": "d"}, algorithm="mm")
    assert release_warnings(data, one) == [] and 1 / 6 < MAX_SUPPRESSION < 2 / 6
    # a perturbed release that removed half the occurrences
    kept = PerturbedRelease(items=["a", "c"], records=[[1, 0], [0, 0], [0, 1], [0, 0]], moves="suppress",
                            algorithm="partsupp")
    [w] = release_warnings(data, kept, advice=get_declaration("partsupp").release_advice())
    assert w.code == "suppression" and "67% of the item occurrences are removed" in w.message
    assert "-a partswap" in w.message


@pytest.mark.parametrize("k", [1, 2])
def test_k1_only_at_k1(k):
    data = from_iterable([["a"], ["a"]])
    rel = GlobalRecoding.from_mapping(data, {"a": "a"}, algorithm="aa", params={"k": k, "m": 1})
    assert [w.code for w in release_warnings(data, rel)] == (["k1"] if k == 1 else [])


def test_everything_suppressed_is_named_once_as_suppression():
    data = from_iterable([["a"], ["b"]])
    rel = GlobalRecoding.from_mapping(data, {"a": None, "b": None}, algorithm="mm", params={"k": 2, "m": 1})
    assert [w.code for w in release_warnings(data, rel)] == ["suppression"]


def test_an_l_diverse_nr_release_warns_of_the_content_ranking_adversary():
    """The paper's nr with l meets its model only: the warning names the stronger adversary (issue 30).

    The default label groups publish labels apart from the rows and get no such warning.
    """
    from graphanon.algorithms import anonymize_nonreciprocal
    from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    from graphanon.algorithms.registry import get_declaration
    from graphanon.datasets import load
    from graphanon.metrics import release_warnings

    data = load("nr_table1")
    nr, cahd = get_declaration("nr").release_advice(), get_declaration("cahd").release_advice()
    flow = anonymize_nonreciprocal(data, k=2, l=2, l_method="flow")
    [w] = [w for w in release_warnings(data, flow, advice=nr) if w.code == "l-ranking"]
    assert "--param l_method=groups" in w.message
    assert "l-ranking" not in [w.code for w in release_warnings(data, flow)]  # the advice declares the risk
    groups = anonymize_nonreciprocal(data, k=2, l=2)
    assert "l-ranking" not in [w.code for w in release_warnings(data, groups, advice=nr)]
    assert "l-ranking" not in [w.code for w in release_warnings(data, anonymize_cahd(data, l=2), advice=cahd)]


def _suppressing(params=None):
    data = from_iterable([["a", "b"], ["a", "b"], ["c"]])
    rel = GlobalRecoding.from_mapping(data, {"a": "a", "b": "b", "c": None}, algorithm="hghs",
                                      params={"k": 2, "m": 2, **(params or {})})
    return data, rel, Taxonomy.from_parent_map({"a": "*", "b": "*", "c": "*"})


def test_suppressed_named_needs_a_taxonomy_a_suppression_and_no_public_taxonomy():
    data, rel, tax = _suppressing()
    [w] = release_warnings(data, rel, taxonomy=tax, advice=Advice(public_taxonomy=True))
    assert w.code == "suppressed-named" and "pass --param public_taxonomy=true" in w.message
    [w] = release_warnings(data, rel, taxonomy=tax)  # a method without the parameter is not told to pass it
    assert "pass --param" not in w.message and "takes --param public_taxonomy=true" in w.message
    assert release_warnings(data, rel) == []  # no taxonomy: the flat reading is the suppression warning's
    data, rel, tax = _suppressing({"public_taxonomy": True})
    assert release_warnings(data, rel, taxonomy=tax, advice=Advice(public_taxonomy=True)) == []
    kept = GlobalRecoding.from_mapping(data, {"a": "a", "b": "b", "c": "c"}, algorithm="hghs", params={"k": 1})
    assert [w.code for w in release_warnings(data, kept, taxonomy=tax)] == ["k1"]


def test_the_advice_is_the_declarations():
    """Each suggestion comes from the method's declaration; an undeclared method gets the generic one."""
    from graphanon.algorithms.registry import get_declaration

    data = from_iterable([["a", "b"], ["a"], ["c"], ["c", "d"]])
    two = GlobalRecoding.from_mapping(data, {"a": None, "b": "b", "c": "c", "d": "d"}, params={"k": 2, "m": 1})
    mm = get_declaration("mm")
    [w] = release_warnings(data, two, advice=mm.release_advice())
    assert mm.advice.less_suppression and w.message.endswith(f"try {mm.advice.less_suppression}")
    [w] = release_warnings(data, two, advice=Advice(less_suppression="planted"))
    assert w.message.endswith("try planted")
    [w] = release_warnings(data, two)
    assert "a method that generalizes instead" in w.message
    assert get_declaration("hghs").release_advice().public_taxonomy
    assert not get_declaration("mm").release_advice().public_taxonomy
    with pytest.raises(TypeError, match="advice must be an Advice"):
        type(mm)(name="x", family="t", summary="", function=mm.function, privacy_model="km",
                 advice=Advice(public_taxonomy=True))


def test_l_order_warns_only_on_groups_formed_along_the_order():
    """nr's grouping=order and CAHD's groups are formed along the public order: the warning says so (issue 30,
    docs/attacks.md, group skips); nr's default groups drawn in secret, the paper's l_method=flow, a k-only
    release and one without labels get none; a file made before ``grouping`` was recorded gets it."""
    from graphanon.algorithms import anonymize_nonreciprocal
    from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    from graphanon.data import TransactionData
    from graphanon.datasets import load

    data = load("nr_table1")
    for rel in (anonymize_nonreciprocal(data, k=2, l=2, grouping="order"), anonymize_cahd(data, l=2, grouping="order")):
        [w] = [w for w in release_warnings(data, rel) if w.code == "l-order"]
        assert "l=2" in w.message and "group skips" in w.message and "grouping=random" in w.message
    cahd = anonymize_cahd(data, l=2)  # members drawn in secret, the default
    assert cahd.params["grouping"] == "random"
    assert "l-order" not in [w.code for w in release_warnings(data, cahd)]
    del cahd.params["grouping"]  # a CAHD file made before grouping was recorded: the paper's scan
    assert "l-order" in [w.code for w in release_warnings(data, cahd)]
    secret = anonymize_nonreciprocal(data, k=2, l=2)
    assert secret.params["grouping"] == "random"
    assert "l-order" not in [w.code for w in release_warnings(data, secret)]
    del secret.params["grouping"]  # an older file: its groups were formed along the order
    assert "l-order" in [w.code for w in release_warnings(data, secret)]
    flow = anonymize_nonreciprocal(data, l=2, l_method="flow")
    assert "l-order" not in [w.code for w in release_warnings(data, flow)]
    assert "l-order" not in [w.code for w in release_warnings(data, anonymize_nonreciprocal(data, k=2))]
    bare = TransactionData(data.matrix, data.items, data.record_ids, None)
    assert "l-order" not in [w.code for w in release_warnings(bare, anonymize_nonreciprocal(bare, k=2))]
