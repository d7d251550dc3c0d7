"""The import direction of the package, enforced by walking every module's imports.

Every ``import`` / ``from ... import`` statement of every module under
``graphanon/`` is read with :mod:`ast` -- module level *and* inside functions
(a function-local import is still a dependency; it only hides a cycle) -- and
checked against the layer rules below. A module's layer is the folder it sits
in (:data:`LAYERS`): there are no hand-kept module lists. The rules are checked
on synthetic import maps too, one per crossing the package used to have
(issues 12 and 21), so the checker itself is shown to catch them.

Layers, bottom to top:

* **bottom** -- ``graphanon.utils`` (validation, randomness, progress, memory
  budget, lazy imports, labels), ``graphanon.counting`` (supports, bitmaps,
  containment, bitsets, rows), ``graphanon.readwrite`` (formats, text, atomic
  files, constraint files), ``graphanon.distributed``, and the flat modules
  ``graphanon.errors`` and ``graphanon.data``: numpy/scipy/numba/stdlib and
  each other only (the readers may also use pandas/pyarrow, the distributed
  helpers dask);
* **taxonomy layer** -- ``graphanon.taxonomy`` (taxonomies, builders, item
  groups, categories, COAT's constraint sets), ``graphanon.datasets`` and
  ``graphanon.relational`` (relational tables, their hierarchies, the joined data):
  bottom and each other;
* ``graphs`` (structures only): bottom and the taxonomy layer;
* ``release``: bottom, taxonomy layer and ``graphs``;
* ``metrics`` (loss, error, query workloads): bottom, taxonomy layer,
  ``graphs``, ``release``;
* ``algorithms`` and ``privacy``: anything below, never each other;
* ``attacks``, ``viz``: anything below but ``study`` and the CLI;
* ``study`` (grids of runs, their table and report; may use pandas/pyarrow): anything below but the CLI,
  and ``release.base`` may read the methods' published-parameter allowlists (:data:`ALLOWED_CROSSINGS`);
* ``cli``: anything.

``click``/``rich`` only in the CLI; ``matplotlib`` only in ``graphanon.viz``
and the CLI; ``pandas``/``pyarrow`` only in ``graphanon.readwrite``,
``graphanon.data`` (and ``pyarrow`` in ``graphanon.distributed``'s Parquet
reader); ``dask`` only in ``graphanon.distributed``.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "graphanon"

#: module or package -> its layer; a module takes the layer of the longest entry it is or lies under
LAYERS = {
    "graphanon": "api", "graphanon.__main__": "api",
    "graphanon.utils": "bottom", "graphanon.counting": "bottom", "graphanon.readwrite": "bottom",
    "graphanon.distributed": "bottom", "graphanon.errors": "bottom", "graphanon.data": "bottom",
    "graphanon.taxonomy": "taxonomy", "graphanon.datasets": "taxonomy", "graphanon.relational": "taxonomy",
    **{f"graphanon.{name}": name for name in (
        "graphs", "release", "metrics", "algorithms", "privacy", "attacks", "viz", "study", "cli")},
    # a plugin's method reaches every door (the command line's too); the common checks run every door
    "graphanon.plugins": "cli", "graphanon.testing": "cli",
}
#: at most this many modules sit flat at the top of graphanon/ (besides the packages)
MAX_FLAT_MODULES = 8
BOTTOM_THIRD_PARTY = {"numpy", "scipy", "numba"}
#: third-party packages only some places may import: package -> where (module or package prefixes)
RESTRICTED_THIRD_PARTY = {
    "click": ("graphanon.cli",),
    "rich": ("graphanon.cli",),
    "matplotlib": ("graphanon.viz", "graphanon.cli"),
    "pandas": ("graphanon.readwrite", "graphanon.data", "graphanon.study"),
    "pyarrow": ("graphanon.readwrite", "graphanon.data", "graphanon.distributed.parquet", "graphanon.study"),
    "dask": ("graphanon.distributed",),
    "distributed": ("graphanon.distributed",),
}
#: where a module or package that belongs to no layer should go
WHERE_TO_PUT = (
    "put a helper under graphanon/utils/, counting under graphanon/counting/, a reader or writer under "
    "graphanon/readwrite/, taxonomy code under graphanon/taxonomy/, a method under graphanon/algorithms/, "
    "an audit under graphanon/privacy/ -- or give a new package its layer in LAYERS (tests/package/test_layers.py) "
    "and docs/architecture.md"
)


def _under(mod: str, prefix: str) -> bool:
    return mod == prefix or mod.startswith(prefix + ".")


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


@functools.cache
def _package_imports() -> tuple[tuple[str, frozenset[str]], ...]:
    """Every package module's imports, parsed once for the four tests that read them (2.3 s of CPU a parse)."""
    return tuple((module_name(p), frozenset(imports_of(p))) for p in sorted(PACKAGE.rglob("*.py")))


