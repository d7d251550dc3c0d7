"""What importing graphanon costs: which heavy dependencies each entry point loads.

Each case runs in a fresh interpreter (a subprocess) and lists ``sys.modules``
afterwards; the assertions are about *which* modules are loaded, never about
time (the timings are in ``benchmarks/startup.py`` and docs/performance.md).

The second half enforces the rule for function-local imports (issue 12): one
is allowed only for a heavy dependency or with a stated reason.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.package.test_layers import PACKAGE, import_target, module_name

#: compiled kernels, solvers, plotting, dataframes and the cluster engine: loaded only where used
HEAVY = ("numba", "llvmlite", "ortools", "matplotlib", "pandas", "pyarrow", "dask", "distributed", "igraph")
#: what the command line must not need just to start
SCIENTIFIC = ("numpy", "scipy", "networkx")


def loaded_after(code: str) -> set[str]:
    """Top-level package names in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = (
        f"{code}\n"
        "import sys, json\n"
        "sys.stdout.write('\\nMODULES ' + json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.rpartition("\nMODULES ")[2]))


def cli(*args: str) -> str:
    """Code that runs ``graphanon ARGS`` in-process (what the console script does) and returns."""
    return (
        "from graphanon.cli import main\n"
        "try:\n"
        f"    main({list(args)!r})\n"
        "except SystemExit as exc:\n"
        "    assert exc.code in (0, None), exc.code\n"
    )


@pytest.mark.parametrize("code, forbidden", [
    ("import graphanon", HEAVY + SCIENTIFIC),
    ("import graphanon.algorithms", HEAVY + ("scipy", "networkx")),
    ("import graphanon.privacy, graphanon.release, graphanon.metrics, graphanon.graphs", HEAVY + SCIENTIFIC),
    (cli("--help"), HEAVY + SCIENTIFIC),
    (cli("anonymize", "--help"), HEAVY + SCIENTIFIC),
    (cli("datasets"), HEAVY + SCIENTIFIC),
    (cli("datasets", "--json"), HEAVY + ("scipy", "networkx")),  # JSON output converts numpy scalars
    ("from graphanon.viz import views, save_figure", ("matplotlib", "numba", "ortools", "dask", "pyarrow")),
])
def test_entry_points_stay_light(code, forbidden):
    assert loaded_after(code) & set(forbidden) == set()


@pytest.mark.parametrize("name", [
    "anonymize_aa", "anonymize_hghs", "anonymize_mhghs", "anonymize_mm", "anonymize_cut", "anonymize_coat",
    "anonymize_partition",
])
def test_light_methods_import_no_kernels(name):
    """Importing a method that needs no compiled kernel at import time loads none of them
    (AA and HgHs load numba when their first suppression scenario runs, not before)."""
    assert loaded_after(f"from graphanon.algorithms import {name}") & set(HEAVY) == set()


def test_light_method_runs_and_loads_its_kernel_on_use():
    """The kernel is imported where it is needed: running mHgHs on a worked example loads numba."""
    code = (
        "from graphanon.algorithms import anonymize_mhghs\n"
        "from graphanon.datasets import load, load_taxonomy\n"
        "import sys\n"
        "assert 'numba' not in sys.modules\n"
        "anonymize_mhghs(load('liuwang_fig1'), k=2, m=2, taxonomy=load_taxonomy('liuwang_fig1'))\n"
    )
    assert "numba" in loaded_after(code)


def test_mm_runs_without_numba():
    """MM's greedy is vectorized numpy: a first MM run pays no numba import or kernel load."""
    code = (
        "from graphanon.algorithms import anonymize_mm\n"
        "from graphanon.datasets import load\n"
        "anonymize_mm(load('liuwang_fig1'), k=2, m=2)\n"
    )
    assert "numba" not in loaded_after(code)


FACADES = ["graphanon", "graphanon.algorithms", "graphanon.algorithms.nonreciprocal", "graphanon.datasets",
           "graphanon.graphs", "graphanon.metrics", "graphanon.privacy", "graphanon.release", "graphanon.viz"]


@pytest.mark.parametrize("package", FACADES)
def test_lazy_facades_resolve_every_public_name(package):
    """Every name in a lazy package's ``__all__`` resolves, to an object defined where the facade says."""
    module = importlib.import_module(package)
    for name in module.__all__:
        if name == "__version__":
            continue
        value = getattr(module, name)
        assert value is not None, f"{package}.{name}"
        assert name in dir(module)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_old_import_paths_still_work():
    from graphanon import Taxonomy, TransactionData, from_iterable
    from graphanon.algorithms import anonymize_aa, anonymize_nonreciprocal, pgen, run_method
    from graphanon.algorithms.nonreciprocal import DETERMINISTIC_STEP_LIMIT, gray_order
    from graphanon.privacy import KmAnonymity
    from graphanon.release import GlobalRecoding

    data = from_iterable([["a", "b"], ["a"], ["b"], ["a", "b"]])
    assert isinstance(data, TransactionData)
    assert anonymize_aa.__module__ == "graphanon.algorithms.hierarchy.aa"
    assert callable(anonymize_nonreciprocal) and callable(pgen) and callable(gray_order)
    assert DETERMINISTIC_STEP_LIMIT > 0
    assert callable(run_method)
    taxonomy = Taxonomy.from_parent_map({"a": "*", "b": "*"})
    release = anonymize_aa(data, taxonomy=taxonomy, k=3, m=1, unsafe_secret_seed=0)
    assert isinstance(release, GlobalRecoding)
    assert KmAnonymity(3, 1).audit(data, release).satisfied


def test_registry_lists_every_builtin_method_and_model():
    """``registered()`` imports the declared spec modules itself (the package imports none); each
    built-in name resolves, in a fresh interpreter, to the spec of that name and to the function of that
    name (what ``get_algorithm`` and ``run_method`` import on demand)."""
    from graphanon.algorithms import registry as methods
    from graphanon.cli import registry
    from graphanon.privacy import registry as models

    names = {
        "aa", "cahd", "clump", "coat", "cut", "fullswap", "hghs", "mhghs", "mm", "nr", "partition", "partsupp",
        "partswap", "randswap", "splitperson", "diffpart", "privbasis", "rt", "rt-naive"}
    assert set(registry.registered()) == set(methods.method_names()) == names
    probe = (
        "from graphanon.cli.registry import get_algorithm\nfrom graphanon.algorithms.registry import get_method\n"
        f"for name in {sorted(names)!r}:\n"
        "    assert get_algorithm(name).name == name, name\n"
        "    assert get_method(name).__name__.startswith('anonymize_'), name\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert set(models.model_names()) == {
        "constraints", "entropy-ldiversity", "hkp", "km", "ldiversity", "nonreciprocal", "recursive-ldiversity",
        "rt", "tendency", "transactional"}
    for name, declaration in models._MODELS.items().items():
        module, attribute = models._MODELS.builtin[name].split(":")
        assert declaration.name == name and declaration.build.__module__ == module, name
        assert getattr(sys.modules[module], attribute) is declaration, name


def test_anonymize_with_aa_loads_no_other_method(tmp_path):
    """``graphanon anonymize -a aa`` imports AA's module only: no numba (AA has no compiled kernel), no
    OR-Tools; and ``bench`` builds only the km audit model."""
    out = tmp_path / "r.json"
    code = cli("anonymize", "liuwang_fig1", "-a", "aa", "-k", "2", "-m", "2", "-o", str(out))
    assert loaded_after(code) & set(HEAVY) == set()
    assert out.exists()
    code = cli("bench", "liuwang_fig1", "-a", "aa", "-k", "2", "-m", "2")
    assert loaded_after(code) & set(HEAVY) == set()


def test_reading_the_record_order_specs_loads_no_kernel():
    """The ``nr`` and ``cahd`` specs (parameters, options) are read without numba: it loads with the run,
    as for every other method with compiled kernels."""
    code = "from graphanon.cli.registry import get_algorithm\nget_algorithm('nr'), get_algorithm('cahd')"
    assert loaded_after(code) & set(HEAVY) == set()


def test_catalog_states_the_sizes_of_the_bundled_data():
    """``graphanon datasets`` prints the catalog without loading the data; the catalog is the data's truth."""
    from graphanon.datasets import list_datasets, load

    for entry in list_datasets():
        summary = load(entry["name"]).summary()
        assert (entry["records"], entry["items"]) == (summary["records"], summary["items"]), entry["name"]
        assert entry["mean_length"] == pytest.approx(summary["mean_length"], rel=1e-12), entry["name"]


# --- function-local imports (issue 12): each one has a reason ------------------------------------------
#
# An import inside a function hides a dependency from the reader and, between graphanon modules, used to
# hide import cycles. It is allowed only
#   (a) for a heavy or optional dependency, imported by the function that uses it (HEAVY_THIRD_PARTY), or a
#       graphanon module that loads one at module level (a numba kernel module, a networkx-backed structure;
#       computed from the source, see heavy_modules) or exists for an optional extra (HEAVY_GRAPHANON), or
#   (b) where LOCAL_IMPORT_REASONS says why.
# Every other import is at module level; the layer test (tests/package/test_layers.py) keeps those acyclic.

#: (a) heavy or optional third-party modules (seconds or tens of MiB to import, or an optional extra)
HEAVY_THIRD_PARTY = {
    "numba", "llvmlite", "ortools", "matplotlib", "pandas", "pyarrow", "dask", "distributed", "networkx",
    "igraph",
    "anywidget", "traitlets",  # the views extra: notebook widgets (graphanon.viz.views.GraphView.widget)
    "rich",  # the CLI's tables and progress bars, loaded when something is printed
    "scipy.special", "scipy.optimize", "scipy.stats",  # 0.1-0.5 s each on top of scipy.sparse
    "opendp",  # the DP samplers (0.5 s to import): loaded when a DP method draws its noise
    "scipy.sparse.csgraph",  # loads scipy.sparse.linalg and scipy.linalg: ~0.1 s CPU, 11 MiB (the k^m check needs none)
}
#: (a) graphanon packages that exist for an optional extra: the Dask paths (``client=``) import them
HEAVY_GRAPHANON = {"graphanon.distributed"}

#: (b) the other function-local imports: (importing module, or a package prefix ending in ".";
#: imported module) -> why it is inside a function
LOCAL_IMPORT_REASONS = {
    ("graphanon.cli.", "*"): "each command imports its engine when it runs, so `graphanon --help` and "
                             "`graphanon datasets` start with click alone (test_entry_points_stay_light)",
    ("graphanon.readwrite.text", "graphanon.data"): "cycle: graphanon.data re-exports the readers, which build "
                                              "TransactionData (to split: readers above the data layer)",
    ("graphanon.readwrite.long_csv", "graphanon.data"): "the same data <-> readers cycle",
    ("graphanon.readwrite.parquet", "graphanon.data"): "the same data <-> readers cycle",
    ("graphanon.readwrite.dataframe", "graphanon.data"): "the same data <-> readers cycle (data re-exports the "
                                                         "DataFrame converters, which build TransactionData)",
    ("graphanon.algorithms.prior", "graphanon.algorithms.nonreciprocal"): "cycle: nr and cahd compose with "
                                                                          "priors (reuse_priors); --prior for grown "
                                                                          "data runs them on the added records",
    ("graphanon.algorithms.prior", "graphanon.algorithms.registry"): "cycle: the registry reads the method "
                                                                     "declarations, whose modules import prior",
    ("graphanon.release.base", "graphanon.algorithms.registry"): "the published-parameter allowlists are declared with the "
                                                        "methods, above the release layer (tests/package/test_layers.py)",
    ("graphanon.utils.memory", "resource"): "POSIX only; the budget falls back to a default elsewhere",
    ("graphanon.", "multiprocessing"): "a process pool (the Gray-TSP segments), started only for n_jobs > 1",
    ("graphanon.", "concurrent.futures"): "the same process pool",
    ("graphanon.testing", "pytest"): "pytest is no dependency of graphanon: only parametrize_with_checks needs it",
}


def _is_module(name: str) -> bool:
    path = PACKAGE.parent / name.replace(".", "/")
    return path.is_dir() or path.with_suffix(".py").exists()


def import_sites(path: Path) -> tuple[set[str], list[tuple[int, str]]]:
    """(modules imported at module level, [(line, module) imported inside a function]) of one file.

    ``from a.b import c`` counts as ``a.b`` and, when ``c`` is a graphanon submodule, ``a.b.c``;
    relative imports are resolved.
    """
    mod = module_name(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    in_function = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for n in ast.walk(f) if n is not f}
    top, local = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = import_target(node, package)
            names = [target] + [f"{target}.{a.name}" for a in node.names if _is_module(f"{target}.{a.name}")]
        else:
            continue
        if id(node) in in_function:
            local.extend((node.lineno, name) for name in names)
        else:
            top.update(names)
    return top, local


def _is_heavy_third_party(name: str) -> bool:
    return any(name == h or name.startswith(h + ".") for h in HEAVY_THIRD_PARTY | HEAVY_GRAPHANON)


def heavy_modules(top_level: dict[str, set[str]]) -> set[str]:
    """The graphanon modules whose module-level imports load a heavy dependency, directly or through
    other graphanon modules (a package's ``__init__`` counts for its submodules)."""
    def deps(mod: str) -> set[str]:
        out = set(top_level.get(mod, ()))
        parts = mod.split(".")
        out.update(".".join(parts[:i]) for i in range(2, len(parts)))  # parent packages run first
        return out

    heavy: set[str] = set()
    changed = True
    while changed:
        changed = False
        for mod in top_level:
            if mod not in heavy and any(_is_heavy_third_party(d) or d in heavy for d in deps(mod)):
                heavy.add(mod)
                changed = True
    return heavy


def unexplained_local_imports(sites: dict[str, tuple[set[str], list[tuple[int, str]]]]) -> list[str]:
    """``module:line imports target`` for every function-local import with no reason (a) or (b)."""
    heavy = heavy_modules({mod: top for mod, (top, _) in sites.items()})
    out = []
    for mod, (_, local) in sorted(sites.items()):
        for line, target in local:
            if _is_heavy_third_party(target) or target in heavy:
                continue
            if any((mod == m or (m.endswith(".") and mod.startswith(m))) and t in (target, "*")
                   for m, t in LOCAL_IMPORT_REASONS):
                continue
            out.append(f"{mod}:{line} imports {target} inside a function")
    return out


@functools.cache
def _package_import_sites() -> tuple[tuple[str, frozenset[str], tuple[tuple[int, str], ...]], ...]:
    """Every package module's import sites, parsed once for the two tests that read them (3.5 s of CPU a parse)."""
    return tuple((module_name(p), frozenset(top), tuple(local))
                 for p in sorted(PACKAGE.rglob("*.py")) for top, local in [import_sites(p)])


def all_import_sites() -> dict[str, tuple[set[str], list[tuple[int, str]]]]:
    return {mod: (set(top), list(local)) for mod, top, local in _package_import_sites()}


def test_function_local_imports_have_a_reason():
    assert unexplained_local_imports(all_import_sites()) == []


def test_every_listed_reason_is_still_used():
    """A reason whose import moved to module level is dropped from the list."""
    sites = all_import_sites()
    used = {(m, t) for m, t in LOCAL_IMPORT_REASONS
            if any((mod == m or (m.endswith(".") and mod.startswith(m))) and t in (target, "*")
                   for mod, (_, local) in sites.items() for _, target in local)}
    assert set(LOCAL_IMPORT_REASONS) - used == set()


def test_checker_tells_heavy_from_light():
    sites = {
        "graphanon.kernels": ({"numba"}, []),
        "graphanon.engine": ({"graphanon.kernels"}, []),
        "graphanon.light": ({"numpy"}, []),
        "graphanon.user": (set(), [(3, "graphanon.engine"), (4, "numba"), (5, "graphanon.light"), (6, "csv")]),
    }
    assert heavy_modules({m: top for m, (top, _) in sites.items()}) == {"graphanon.kernels", "graphanon.engine"}
    assert unexplained_local_imports(sites) == [
        "graphanon.user:5 imports graphanon.light inside a function",
        "graphanon.user:6 imports csv inside a function",
    ]


def test_submodule_import_does_not_shadow_its_public_name():
    """``graphanon.release.publish`` is both a submodule and the function it defines: importing the
    submodule first must leave the package attribute the function (order-dependent before)."""
    probe = (
        "import graphanon.release.publish\n"
        "from graphanon.release import publish\n"
        "import graphanon.release as r\n"
        "assert callable(publish) and r.publish is publish, publish\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_clump_job_imports_no_other_method_nor_graph_library(tmp_path):
    """``graphanon anonymize -a clump`` loads neither Partition and its Dask helpers (the trace has its own
    module), the swapping matching's kernels, nor networkx, igraph, csgraph, pyarrow or dask."""
    out = tmp_path / "r.json"
    probe = cli("anonymize", "clump_food", "-a", "clump", "-k", "2", "--taxonomy", "balanced:3", "-o", str(out)) + (
        "import sys, json\n"
        "sys.stdout.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    loaded = set(json.loads(run.stdout.rpartition("\nMODULES ")[2]))
    assert "graphanon.algorithms.grouping.clump" in loaded and out.exists()
    unwanted = {"graphanon.algorithms.grouping.partition", "graphanon.distributed", "graphanon.graphs.least_similar",
                "networkx", "igraph", "scipy.sparse.csgraph", "pyarrow", "dask"}
    assert loaded & unwanted == set()


def test_nr_without_l_loads_no_l_diverse_graphs(tmp_path):
    """``anonymize -a nr -k K`` builds the k-regular ring: the l-diverse graph builders (their numba kernels
    and the min-cost flow) are loaded only with ``l``."""
    from tests.package.test_process_cost import _modules_after

    out = tmp_path / "r.json"
    loaded = _modules_after(cli("anonymize", "nr_table1", "-a", "nr", "-k", "2", "-o", str(out)))
    assert out.exists() and "graphanon.algorithms.nonreciprocal.extraction" in loaded
    assert not {"graphanon.algorithms.nonreciprocal.diverse", "graphanon.algorithms.nonreciprocal.diverse_flow",
                "graphanon.algorithms.nonreciprocal.greedy_walk"} & loaded
