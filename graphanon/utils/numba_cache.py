"""Numba's on-disk cache for graphanon's kernels, keyed by the source of *every* kernel module.

Numba (``cache=True``) keeps a compiled kernel valid while the source file
that defines it is unchanged (a content hash in numba >= 0.61; mtime and size
before). But a kernel's machine code also holds the compiled code of every
jitted function it calls, and those may live in other files
(``graphanon.algorithms.coat._kernels`` calls
``graphanon.counting._bitset_kernels.popcount64``; the nonreciprocal walks call
``graphanon.algorithms.nonreciprocal._kernels``). A cache written while a
callee was edited therefore outlives the edit: after reverting the callee,
the caller's file is unchanged and numba loads the code built with the
edited callee. Measured: COAT (k^m, k=5, m=2) on the first 3,000 BMS-WebView-1
records published 38 items with a clean cache; with ``popcount64`` edited
(``+ 1``) it published 51, and after reverting the edit still 51, until the
cache was cleared. The same stale code once made COAT crash
(``KeyError: -1`` in ``coat/state.py``).

This module makes the freshness stamp of every graphanon kernel a SHA-256
over the source of all graphanon modules that use numba (the *kernel set*,
found by reading the package: every ``.py`` file under ``graphanon/`` whose
text names numba), so a change to any of them -- edit or revert --
invalidates every graphanon kernel's cache (numba then recompiles on first
use). Kernels of other packages keep numba's own locators. Importing this
module registers the locators; every graphanon module that compiles with
``cache=True`` imports it before its first kernel
(``tests/utils/test_numba_cache.py`` checks both).

The cache files are also *named* by the kernel set (the first 16 hex digits of
the digest in each file name, :func:`kernel_set_tag`). Numba saves a new entry
by writing the index (stamp and data file name) first and the data file second,
and names the data file of a kernel's first signature ``<kernel>.1.nbc`` whatever
the source. With one name for every source, a process that loaded the cache
between another process's two writes got the new index and the *previous*
source's machine code -- once, with no trace left (reproduced on a copy of the
package by pausing a writer between its two writes: the reader returned the
low bit of 8 through the edited ``popcount64``, 4, although the source on disk
gave 3; ``tests/utils/test_numba_cache.py``). With the digest in the name, the data
file an index names was only ever written from the same source: a reader
finds it complete or absent (numba then compiles). The files of other kernel
sets are deleted from the cache folders this process uses, so edits do not
pile them up.

Notes
-----
Kernels must not read module-level constants of graphanon modules that do
not use numba (numba freezes global values into the compiled code, and such a
module is outside the kernel set); none does.

Complexity
----------
The stamp reads the package's sources once per process (about 150 files,
under 10 ms) and each cache folder is listed once per process (to prune);
loading a cached kernel is otherwise unchanged.

Examples
--------
>>> from graphanon.utils.numba_cache import kernel_set, kernel_set_digest, kernel_set_tag
>>> any(p.name == "_bitset_kernels.py" for p in kernel_set())
True
>>> len(kernel_set_digest())
64
>>> kernel_set_digest().startswith(kernel_set_tag())
True
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path

from numba.core import caching, event
from numba.core.runtime import rtsys

from graphanon.utils.progress import compiling

__all__ = ["PACKAGE_DIR", "kernel_set", "kernel_set_digest", "kernel_set_tag", "needs_full_refresh"]

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # graphanon/ (this module is graphanon/utils/numba_cache.py)


def kernel_set() -> list[Path]:
    """The graphanon modules whose compiled code a kernel may hold: every source naming numba.

    Returns
    -------
    list of Path
        Sorted by path.
    """
    return sorted(p for p in PACKAGE_DIR.rglob("*.py") if b"numba" in p.read_bytes())


@functools.cache
def kernel_set_digest() -> str:
    """SHA-256 (hex) over the relative path and the bytes of every module of :func:`kernel_set`.

    Computed once per process: modules already imported do not change under it.
    """
    h = hashlib.sha256(b"graphanon-kernel-set/1\0")
    for path in kernel_set():
        data = path.read_bytes()
        h.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def kernel_set_tag() -> str:
    """The part of :func:`kernel_set_digest` in the name of every cache file of this kernel set (16 hex digits).

    Returns
    -------
    str
    """
    return kernel_set_digest()[:16]


#: Numba's cache files of a graphanon kernel: ``<module>.<qualname>-<line>[-<tag>].py<version>[.<n>].nb[ic]``
#: (the tag since the names carry the kernel set; files without one are older).
_CACHE_FILE = re.compile(r"-\d+(?:-(?P<tag>[0-9a-f]{16}))?\.py\d+[^.]*(?:\.\d+)?\.nb[ic]$")


def prune_other_kernel_sets(folder: str | os.PathLike) -> list[str]:
    """Delete the cache files of other kernel sets from ``folder``; return their names.

    A process of another kernel set that still reads one of them finds it
    missing and compiles (numba treats a missing data file as a cache miss).

    Parameters
    ----------
    folder : path
        A cache folder of graphanon kernels (numba's files only are touched).

    Returns
    -------
    list of str
        The names of the files deleted.
    """
    tag = kernel_set_tag()
    gone: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return gone
    for name in sorted(names):
        match = _CACHE_FILE.search(name)
        if match is None or match.group("tag") == tag:
            continue
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            continue  # another process pruned it first, or the folder is read-only
        gone.append(name)
    return gone


_pruned: set[str] = set()


def _in_package(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE_DIR)
    except OSError:
        return False


def _numba_locator(*names: str):
    """A class of ``numba.core.caching`` under its current or former (underscored) name."""
    for name in names:
        cls = getattr(caching, name, None)
        if cls is not None:
            return cls
    raise ImportError(f"numba.core.caching has none of {names}")


def _kernel_set_locator(base):
    """``base`` (a numba file locator), restricted to graphanon files, stamped by the kernel set."""

    class KernelSetLocator(base):
        def get_source_stamp(self):
            return ("graphanon kernel set", kernel_set_digest())

        def get_disambiguator(self):
            return f"{super().get_disambiguator()}-{kernel_set_tag()}"

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _in_package(py_file):
                return None
            locator = super().from_function(py_func, py_file)
            if locator is not None:
                folder = locator.get_cache_path()
                if folder not in _pruned:
                    _pruned.add(folder)
                    prune_other_kernel_sets(folder)
            return locator

    KernelSetLocator.__name__ = KernelSetLocator.__qualname__ = f"KernelSet{base.__name__.lstrip('_')}"
    return KernelSetLocator


#: Numba's three file-backed locators in numba's order: $NUMBA_CACHE_DIR, the module's
#: __pycache__, the user-wide cache directory.
LOCATORS = tuple(
    _kernel_set_locator(_numba_locator(*names))
    for names in (
        ("UserProvidedCacheLocator", "_UserProvidedCacheLocator"),
        ("InTreeCacheLocator", "_InTreeCacheLocator"),
        ("UserWideCacheLocator", "_UserWideCacheLocator"),
    )
)


#: Symbols that only numba's lowering registries put into the JIT's symbol table when imported
#: (``numba.cpython.hashing``: the hash secret). Cached code naming one needs the full refresh.
_REGISTRY_SYMBOLS = (b"_numba_hashsecret_",)


def _object_code(data) -> list[bytes] | None:
    """The machine code and bitcode of a cached kernel (``CompileResult._reduce()``), None if not recognised."""
    try:
        name, kind, blobs = data[0]
        objectmode = data[4]
    except (TypeError, ValueError, IndexError):
        return None
    if kind != "object" or objectmode or not isinstance(blobs, tuple):
        return None
    code = [b for b in blobs if isinstance(b, bytes)]
    return code if len(code) == len(blobs) else None


def needs_full_refresh(data) -> bool:
    """Whether a cached kernel (``CompileResult._reduce()``) needs numba's lowering registries to load.

    True unless its object code is recognised and names none of the symbols
    the registries register (:data:`_REGISTRY_SYMBOLS`).
    """
    code = _object_code(data)
    return code is None or any(sym in blob for blob in code for sym in _REGISTRY_SYMBOLS)


def _light_load_overload(original):
    """``Cache.load_overload`` that loads a graphanon kernel without numba's lowering registries.

    Numba refreshes the target context before loading any cached kernel:
    that imports every lowering registry (``numba.np.arraymath``, which
    imports ``scipy.linalg`` to check for BLAS, the typed containers,
    random, ...), about 0.2-0.3 s of CPU per process, none of which cached
    machine code needs: it calls only the runtime (NRT, initialised here) and
    numba's C helpers (registered when numba is imported). A compilation still
    refreshes the context fully (numba's compiler does, on a cache miss), and
    so does a cached kernel whose code names a symbol only a registry
    registers (:func:`needs_full_refresh`). Other packages' kernels keep numba's loader.
    """

    @functools.wraps(original)
    def load_overload(self, sig, target_context):
        if not isinstance(getattr(getattr(self, "_impl", None), "locator", None), LOCATORS) or not all(
            hasattr(self, a) for a in ("_enabled", "_cache_file")
        ):
            return original(self, sig, target_context)
        if not self._enabled:
            return None
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            data = self._cache_file.load(self._index_key(sig, target_context.codegen()))
            if data is None:
                return None
            if needs_full_refresh(data):
                target_context.refresh()
            return self._impl.rebuild(target_context, data)
        return None  # the guard swallowed an error (Windows): compile instead, as numba does

    load_overload._graphanon_light = True
    return load_overload


class _CompileNotice(event.Listener):
    """Tells :func:`graphanon.utils.progress.compiling` when numba compiles a graphanon kernel.

    Numba fires ``numba:compile`` only on a cache miss (a kernel loaded from
    the on-disk cache compiles nothing), so the command line's one-time
    "compiling kernels" note appears on the first run after an install or an
    edit of the kernel set, and never on a run that loads the cache.
    """

    def on_start(self, ev) -> None:
        dispatcher = (ev.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if module.startswith("graphanon."):
            compiling()

    def on_end(self, ev) -> None:
        """Nothing: the note is given once, at the start."""


def _install() -> None:
    if not getattr(event, "_graphanon_notice", False):
        event.register("numba:compile", _CompileNotice())
        event._graphanon_notice = True  # type: ignore[attr-defined]  # once per process, even if reloaded
    registry = _numba_locator("CacheImpl", "_CacheImpl")._locator_classes
    if not any(getattr(cls, "__module__", "") == __name__ for cls in registry):
        registry[:0] = LOCATORS
    cache = caching.Cache
    if not getattr(cache.load_overload, "_graphanon_light", False) and all(
        hasattr(cache, a) for a in ("_index_key", "_guard_against_spurious_io_errors")
    ):
        cache.load_overload = _light_load_overload(cache.load_overload)  # type: ignore[method-assign]


_install()
if os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):  # an explicit list replaces numba's registry
    import warnings

    warnings.warn(
        "NUMBA_CACHE_LOCATOR_CLASSES is set: graphanon's kernel caches use that list, which does "
        "not key them by the kernel set (graphanon.utils.numba_cache)", RuntimeWarning, stacklevel=2,
    )
