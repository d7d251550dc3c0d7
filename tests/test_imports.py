"""What importing graphanon costs: which heavy dependencies each entry point loads.

Each case runs in a fresh interpreter (a subprocess) and lists ``sys.modules``
afterwards; the assertions are about *which* modules are loaded, never about
time (the timings are in ``benchmarks/startup.py`` and docs/performance.md).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

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


FACADES = ["graphanon", "graphanon.algorithms", "graphanon.algorithms.nonreciprocal", "graphanon.datasets",
           "graphanon.graphs", "graphanon.metrics", "graphanon.privacy", "graphanon.release"]


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
    from graphanon.algorithms import anonymize_aa, anonymize_nonreciprocal, pgen, registered
    from graphanon.algorithms.nonreciprocal import DETERMINISTIC_STEP_LIMIT, gray_order
    from graphanon.privacy import KmAnonymity
    from graphanon.release import GlobalRecoding

    data = from_iterable([["a", "b"], ["a"], ["b"], ["a", "b"]])
    assert isinstance(data, TransactionData)
    assert anonymize_aa.__module__ == "graphanon.algorithms.apriori"
    assert callable(anonymize_nonreciprocal) and callable(pgen) and callable(gray_order)
    assert DETERMINISTIC_STEP_LIMIT > 0
    assert {"aa", "nr", "coat", "mm"} <= set(registered())
    taxonomy = Taxonomy.from_parent_map({"a": "*", "b": "*"})
    release = anonymize_aa(data, taxonomy=taxonomy, k=3, m=1, unsafe_secret_seed=0)
    assert isinstance(release, GlobalRecoding)
    assert KmAnonymity(3, 1).audit(data, release).satisfied


def test_registry_lists_every_builtin_method_and_model():
    """``registered()`` imports the declared method modules itself (the package imports none)."""
    from graphanon.algorithms.registry import registered
    from graphanon.privacy.registry import model_names

    assert set(registered()) == {"aa", "cahd", "clump", "coat", "cut", "fullswap", "hghs", "mhghs", "mm", "nr",
                                 "partition", "partsupp", "partswap", "randswap", "splitperson"}
    assert set(model_names()) == {"constraints", "hkp", "km", "ldiversity", "nonreciprocal", "tendency",
                                  "transactional"}


def test_catalog_states_the_sizes_of_the_bundled_data():
    """``graphanon datasets`` prints the catalog without loading the data; the catalog is the data's truth."""
    from graphanon.datasets import list_datasets, load

    for entry in list_datasets():
        summary = load(entry["name"]).summary()
        assert (entry["records"], entry["items"]) == (summary["records"], summary["items"]), entry["name"]
        assert entry["mean_length"] == pytest.approx(summary["mean_length"], rel=1e-12), entry["name"]

