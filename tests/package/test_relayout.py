"""tools/relayout.py, the record of the layout move (issue 21): complete, idempotent, whole names only."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def relayout():
    spec = importlib.util.spec_from_file_location("relayout", ROOT / "tools" / "relayout.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["relayout"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("relayout", None)


def test_every_module_is_at_its_new_path(relayout):
    moves = relayout.all_moves()
    at_old = [old for old in moves if (ROOT / relayout.module_path(old)).exists()]
    # _numba_cache arrives with a branch of issue 20; every other target exists
    missing = [new for old, new in moves.items() if old != "graphanon._numba_cache"
               and not (ROOT / relayout.module_path(new)).exists()]
    assert at_old == [] and missing == []


def test_no_old_name_is_left_in_the_tree(relayout):
    """After a merge that brings old paths back, this fails until ``python tools/relayout.py`` is run."""
    assert list(relayout.rewrite_tree(write=False)) == []


def test_new_modules_import_and_keep_their_public_names(relayout):
    for new in relayout.all_moves().values():
        if (ROOT / relayout.module_path(new)).exists():
            importlib.import_module(new)
    from graphanon.taxonomy import ItemGroups, Taxonomy, read_taxonomy
    from graphanon.taxonomy.tree import Taxonomy as TreeTaxonomy

    assert Taxonomy is TreeTaxonomy and callable(read_taxonomy) and ItemGroups.__module__ == "graphanon.taxonomy.itemgroups"


def _forms(name: str) -> list[str]:
    parent, _, leaf = name.rpartition(".")
    return [
        f"import {name}\n",
        f"from {name} import thing  # comment\n",
        f'monkeypatch.setattr("{name}.thing", None)\n',
        f"see :mod:`~{name}` and `{name}.thing`.\n",
        f"    from {parent} import {leaf}\n",
        f"from {parent} import {leaf} as alias\n",
        f'    "from {parent} import {leaf}\\n",\n',  # a notebook's JSON source line
        f"graphanon/{name.removeprefix('graphanon.').replace('.', '/')}.py\n",
    ]


def test_every_old_name_is_rewritten_once(relayout):
    for old, new in relayout.MOVES.items():
        for text in _forms(old):
            once = relayout.rewrite(text, "tests/x.py")
            assert relayout.rewrite(once, "tests/x.py") == once, text
            assert relayout.DOTTED.search(once) is None, (text, once)
            new_parent, _, new_leaf = new.rpartition(".")
            assert new in once or f"from {new_parent} import {new_leaf}" in once \
                or relayout.module_path(new) in once, (text, once)


@pytest.mark.parametrize("text", [
    "graphanon.supporting", "benchmarks.support", "x.graphanon.support", "graphanon.labelsx",
    "from graphanon.taxonomy import Taxonomy", "graphanon.taxonomy.Taxonomy.leaves",
    "graphanon.taxonomy.tree.Taxonomy", "graphanon.algorithms.hierarchy.aa", "graphanon/support.pyc",
    "from graphanon import datasets", "the support of graphanon", "graphanon.algorithms.nonreciprocal.cahd",
])
def test_unrelated_text_is_left_alone(relayout, text):
    assert relayout.rewrite(text, "docs/x.md") == text


def test_the_registry_table_is_rewritten(relayout):
    table = 'BUILTIN = {\n    "aa": "apriori", "mm": "suppression", "nr": "nonreciprocal.anonymize",\n    "x": "cahd_release",\n}\n'
    out = relayout.rewrite(table, "graphanon/algorithms/registry.py")
    assert out == ('BUILTIN = {\n    "aa": "hierarchy.aa", "mm": "hierarchy.mm", "nr": "nonreciprocal.anonymize",\n'
                   '    "x": "nonreciprocal.cahd",\n}\n')
    assert relayout.rewrite(out, "graphanon/algorithms/registry.py") == out


def test_a_mixed_import_is_left_to_a_person(relayout):
    with pytest.raises(relayout.ManualFix, match="split it by hand"):
        relayout.rewrite("from graphanon import support, datasets\n", "tests/x.py")