def import_map() -> dict[str, set[str]]:
    return {mod: set(imported) for mod, imported in _package_imports()}


def _known(imported: set[str], modules: set[str]) -> set[str]:
    """The graphanon modules among ``imported`` (drops ``from m import function`` names)."""
    return {m for m in imported if m in modules}


def layer(mod: str) -> str | None:
    """The layer of module ``mod``: that of the longest :data:`LAYERS` entry it is or lies under.

    None for a module of no layer (a new top-level module or package nobody placed).
    """
    owners = [prefix for prefix in LAYERS if _under(mod, prefix) and prefix != "graphanon"]
    if not owners:
        return "api" if mod == "graphanon" else None
    return LAYERS[max(owners, key=len)]


def third_party_allowed(mod: str, top: str) -> bool:
    """Whether ``mod`` may import the third-party package ``top`` (the restricted ones only in their places)."""
    places = RESTRICTED_THIRD_PARTY.get(top)
    return places is None or any(_under(mod, place) for place in places)


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
    "study": {"bottom", "taxonomy", "graphs", "release", "privacy", "algorithms", "metrics", "attacks", "viz"},
    "cli": {"bottom", "taxonomy", "graphs", "release", "privacy", "algorithms", "metrics", "attacks", "viz",
            "study"},
}


#: (module, imported module) crossings allowed until each method's declaration moves beside the method
#: (issue 31): the study runs a method through its command-line declaration, as ``graphanon anonymize``
#: does (``graphanon.cli.registry`` imports no click), so every door has the same defaults. This module only.
#: (module, what it imports) pairs allowed across the rules, each with its reason:
#: a saved release names its method, and the method's published-parameter allowlist is declared beside the
#: method (issue 31): ``release.base`` reads it from the declarations, imported when a release is saved.
ALLOWED_CROSSINGS = {("graphanon.release.base", "graphanon.algorithms.registry")}


def violations(imap: dict[str, set[str]]) -> list[str]:
    """Every layer-rule crossing in an import map ``{module: imported names}``."""
    modules = set(imap) - {"graphanon"}  # the package facade re-exports; it is nobody's dependency
    out = []
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for mod, imported in sorted(imap.items()):
        here = layer(mod)
        if here is None:
            out.append(f"{mod} belongs to no layer: {WHERE_TO_PUT}")
            continue
        allowed = ALLOWED.get(here)
        for target in sorted(_known(imported, modules)):
            there = layer(target)
            if target == mod or there == here or allowed is None or (mod, target) in ALLOWED_CROSSINGS:
                continue
            if there not in allowed:
                out.append(f"{mod} ({here}) imports {target} ({there})")
        for name in sorted(imported):
            top = name.split(".")[0]
            if top == "graphanon":
                continue
            if not third_party_allowed(mod, top):
                places = " and ".join(RESTRICTED_THIRD_PARTY[top])
                out.append(f"{mod} imports {top}: only {places} may")
            elif here == "bottom" and top not in BOTTOM_THIRD_PARTY | RESTRICTED_THIRD_PARTY.keys() | stdlib:
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


