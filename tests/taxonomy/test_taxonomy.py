import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ParameterError, TaxonomyError
from graphanon.taxonomy import ItemGroups, Taxonomy, read_taxonomy


@pytest.fixture
def fig1():
    return load_taxonomy("liuwang_fig1")


def test_fig1_structure(fig1):
    assert fig1.root == "T" and len(fig1.leaves) == 11
    assert fig1.leaf_count("P") == 4 and fig1.leaf_count("M") == 3
    assert fig1.lm("P") == pytest.approx(0.3) and fig1.lm("a") == 0 and fig1.lm("T") == 1
    assert fig1.lca("a", "d") == "P" and fig1.lca("a", "x") == "T" and fig1.lca("f") == "f"
    assert fig1.ancestors("a") == ["H", "P", "T"]
    assert fig1.is_ancestor("P", "c") and not fig1.is_ancestor("c", "P")
    assert sorted(fig1.leaves_under("Q")) == ["f", "g", "x", "y", "z"]
    assert fig1.level(1) == ["P", "Q", "e", "i"] or sorted(fig1.level(1)) == sorted(["P", "Q", "e", "i"])


def test_cuts(fig1):
    assert fig1.is_cut(["P", "f", "g", "M", "e", "i"])
    assert fig1.is_cut(["T"])
    with pytest.raises(TaxonomyError, match="'a' lies under 'P'"):
        fig1.validate_cut(["P", "a", "Q", "e", "i"])
    with pytest.raises(TaxonomyError, match="leaf 'i' is under none"):
        fig1.validate_cut(["P", "Q", "e"])
    with pytest.raises(TaxonomyError, match="'nope' is not a node"):
        fig1.validate_cut(["nope"])
    m = fig1.cut_map(["P", "Q", "e", "i"])
    assert m["a"] == "P" and m["z"] == "Q" and m["e"] == "e"


def test_bad_trees():
    g = nx.DiGraph([("r", "a"), ("a", "b"), ("b", "a")])
    with pytest.raises(TaxonomyError, match="2 parents"):
        Taxonomy(g)
    with pytest.raises(TaxonomyError, match="cycle"):
        Taxonomy(nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a")]))
    with pytest.raises(TaxonomyError, match="2 roots"):
        Taxonomy(nx.DiGraph([("r1", "a"), ("r2", "b")]))
    with pytest.raises(TaxonomyError, match="two parents"):
        Taxonomy.from_edges([("r", "a"), ("s", "a")])


def test_check_covers_names_missing_items(fig1):
    with pytest.raises(TaxonomyError, match=r"1 item\(s\) of the data are not leaves of the taxonomy, e.g. 'q'"):
        fig1.check_covers(["a", "q"])
    with pytest.raises(TaxonomyError, match="'P' is an internal node"):
        fig1.check_covers(["P"])


def test_path_and_level_files(tmp_path):
    p = tmp_path / "tax.txt"
    p.write_text("1;A;ROOT\n2;A;ROOT\n3;B;ROOT\n")
    t = read_taxonomy(p)
    assert set(t.leaves) == {"1", "2", "3"} and t.parent("1") == "A" and t.parent(1) == "A"
    p.write_text("1;A;ROOT\n1;B;ROOT\n")
    with pytest.raises(TaxonomyError, match="line 2: node '1' has parent 'B' here but 'A'"):
        read_taxonomy(p)
    c = tmp_path / "tax.csv"
    c.write_text("item,level2,level1\nx,X,ALLX\ny,X,ALLX\nz,Z,ALLZ\n")
    t2 = read_taxonomy(c)
    assert t2.leaf_count("X") == 2 and t2.parent("X") == "ALLX" and t2.root == "ALL"
    c.write_text("item,level2,level1\nx,X,A\nx2,X,B\n")
    with pytest.raises(TaxonomyError, match="sits under both"):
        read_taxonomy(c)
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(TaxonomyError, match="empty"):
        read_taxonomy(tmp_path / "empty.txt")


def test_groceries_taxonomy_covers_data_and_keeps_clashing_names_apart():
    data, tax = load("groceries"), load_taxonomy("groceries")
    tax.check_covers(data.items)
    assert len(tax.leaves) == 169 and tax.height == 3
    assert tax.is_leaf("sausage") and "sausage [level 2]" in tax
    assert [len(tax.level(d)) for d in range(4)] == [1, 10, 55, 169]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 80), st.integers(2, 7), st.integers(0, 5))
def test_balanced_taxonomy_properties(n, fanout, seed):
    t = Taxonomy.balanced(range(n), fanout, order="random", rng=seed)
    assert sorted(t.leaves, key=int) == [str(i) for i in range(n)]
    assert all(len(t.children(v)) <= max(fanout, 1) for v in t.nodes if not t.is_leaf(v))
    for depth in range(t.height + 1):
        assert t.is_cut(t.level(depth))
    assert t.leaf_count(t.root) == n


def test_groups_and_from_groups():
    g = ItemGroups({"fruit": ["apple", "pear"], "meat": ["beef"]})
    assert g.group_of("beef") == "meat" and len(g) == 2
    with pytest.raises(ParameterError, match="in two groups"):
        ItemGroups({"a": [1, 2], "b": [2]})
    t = Taxonomy.from_groups(g)
    assert t.leaf_count("fruit") == 2 and t.root == "ALL"
    tax = load_taxonomy("clump_food")
    assert tax.groups_at(1).group_of("Milk") == "Dairy"


def test_restrict(fig1):
    r = fig1.restrict(["a", "b", "x"])
    assert sorted(r.leaves) == ["a", "b", "x"] and r.root == "T"
