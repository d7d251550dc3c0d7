"""Numba's kernel cache survives editing and reverting a kernel (graphanon.utils.numba_cache).

The failure it prevents (issue 20, item 7): a kernel's cached machine code
holds the jitted functions it calls from *other* files, which numba's own
freshness stamp (the defining file only) does not cover. Here
``graphanon.algorithms.coat._kernels._low_bit`` calls
``graphanon.counting._bitset_kernels.popcount64``: edit ``popcount64``, run, revert,
run -- the last run must see the reverted code.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numba
import pytest

import graphanon.utils.numba_cache as numba_cache

pytestmark = pytest.mark.slow  # one of the slowest files (docs/testing.md)

PACKAGE = Path(__file__).resolve().parents[2] / "graphanon"


def _kernel_modules() -> list[str]:
    """Modules that compile with ``cache=True`` (by reading the package)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "cache=True" in path.read_text() and path.relative_to(PACKAGE).as_posix() != "utils/numba_cache.py":
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def test_every_kernel_module_imports_the_locator_before_its_kernels():
    """A module that forgot the import would fall back to numba's stamp (its own file only)."""
    modules = _kernel_modules()
    assert len(modules) >= 10
    for name in modules:
        path = PACKAGE.parent / (name.replace(".", "/") + ".py")
        tree = ast.parse(path.read_text())
        imports = [n.lineno for n in tree.body if isinstance(n, ast.Import)
                   and any(a.name == "graphanon.utils.numba_cache" for a in n.names)]
        kernels = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                   and any("cache=True" in ast.unparse(d) for d in n.decorator_list)]
        assert imports and kernels and imports[0] < min(kernels), name


def test_every_cached_kernel_uses_the_kernel_set_stamp():
    """Every dispatcher with a cache in the kernel modules is stamped by the kernel set's digest."""
    seen = 0
    for name in _kernel_modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, numba.core.registry.CPUDispatcher) and value.__module__ == name:
                cache = value._cache
                if isinstance(cache, numba.core.caching.NullCache):
                    continue
                locator = cache._impl._locator
                assert type(locator).__module__ == "graphanon.utils.numba_cache", value
                assert locator.get_source_stamp() == ("graphanon kernel set", numba_cache.kernel_set_digest())
                seen += 1
    assert seen >= 30


def test_kernel_set_covers_every_numba_module_and_nothing_else():
    members = {p.relative_to(PACKAGE).as_posix() for p in numba_cache.kernel_set()}
    assert {"counting/_bitset_kernels.py", "algorithms/coat/_kernels.py", "privacy/_match_candidates.py"} <= members
    for path in PACKAGE.rglob("*.py"):
        assert (path.relative_to(PACKAGE).as_posix() in members) == ("numba" in path.read_text()), path


SCRIPT = "import numpy as np; from graphanon.algorithms.coat import _kernels; print(int(_kernels._low_bit(np.uint64(8))[0]))"
POPCOUNT_RETURN = "    return (v * np.uint64(0x0101010101010101)) >> np.uint64(56)\n"
POPCOUNT_EDITED = "    return ((v * np.uint64(0x0101010101010101)) >> np.uint64(56)) + np.uint64(1)\n"


def _run(root: Path, env_extra: dict) -> int:
    env = {**os.environ, "PYTHONPATH": str(root), **env_extra}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=root, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return int(out.stdout.strip().splitlines()[-1])


def _copy(tmp_path: Path) -> tuple[Path, Path, str]:
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "graphanon", ignore=shutil.ignore_patterns("__pycache__"))
    kernels = root / "graphanon" / "counting" / "_bitset_kernels.py"
    pristine = kernels.read_text()
    assert pristine.count(POPCOUNT_RETURN) == 1
    return root, kernels, pristine


