"""The import direction of the package, enforced by walking every module's imports.

Every ``import`` / ``from ... import`` statement of every module under
``graphanon/`` is read with :mod:`ast` -- module level *and* inside functions
(a function-local import is still a dependency; it only hides a cycle) -- and
checked against the layer rules below. The rules are checked on synthetic
import maps too, one per crossing the package used to have (issue 12), so
the checker itself is shown to catch them.

Layers, bottom to top:

* **bottom** (validation, bitsets/support counting, RNG handling, progress
  types, files, the data layer): numpy/scipy/numba/stdlib and each other only
  (the data readers may also use pandas);
* **taxonomy layer** (taxonomy, item groups and categories, bundled
  datasets, COAT's constraint sets):
  bottom and each other;
* ``graphs`` (structures only): bottom and the taxonomy layer;
* ``release``: bottom, taxonomy layer and ``graphs``;
* ``metrics`` (loss, error, query workloads): bottom, taxonomy layer,
  ``graphs``, ``release``;
* ``algorithms`` and ``privacy``: anything below, never each other;
* ``attacks``, ``viz``: anything below but the CLI;
* ``cli``: anything.

``click``/``rich`` only in the CLI; ``matplotlib`` only in ``graphanon.viz``
and the CLI.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "graphanon"

BOTTOM = {
    "graphanon.errors", "graphanon.labels", "graphanon._validation", "graphanon._random",
    "graphanon._progress", "graphanon._memory", "graphanon._io", "graphanon._rows", "graphanon._bitset", "graphanon._params",
    "graphanon._lazy", "graphanon._bitset_kernels", "graphanon._numba_cache",
    "graphanon.support", "graphanon.bitmaps", "graphanon.containment", "graphanon.data", "graphanon.formats", "graphanon._textio",
    "graphanon.formats_csv",
    "graphanon.formats_parquet", "graphanon.distributed", "graphanon.distributed._blocks", "graphanon.distributed.support",
    "graphanon.distributed._client", "graphanon.distributed.containment", "graphanon.distributed.parquet",
    "graphanon.distributed.tasks", "graphanon.distributed.groups",
}
TAXONOMY_LAYER = {
    "graphanon.taxonomy", "graphanon.taxonomy_build", "graphanon.itemgroups", "graphanon.categories", "graphanon.datasets", "graphanon.constraints_io",
    "graphanon.datasets.catalog", "graphanon.datasets.bundled",
    "graphanon.constraint_sets",
}
BOTTOM_THIRD_PARTY = {"numpy", "scipy", "numba"}
#: the readers of the data layer may use pandas (CSV parsing) and pyarrow (Parquet, optional extra);
#: support counting on a cluster uses dask (optional extra)
DATA_THIRD_PARTY = {
    "graphanon.data": {"pandas"}, "graphanon.formats": {"pandas"}, "graphanon.formats_parquet": {"pyarrow"},
    "graphanon.distributed": {"dask", "distributed"},
    "graphanon.distributed._blocks": {"dask", "distributed"},
    "graphanon.distributed.support": {"dask", "distributed"},
    "graphanon.distributed._client": {"dask", "distributed"},
    "graphanon.distributed.containment": {"dask", "distributed"},
    "graphanon.distributed.parquet": {"dask", "distributed", "pyarrow"},
    "graphanon.distributed.tasks": {"dask", "distributed"},
    "graphanon.distributed.groups": {"dask", "distributed"},
}
CLI_ONLY = {"click", "rich"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def import_target(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a ``from ... import`` statement reads (relative to ``package`` when dotted)."""
    if not node.level:
        return node.module
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in the file, as absolute dotted names.

    ``from graphanon.x import y`` yields ``graphanon.x`` and ``graphanon.x.y``
    (``y`` may be a submodule); relative imports are resolved.
    """
    mod = module_name(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = import_target(node, package)
            out.add(target)
            out.update(f"{target}.{alias.name}" for alias in node.names if alias.name != "*")
    return out


def import_map() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def _known(imported: set[str], modules: set[str]) -> set[str]:
    """The graphanon modules among ``imported`` (drops ``from m import function`` names)."""
    return {m for m in imported if m in modules}


def layer(mod: str) -> str:
    if mod in BOTTOM:
        return "bottom"
    if mod in TAXONOMY_LAYER:
        return "taxonomy"
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else "api"


#: layer -> layers it may import (besides itself)
ALLOWED = {
    "bottom": {"bottom"},
    "taxonomy": {"bottom", "taxonomy"},
    "graphs": {"bottom", "taxonomy"},
    "release": {"bottom", "taxonomy", "graphs"},
    "metrics": {"bottom", "taxonomy", "graphs", "release"},
    "algorithms": {"bottom", "taxonomy", "graphs", "release", "metrics"},
    "privacy": {"bottom", "taxonomy", "graphs", "release", "metrics"},
    "attacks": {"bottom", "taxonomy", "graphs", "release", "privacy", "algorithms", "metrics"},
    "viz": {"bottom", "taxonomy", "graphs", "release", "privacy", "algorithms", "metrics", "attacks"},
    "cli": {"bottom", "taxonomy", "graphs", "release", "privacy", "algorithms", "metrics", "attacks", "viz"},
}


def violations(imap: dict[str, set[str]]) -> list[str]:
    """Every layer-rule crossing in an import map ``{module: imported names}``."""
    modules = set(imap) - {"graphanon"}  # the package facade re-exports; it is nobody's dependency
    out = []
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for mod, imported in sorted(imap.items()):
        here = layer(mod)
        allowed = ALLOWED.get(here)
        for target in sorted(_known(imported, modules)):
            there = layer(target)
            if target == mod or there == here or allowed is None:
                continue
            if there not in allowed:
                out.append(f"{mod} ({here}) imports {target} ({there})")
        for name in sorted(imported):
            top = name.split(".")[0]
            if top == "graphanon":
                continue
            if top in CLI_ONLY and here != "cli":
                out.append(f"{mod} imports {top}: only the CLI may")
            if top == "matplotlib" and here not in ("viz", "cli"):
                out.append(f"{mod} imports matplotlib: only graphanon.viz and the CLI may")
            if here == "bottom" and top not in BOTTOM_THIRD_PARTY | DATA_THIRD_PARTY.get(mod, set()) and top not in stdlib:
                out.append(f"{mod} (bottom) imports {top}: the bottom layer uses numpy/scipy/numba/stdlib only")
    return out


def private_imports(imap: dict[str, set[str]]) -> list[str]:
    """``from graphanon.a import _helper``: a private name of another module (allowed only between the
    modules of one family subpackage, e.g. ``graphanon.algorithms.nonreciprocal``)."""
    modules = set(imap)
    out = []
    for mod, imported in sorted(imap.items()):
        for name in sorted(imported):
            owner, _, leaf = name.rpartition(".")
            if owner in modules and name not in modules and leaf.startswith("_") and not leaf.startswith("__"):
                family = owner.rpartition(".")[0]
                # a family subpackage (graphanon.algorithms.nonreciprocal) shares its kernels inside itself
                if not (family == mod.rpartition(".")[0] and family.count(".") >= 2):
                    out.append(f"{mod} imports {leaf} from {owner}")
    return out


def test_package_follows_the_layer_rules():
    assert violations(import_map()) == []


def test_no_private_helpers_imported_across_packages():
    assert private_imports(import_map()) == []


def test_walker_sees_function_local_and_relative_imports(tmp_path):
    imap = import_map()
    # a function-local import (cli reads the bundled datasets inside a command)
    assert any(m.startswith("graphanon") for m in imap["graphanon.cli"])
    src = PACKAGE / "algorithms" / "coat" / "__init__.py"
    assert "graphanon.algorithms.coat.engine" in imports_of(src)


#: The crossings the package had before issue 12, as synthetic import maps.
OLD_CROSSINGS = {
    "algorithms import check_k from privacy.km": {
        "graphanon.algorithms.apriori": {"graphanon.privacy.km", "graphanon.privacy.km.check_k"},
        "graphanon.privacy.km": set(),
    },
    "privacy/constraints imports COAT's CLI parsers": {
        "graphanon.privacy.constraints": {"graphanon.algorithms.coat", "graphanon.algorithms.coat.parse_privacy"},
        "graphanon.algorithms.coat": set(),
    },
    "privacy/hkp imports algorithms/registry": {
        "graphanon.privacy.hkp": {"graphanon.algorithms.registry"},
        "graphanon.algorithms.registry": set(),
    },
    "graphs/constraints imports algorithms/coat (function-local)": {
        "graphanon.graphs.constraints": {"graphanon.algorithms.coat", "graphanon.algorithms.coat.as_utility_blocks"},
        "graphanon.algorithms.coat": set(),
    },
    "algorithms/suppression imports privacy/hkp": {
        "graphanon.algorithms.suppression": {"graphanon.privacy.hkp", "graphanon.privacy.hkp.expand_params"},
        "graphanon.privacy.hkp": set(),
    },
    "graphs import release": {
        "graphanon.graphs.constraints": {"graphanon.release.global_recoding"},
        "graphanon.release.global_recoding": set(),
    },
    "viz outside matplotlib's home": {"graphanon.metrics.x": {"matplotlib.pyplot"}},
    "rich outside the CLI": {"graphanon.algorithms.x": {"rich.progress"}},
    "bottom layer imports networkx": {"graphanon.support": {"networkx"}},
    "bottom layer imports a graph": {
        "graphanon.support": {"graphanon.graphs.lattice"},
        "graphanon.graphs.lattice": set(),
    },
    "release imports algorithms": {
        "graphanon.release.nonreciprocal": {"graphanon.algorithms.nonreciprocal"},
        "graphanon.algorithms.nonreciprocal": set(),
    },
}

OLD_PRIVATE = {
    "cahd imports _check_order, _pad_words": {
        "graphanon.algorithms.cahd": {"graphanon.graphs.order", "graphanon.graphs.order._check_order",
                                      "graphanon.graphs.order._pad_words"},
        "graphanon.graphs.order": set(),
    },
    "privacy/constraints imports _require_global": {
        "graphanon.privacy.constraints": {"graphanon.privacy.km", "graphanon.privacy.km._require_global"},
        "graphanon.privacy.km": set(),
    },
    "taxonomy imports data._read_all": {
        "graphanon.taxonomy": {"graphanon.data", "graphanon.data._read_all"},
        "graphanon.data": set(),
    },
}


@pytest.mark.parametrize("name", sorted(OLD_CROSSINGS))
def test_checker_catches_the_old_crossings(name):
    assert violations(OLD_CROSSINGS[name]), name


@pytest.mark.parametrize("name", sorted(OLD_PRIVATE))
def test_checker_catches_old_private_imports(name):
    assert private_imports(OLD_PRIVATE[name]), name


def test_modules_stay_short():
    """No module of the restructured families over ~500 lines."""
    roots = [PACKAGE / "algorithms" / "nonreciprocal", PACKAGE / "algorithms" / "coat", PACKAGE / "graphs"]
    files = [p for r in roots for p in r.rglob("*.py")]
    files += [PACKAGE / n for n in ("_bitset.py", "constraint_sets.py")]
    files += [PACKAGE / "algorithms" / n for n in ("cahd.py", "cahd_release.py")]
    long = {str(p.relative_to(PACKAGE)): n for p in files if (n := len(p.read_text().splitlines())) > 520}
    assert long == {}