def test_the_study_no_longer_reads_the_cli_and_the_release_reads_only_the_method_registry():
    """The study reads the method declarations below it (issue 31): no crossing into the CLI is left; the
    release layer reads the declared allowlists from ``algorithms.registry`` and nothing else above it."""
    allowed = {"graphanon.release.base": {"graphanon.algorithms.registry"},
               "graphanon.algorithms": set(), "graphanon.algorithms.registry": set(), "graphanon.cli.registry": set(),
               "graphanon.algorithms.hierarchy.aa": set()}
    assert violations(allowed) == []
    assert violations({**allowed, "graphanon.study._run": {"graphanon.cli.registry"}}) == [
        "graphanon.study._run (study) imports graphanon.cli.registry (cli)"]
    assert violations({**allowed, "graphanon.release.base": {"graphanon.algorithms.hierarchy.aa"}}) == [
        "graphanon.release.base (release) imports graphanon.algorithms.hierarchy.aa (algorithms)"]


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
        "graphanon.algorithms.hierarchy.aa": {"graphanon.privacy.km", "graphanon.privacy.km.check_k"},
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
        "graphanon.algorithms.hierarchy.mm": {"graphanon.privacy.hkp", "graphanon.privacy.hkp.expand_params"},
        "graphanon.privacy.hkp": set(),
    },
    "graphs import release": {
        "graphanon.graphs.constraints": {"graphanon.release.global_recoding"},
        "graphanon.release.global_recoding": set(),
    },
    "viz outside matplotlib's home": {"graphanon.metrics.x": {"matplotlib.pyplot"}},
    "rich outside the CLI": {"graphanon.algorithms.x": {"rich.progress"}},
    "bottom layer imports networkx": {"graphanon.counting.support": {"networkx"}},
    "bottom layer imports a graph": {
        "graphanon.counting.support": {"graphanon.graphs.lattice"},
        "graphanon.graphs.lattice": set(),
    },
    "release imports algorithms": {
        "graphanon.release.nonreciprocal": {"graphanon.algorithms.nonreciprocal"},
        "graphanon.algorithms.nonreciprocal": set(),
    },
    # issue 21: the layers are folders; each folder of the bottom layer is bottom, whatever its name says
    "counting imports the taxonomy": {
        "graphanon.counting.support": {"graphanon.taxonomy", "graphanon.taxonomy.Taxonomy"},
        "graphanon.taxonomy": set(),
    },
    "a reader imports a taxonomy submodule": {
        "graphanon.readwrite.constraints": {"graphanon.taxonomy.constraint_sets"},
        "graphanon.taxonomy.constraint_sets": set(),
    },
    "utils imports a hierarchy kernel": {
        "graphanon.utils.validation": {"graphanon.algorithms.hierarchy._index"},
        "graphanon.algorithms.hierarchy._index": set(),
    },
    "the taxonomy layer imports graphs": {
        "graphanon.taxonomy.tree": {"graphanon.graphs.lattice"},
        "graphanon.graphs.lattice": set(),
    },
    "a method family imports an audit": {
        "graphanon.algorithms.grouping.clump": {"graphanon.privacy.local"},
        "graphanon.privacy.local": set(),
    },
    "pandas in counting": {"graphanon.counting.rows": {"pandas"}},
    "pyarrow in algorithms": {"graphanon.algorithms.hierarchy.aa": {"pyarrow.parquet"}},
    "dask outside graphanon.distributed": {"graphanon.algorithms.hierarchy._aa_counts": {"dask.array"}},
    "networkx in utils": {"graphanon.utils.labels": {"networkx"}},
    "a top-level module of no layer": {"graphanon.helpers": {"numpy"}},
    "a top-level package of no layer": {"graphanon.sampling.reservoir": set()},
}

OLD_PRIVATE = {
    "cahd imports _check_order, _pad_words": {
        "graphanon.algorithms.nonreciprocal.cahd_groups": {"graphanon.graphs.order", "graphanon.graphs.order._check_order",
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


#: The most lines a module of graphanon/ may have (one concept per module: split a longer one by meaning).
MAX_MODULE_LINES = 520


def test_modules_stay_short():
    """No module of graphanon/ over ~500 lines."""
    long = {str(p.relative_to(PACKAGE)): n for p in sorted(PACKAGE.rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert long == {}


def flat_modules(package: Path = PACKAGE) -> list[str]:
    """The modules that sit flat at the top of ``package`` (files, not packages)."""
    return sorted(p.name for p in package.glob("*.py"))


def test_at_most_eight_flat_modules():
    """The layers are folders: the top of graphanon/ holds the entry points and little else."""
    flat = flat_modules()
    assert len(flat) <= MAX_FLAT_MODULES, (
        f"{len(flat)} flat modules at the top of graphanon/ ({', '.join(flat)}); at most {MAX_FLAT_MODULES}: "
        f"{WHERE_TO_PUT}"
    )


def test_flat_module_count_is_checked(tmp_path):
    for i in range(MAX_FLAT_MODULES + 1):
        (tmp_path / f"m{i}.py").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "inner.py").write_text("")
    assert len(flat_modules(tmp_path)) == MAX_FLAT_MODULES + 1  # the package's modules do not count


def test_every_module_belongs_to_a_layer():
    homeless = [mod for mod in import_map() if layer(mod) is None]
    assert homeless == [], f"{', '.join(homeless)}: {WHERE_TO_PUT}"


@pytest.mark.parametrize(("mod", "expected"), [
    ("graphanon", "api"), ("graphanon.errors", "bottom"), ("graphanon.data", "bottom"),
    ("graphanon.utils.randomness", "bottom"), ("graphanon.counting._bitset_kernels", "bottom"),
    ("graphanon.readwrite.constraints", "bottom"), ("graphanon.distributed.parquet", "bottom"),
    ("graphanon.taxonomy", "taxonomy"), ("graphanon.taxonomy.tree", "taxonomy"), ("graphanon.datasets.bundled", "taxonomy"),
    ("graphanon.algorithms.hierarchy.mm", "algorithms"), ("graphanon.privacy.km", "privacy"),
    ("graphanon.errors_extra", None), ("graphanon.utilities", None), ("graphanon.taxonomies.x", None),
])
def test_layer_is_read_from_the_folder(mod, expected):
    assert layer(mod) == expected


def test_a_homeless_module_is_told_where_to_go():
    (message,) = violations({"graphanon.helpers": set()})
    assert "graphanon.helpers belongs to no layer" in message and "graphanon/utils/" in message