def _runs(tmp_path: Path, env_extra: dict, steps: str) -> list[int]:
    """On a fresh copy of the package (empty cache), for each step ``e`` (edit popcount64: one
    more), ``r`` (revert it) or ``.`` (run): the low bit of 8, which ``_low_bit`` gives as
    popcount(8 - 1) = 3 (4 with the edit)."""
    root, kernels, pristine = _copy(tmp_path)
    out = []
    for step in steps:
        if step == "e":
            kernels.write_text(pristine.replace(POPCOUNT_RETURN, POPCOUNT_EDITED))
        elif step == "r":
            kernels.write_text(pristine)
        else:
            out.append(_run(root, env_extra))
    return out


def test_edit_and_revert_a_called_kernel_recompiles_its_callers(tmp_path):
    """Run, edit, run, revert, run, run: every run sees the source as it is."""
    assert _runs(tmp_path, {}, ".e.r..") == [3, 4, 3, 3]


@pytest.mark.skipif(not hasattr(numba.core.config, "CACHE_LOCATOR_CLASSES"),
                    reason="this numba has no NUMBA_CACHE_LOCATOR_CLASSES to restore its own locators")
def test_numba_own_locators_keep_the_stale_caller(tmp_path):
    """The control: with numba's own locators (graphanon's bypassed), the same steps give stale code
    both ways -- the edit unseen, then the reverted edit still seen -- so the tests above can fail."""
    own = {"NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator,InTreeCacheLocator,UserWideCacheLocator"}
    assert _runs(tmp_path / "a", own, ".e.") == [3, 3]
    assert _runs(tmp_path / "b", own, "e.r.") == [4, 4]


PAUSE_HOOK = """
import os, time
import numba.core.caching as caching
_save_data = caching.IndexDataCacheFile._save_data
def _paused(self, name, data):  # the index is written; hold the data file of _low_bit back
    if "_low_bit" in name:
        open({paused!r}, "w").close()
        end = time.time() + 600
        while not os.path.exists({go!r}) and time.time() < end:
            time.sleep(0.05)
    return _save_data(self, name, data)
caching.IndexDataCacheFile._save_data = _paused
"""


