"""DiffPart's partition tree drawn from the release alone: ``graphanon.viz.dp`` and ``graphanon draw partitions``."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from graphanon.algorithms.dp.diffpart import anonymize_diffpart
from graphanon.data import from_iterable
from graphanon.errors import ParameterError
from graphanon.release import load_release
from graphanon.viz.dp import draw_partition_tree, partition_tree, partition_tree_view
from tests.conftest import cli

UNIVERSE = [f"i{j}" for j in range(12)]
RECORDS = [["i0", "i1"]] * 400 + [["i3"]] * 300 + [["i4", "i9"]] * 200 + [["i7"]] * 100


@pytest.fixture(scope="module")
def release():
    rel = anonymize_diffpart(from_iterable(RECORDS), epsilon=8.0, universe=UNIVERSE, fanout=3)
    assert rel.n_records > 0
    return rel


def test_the_tree_sums_the_released_noisy_counts_level_by_level(release):
    tree = partition_tree(release)
    assert tree.labels[0] == "{root}" and tree.counts[0] == release.n_records
    last = int(tree.stage.max())
    assert last == 3  # 12 items, fan-out 3: root, 2 groups of groups, 4 groups, items
    for s in range(last + 1):  # every stage holds every released copy
        assert tree.counts[tree.stage == s].sum() == release.n_records
    for v in range(1, tree.n_nodes):  # a parent's count is the sum of its children's
        kids = np.flatnonzero(tree.parent == v)
        if len(kids):
            assert tree.counts[kids].sum() == tree.counts[v]
    # the last stage is the released itemsets with their noisy counts, nothing else
    released = {"{" + ", ".join(sorted(release.items[j] for j in row.indices)) + "}": int(c)
                for row, c in zip(release.itemsets, release.counts)}
    leaves = {tree.labels[v]: int(tree.counts[v]) for v in np.flatnonzero(tree.stage == last)}
    assert leaves == released


def test_it_reads_the_release_only(release, tmp_path):
    path = tmp_path / "r.json"
    release.save(path)
    again = partition_tree(load_release(path))  # from the published file: the same tree
    tree = partition_tree(release)
    assert again.labels == tree.labels and again.counts.tolist() == tree.counts.tolist()
    view = partition_tree_view(load_release(path))
    assert view.n_nodes == tree.n_nodes and "never publish one" in view.data["note"]
    ax = draw_partition_tree(load_release(path), ax=Figure().subplots(), max_nodes=4)
    assert "not drawn" in ax.get_title() and f"{tree.n_nodes} partitions" in ax.get_title()


def test_refusals(release):
    from graphanon.taxonomy import Taxonomy

    with pytest.raises(ParameterError, match="synthetic"):
        partition_tree(type("R", (), {"kind": "global_recoding"})())
    other = Taxonomy.balanced([f"x{j}" for j in range(12)], fanout=3)
    with pytest.raises(ParameterError, match="not the release's universe"):
        partition_tree(release, other)
    rel = anonymize_diffpart(from_iterable(RECORDS), epsilon=8.0, taxonomy=Taxonomy.balanced(UNIVERSE, fanout=4))
    with pytest.raises(ParameterError, match="made over a given taxonomy"):
        partition_tree(rel)
    assert partition_tree(rel, Taxonomy.balanced(UNIVERSE, fanout=4)).counts[0] == rel.n_records


def test_cli_draw_partitions(release, tmp_path):
    path = tmp_path / "r.json"
    release.save(path)
    for name in ("tree.png", "tree.svg", "tree.html"):
        res = cli("draw", "partitions", path, "-o", tmp_path / name)
        assert res.exit_code == 0, res.output
    assert (tmp_path / "tree.png").read_bytes()[:4] == b"\x89PNG"
    page = (tmp_path / "tree.html").read_text()
    assert "DiffPart partition tree implied by r.json" in page and "http" not in page.split("<script>")[0]
    res = cli("draw", "partitions", path, "-o", tmp_path / "x.png", "--taxonomy", "balanced:3")
    assert res.exit_code == 2 and "drop --taxonomy" in res.output
    (tmp_path / "d.txt").write_text("a,b\na,b\nc\nc\n")
    res = cli("anonymize", tmp_path / "d.txt", "-a", "aa", "-k", "2", "-m", "2", "--taxonomy",
                     "balanced:2", "-o", tmp_path / "s.json")
    assert res.exit_code == 0, res.output
    res = cli("draw", "partitions", tmp_path / "s.json", "-o", tmp_path / "x.png")
    assert res.exit_code == 2 and "give a synthetic (DiffPart) release" in res.output
    res = cli("draw", "partitions", "--help")
    assert res.exit_code == 0 and "nothing exact" in " ".join(res.output.split())