def test_a_reader_between_the_writes_of_a_save_never_gets_the_previous_sources_code(tmp_path):
    """Numba writes a new entry's index before its data file. A process that loaded the cache in
    between got the new index and the data file the *previous* source left under the same name:
    once, with nothing left to see afterwards (the flaky kind of stale code). Here a writer is
    held between its two writes while a reader runs."""
    root, kernels, pristine = _copy(tmp_path)
    kernels.write_text(pristine.replace(POPCOUNT_RETURN, POPCOUNT_EDITED))
    assert _run(root, {}) == 4  # the edited source's code is in the cache
    kernels.write_text(pristine)
    paused, go = tmp_path / "paused", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    hook = PAUSE_HOOK.format(paused=str(paused), go=str(go))
    writer = subprocess.Popen([sys.executable, "-c", hook + SCRIPT], cwd=root, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 600
        while not paused.exists():
            assert writer.poll() is None and time.monotonic() < end, writer.communicate()[1][-2000:]
            time.sleep(0.05)
        assert _run(root, {}) == 3  # the source on disk, not the code the edit left
    finally:
        go.touch()
        out, err = writer.communicate(timeout=600)
    assert writer.returncode == 0, err[-2000:]
    assert int(out.split()[-1]) == 3
    assert _run(root, {}) == 3


def test_cache_written_during_an_edit_is_dropped_after_the_revert_and_pruned(tmp_path):
    """The caller first compiled (and cached) while popcount64 was edited; after the revert its
    file is unchanged, but the kernel set is not: the revert's run sees the reverted code, and the
    cache then holds only files named by the current kernel set (one package copy and two
    compilations serve both checks)."""
    assert _runs(tmp_path / "r", {}, "e.r.") == [4, 3]
    root = tmp_path / "r" / "copy"
    names = [p.name for p in (root / "graphanon").rglob("*.nb[ic]")]
    tags = {n.split("-")[-1].split(".")[0] for n in names}
    assert names and len(tags) == 1
    digest = subprocess.run([sys.executable, "-c", "from graphanon.utils import numba_cache as c; print(c.kernel_set_tag())"],
                            cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True,
                            timeout=120).stdout.strip()
    assert tags == {digest}


def test_prune_keeps_this_kernel_set_and_what_is_not_a_cache_file(tmp_path):
    tag = numba_cache.kernel_set_tag()
    other = "0" * 16 if tag != "0" * 16 else "1" * 16
    keep = [f"_kernels.f-12-{tag}.py311.nbi", f"_kernels.f-12-{tag}.py311.1.nbc", "_kernels.cpython-311.pyc",
            f"_kernels.f-12-{other}.py311.nbi.tmp.0123456789abcdef"]
    drop = [f"_kernels.f-12-{other}.py311.nbi", f"_kernels.f-12-{other}.py311.2.nbc", "_kernels.f-12.py311.1.nbc",
            "_kernels.f-12.py311.nbi"]
    for name in keep + drop:
        (tmp_path / name).write_bytes(b"")
    assert numba_cache.prune_other_kernel_sets(tmp_path) == sorted(drop)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(keep)


# --- loading a cached kernel without numba's lowering registries -----------------------------------------


def _payload(func, *args):
    """What numba's cache would store for ``func`` compiled for ``args`` (``CompileResult._reduce()``)."""
    dispatcher = numba.njit(func)
    dispatcher(*args)
    return next(iter(dispatcher.overloads.values()))._reduce()


def test_needs_full_refresh_spots_code_that_needs_a_registry():
    """Hashing a string reads the hash secret, a symbol only ``numba.cpython.hashing`` registers:
    such cached code loads with the full refresh; plain array code does not need it; a payload of
    unknown shape gets the full refresh."""
    import numpy as np

    assert numba_cache.needs_full_refresh(_payload(lambda s: hash(s), "abc"))
    assert not numba_cache.needs_full_refresh(_payload(lambda a: a.sum() + 1, np.arange(3)))
    assert numba_cache.needs_full_refresh(None)
    assert numba_cache.needs_full_refresh((("lib", "bitcode", b""), None, None, None, False))
    assert numba_cache.needs_full_refresh((("lib", "object", (b"", b"")), None, None, None, True))  # object mode


LIGHT_PROBE = """
import json, sys
import numpy as np
from graphanon.algorithms import anonymize_clump
from graphanon.datasets import load, load_taxonomy
from graphanon.graphs._knn_kernel import knn_fill
from graphanon.algorithms.grouping._clump_kernel import _clump_groups as clump_groups
data = load("groceries").subset(np.arange(2000))
rel = anonymize_clump(data, taxonomy=load_taxonomy("groceries"), k=5, rng=0, unsafe_secret_seed=0)
hits = sum(knn_fill.stats.cache_hits.values()) + sum(clump_groups.stats.cache_hits.values())
mods = sorted(m for m in sys.modules
              if m.split(".")[:3] in (["numba", "np", "arraymath"], ["numba", "np", "arrayobj"], ["scipy", "linalg"]))
import numba
f = numba.njit(lambda a: np.sort(a)[::-1].cumsum()[-1])  # a compilation after the light loads
print(json.dumps({"hits": hits, "mods": mods, "f": float(f(np.arange(5.0))),
                  "rows": [rel.render_record(i) for i in range(rel.n_records)]}))
"""


def test_cached_kernels_load_without_the_registries_and_give_the_same_release():
    """Run Clump twice in fresh interpreters (the first fills the cache): the second loads both
    kernels from the cache without importing numba's array registries (nor ``scipy.linalg``, which
    they import) or its array-allocation code (``numba.np.arrayobj``: the kernels allocate nothing,
    their callers pass the work arrays), publishes the same rows, and a later compilation in that
    process still works."""
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", LIGHT_PROBE], env=env, capture_output=True, text=True,
                             timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    if runs[1]["hits"] < 2:
        pytest.skip("numba could not write its cache here")
    assert runs[1]["mods"] == []
    assert runs[1]["rows"] == runs[0]["rows"]
    assert runs[0]["f"] == runs[1]["f"] == 10.0
