"""Move graphanon's modules into the folders that are its layers (issue 21), and rewrite every reference.

The record of the move and the tool that performs it. Re-run it after merging a branch that still uses
the old module paths: it ``git mv``-s any file still at an old path and rewrites the old dotted names in
Python sources, docs, the README, notebooks and benchmarks. A second run changes nothing.

What is rewritten (whole dotted names only: ``graphanon.support`` but not ``graphanon.supporting`` nor
``benchmarks.support``):

* dotted names, wherever they stand: ``import graphanon._random``, ``from graphanon._random import x``,
  strings such as ``"graphanon.algorithms.suppression"`` (lazy ``attach`` tables, ``monkeypatch``/``mock``
  targets, ``importlib.import_module``), docstring cross-references;
* ``from graphanon import support`` / ``from graphanon.algorithms import apriori [as a]`` (a module
  imported from its parent package) -> ``from graphanon.counting import support``,
  ``from graphanon.algorithms.hierarchy import aa as apriori`` (the local name is kept);
* file paths ``graphanon/_io.py`` -> ``graphanon/readwrite/files.py``;
* the import blocks of the rewritten files are re-sorted (``ruff --select I001 --fix-only``);
* the registry's method -> module table (``BUILTIN`` in ``graphanon/algorithms/registry.py``), whose
  values are relative to ``graphanon.algorithms``;
* ``graphanon.taxonomy`` is a package now that exports what the module did (``Taxonomy``,
  ``ItemGroups``, ``read_taxonomy``): those uses stay, any other name read from it
  (``graphanon.taxonomy._text_nodes``) is pointed at ``graphanon.taxonomy.tree``. Inside ``graphanon/``
  the import statements (not the doctest examples) read from ``graphanon.taxonomy.tree``, the module
  that defines the names: the package's own code does not go through the lazy facade, so
  ``tests/package/test_imports.py`` sees what each import loads.

``CHANGELOG.md`` is history and is left alone, and so is ``tests/package/test_relayout.py`` (it holds old names on purpose).

Usage::

    python tools/relayout.py            # move and rewrite
    python tools/relayout.py --check    # exit 1 (listing the files) if anything would change

Merging a branch made before the move (its import lines conflict with the rewritten ones, which say
the same with new names)::

    git merge --no-commit -X theirs BRANCH   # conflicting hunks take the branch's (old-name) lines
    git checkout HEAD -- tests/test_layers.py # the branch only added modules to the old hand lists
    python tools/relayout.py                 # moves what it added at old paths, rewrites old names
    git diff HEAD -- README.md docs          # hand-written text of the move a hunk may have replaced

``tests/package/test_relayout.py`` fails while an old name is left anywhere.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: old module -> new module. Names are the settled ones of issue 21.
MOVES: dict[str, str] = {
    # utilities
    "graphanon._validation": "graphanon.utils.validation",
    "graphanon._random": "graphanon.utils.randomness",
    "graphanon._progress": "graphanon.utils.progress",
    "graphanon._memory": "graphanon.utils.memory",
    "graphanon._lazy": "graphanon.utils.lazy",
    "graphanon._params": "graphanon.utils.params",
    "graphanon.labels": "graphanon.utils.labels",
    "graphanon._numba_cache": "graphanon.utils.numba_cache",
    # counting
    "graphanon.support": "graphanon.counting.support",
    "graphanon.bitmaps": "graphanon.counting.bitmaps",
    "graphanon.containment": "graphanon.counting.containment",
    "graphanon._bitset": "graphanon.counting.bitset",
    "graphanon._bitset_kernels": "graphanon.counting._bitset_kernels",
    "graphanon._rows": "graphanon.counting.rows",
    # reading and writing
    "graphanon.formats": "graphanon.readwrite.formats",
    "graphanon.formats_csv": "graphanon.readwrite.long_csv",
    "graphanon.formats_parquet": "graphanon.readwrite.parquet",
    "graphanon._textio": "graphanon.readwrite.text",
    "graphanon._io": "graphanon.readwrite.files",
    "graphanon.constraints_io": "graphanon.readwrite.constraints",
    # the taxonomy layer (graphanon.taxonomy itself: see TAXONOMY_* below)
    "graphanon.taxonomy_build": "graphanon.taxonomy.build",
    "graphanon.itemgroups": "graphanon.taxonomy.itemgroups",
    "graphanon.categories": "graphanon.taxonomy.categories",
    "graphanon.constraint_sets": "graphanon.taxonomy.constraint_sets",
    # the hierarchy family
    "graphanon.algorithms.cut": "graphanon.algorithms.hierarchy.cut",
    "graphanon.algorithms.apriori": "graphanon.algorithms.hierarchy.aa",
    "graphanon.algorithms._apriori_counts": "graphanon.algorithms.hierarchy._aa_counts",
    "graphanon.algorithms.hghs": "graphanon.algorithms.hierarchy.hghs",
    "graphanon.algorithms.suppression": "graphanon.algorithms.hierarchy.mm",
    "graphanon.algorithms._hierarchy": "graphanon.algorithms.hierarchy._index",
    "graphanon.algorithms._hierarchy_kernels": "graphanon.algorithms.hierarchy._kernels",
    "graphanon.algorithms._hierarchy_search": "graphanon.algorithms.hierarchy._search",
    "graphanon.algorithms._hierarchy_walk": "graphanon.algorithms.hierarchy._walk",
    # the grouping family
    "graphanon.algorithms.clump": "graphanon.algorithms.grouping.clump",
    "graphanon.algorithms.partition": "graphanon.algorithms.grouping.partition",
    "graphanon.algorithms._clump_kernel": "graphanon.algorithms.grouping._clump_kernel",
    "graphanon.algorithms._partition_kernel": "graphanon.algorithms.grouping._partition_kernel",
    # CAHD joins the record-order family
    "graphanon.algorithms.cahd_release": "graphanon.algorithms.nonreciprocal.cahd",
    "graphanon.algorithms.cahd": "graphanon.algorithms.nonreciprocal.cahd_groups",
}

#: graphanon/taxonomy.py becomes graphanon/taxonomy/tree.py; the package keeps the module's public names
TAXONOMY_OLD, TAXONOMY_NEW = "graphanon.taxonomy", "graphanon.taxonomy.tree"
TAXONOMY_EXPORTS = ("ItemGroups", "Taxonomy", "read_taxonomy")
TAXONOMY_SUBMODULES = ("tree", "build", "itemgroups", "categories", "constraint_sets")

#: files that are rewritten (relative globs); CHANGELOG.md is history and stays as written
REWRITE_GLOBS = ("graphanon/**/*.py", "tests/**/*.py", "benchmarks/**/*.py", "tools/**/*.py", "docs/**/*.md",
                 "notebooks/**/*.ipynb", "notebooks/**/*.py", "README.md", "CONTRIBUTING.md", "pyproject.toml", ".ci/*")
SKIP = {"tools/relayout.py", "tests/package/test_relayout.py", "CHANGELOG.md"}

#: the new packages' __init__ files, written when missing
PACKAGE_INITS: dict[str, str] = {
    "graphanon/utils/__init__.py": '''"""Utilities of the bottom layer: argument checks, randomness, progress, memory budget, lazy imports.

* :mod:`.validation` -- the shared checks of the privacy parameters (``check_k``, ``check_m``,
  ``check_h``, ``check_order``, ``check_diversity_feasible``);
* :mod:`.randomness` -- ``check_random_state`` (the structure randomness, ``rng=``) and
  ``secret_generator`` (the secret choices, operating-system entropy);
* :mod:`.progress` -- the ``progress(done, total, message)`` callback type and ``report``;
* :mod:`.memory` -- the ``--max-memory`` budget;
* :mod:`.lazy` -- ``attach``, the lazy package facades (PEP 562);
* :mod:`.params` -- ``expand_params`` (``--param`` texts holding several values);
* :mod:`.labels` -- items and labels are text: ``as_label``, ``natural_key``, ``parse_name_list``.

Nothing is imported here: ``import graphanon`` reads :mod:`.lazy` only.
"""
''',
    "graphanon/counting/__init__.py": '''"""Counting of the bottom layer: itemset supports, bitmaps, containment, packed rows.

* :mod:`.support` -- item, pair and itemset supports, minimal infrequent itemsets;
* :mod:`.bitmaps` -- vertical bitmaps and their support counts;
* :mod:`.containment` -- how many records contain each record or itemset;
* :mod:`.bitset` -- packed bit layouts and the bit vote (numba kernels in :mod:`._bitset_kernels`);
* :mod:`.rows` -- boolean CSR matrices and order-free row hashes.

The audits and the anonymizers count with these; neither imports the other's counting.
"""
''',
    "graphanon/readwrite/__init__.py": '''"""Reading and writing of the bottom layer: transaction formats, text, atomic files, constraint files.

* :mod:`.formats` -- FIMI, basket and long-CSV readers/writers, and ``read_any``;
* :mod:`.long_csv` -- the basket and long-CSV parsers (pandas);
* :mod:`.parquet` -- Parquet (the optional ``pyarrow`` extra);
* :mod:`.text` -- reading text files and streams;
* :mod:`.files` -- ``atomic_write``, output-path checks and strict JSON;
* :mod:`.constraints` -- COAT constraint files.

The user-facing readers are re-exported by :mod:`graphanon` (``read_fimi``, ``read_basket``,
``read_long_csv``).
"""
''',
    "graphanon/taxonomy/__init__.py": '''"""The taxonomy layer: item taxonomies, their builders, item groups, categories, constraint sets.

* :mod:`.tree` -- :class:`Taxonomy` (a rooted tree of items) and :func:`read_taxonomy`;
* :mod:`.build` -- balanced and level-table taxonomies;
* :mod:`.itemgroups` -- :class:`ItemGroups`, a partition of the items into named blocks;
* :mod:`.categories` -- item categories for the swapping methods;
* :mod:`.constraint_sets` -- COAT's privacy and utility constraint sets and Pgen.

``from graphanon.taxonomy import Taxonomy`` reads the tree module on first use
(:mod:`graphanon.utils.lazy`).

Examples
--------
>>> from graphanon.taxonomy import Taxonomy
>>> Taxonomy.__module__
'graphanon.taxonomy.tree'
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.taxonomy.itemgroups": ("ItemGroups",),
    "graphanon.taxonomy.tree": ("Taxonomy", "read_taxonomy"),
})
''',
    "graphanon/algorithms/hierarchy/__init__.py": '''"""Recoding along an item taxonomy: cut, AA, HgHs/mHgHs and MM (suppression).

Laid out like :mod:`graphanon.algorithms.nonreciprocal`: one module per method and the shared
machinery apart.

* :func:`anonymize_cut` (:mod:`.cut`): a user-given or level cut, and :class:`HierarchyTrace`, the
  trace of every method of the family;
* :func:`anonymize_aa` (:mod:`.aa`): the Apriori anonymization of Terrovitis et al. (counting in
  :mod:`._aa_counts`);
* :func:`anonymize_hghs`, :func:`anonymize_mhghs` (:mod:`.hghs`): generalization plus suppression
  (Liu & Wang), the search in :mod:`._search` and :mod:`._walk`;
* :func:`anonymize_mm` (:mod:`.mm`): suppression of minimal moles (Xu et al.);
* :mod:`._index` -- the taxonomy index and threat sets the family shares; numba kernels in
  :mod:`._kernels`.
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.algorithms.hierarchy.aa": ("anonymize_aa",),
    "graphanon.algorithms.hierarchy.cut": ("HierarchyTrace", "anonymize_cut"),
    "graphanon.algorithms.hierarchy.hghs": ("HierarchySearch", "anonymize_hghs", "anonymize_mhghs"),
    "graphanon.algorithms.hierarchy.mm": ("anonymize_mm",),
})
''',
    "graphanon/algorithms/grouping/__init__.py": '''"""Local recoding by groups of records: Clump and Partition.

* :func:`anonymize_partition` (:mod:`.partition`): top-down partitioning along a taxonomy
  (He & Naughton), with :class:`GroupingTrace` and the runner both methods share;
* :func:`anonymize_clump` (:mod:`.clump`): clustering by the least common generalization (Gkountouna
  et al.);
* numba kernels in :mod:`._clump_kernel` and :mod:`._partition_kernel`.
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.algorithms.grouping.clump": ("anonymize_clump",),
    "graphanon.algorithms.grouping.partition": ("GroupingTrace", "anonymize_partition"),
})
''',
}


def module_path(module: str) -> str:
    """``graphanon.utils.memory`` -> ``graphanon/utils/memory.py``."""
    return module.replace(".", "/") + ".py"


def all_moves() -> dict[str, str]:
    return {**MOVES, TAXONOMY_OLD: TAXONOMY_NEW}


def git(*args: str) -> None:
    subprocess.run(["git", "-C", str(ROOT), *args], check=True)


def move_files() -> list[str]:
    """``git mv`` every module still at its old path; write the missing package ``__init__`` files."""
    done = []
    for old, new in all_moves().items():
        src, dst = ROOT / module_path(old), ROOT / module_path(new)
        if not src.exists():
            continue
        if dst.exists():
            sys.exit(f"relayout: both {src.relative_to(ROOT)} and {dst.relative_to(ROOT)} exist; merge them by hand")
        dst.parent.mkdir(parents=True, exist_ok=True)
        git("mv", str(src.relative_to(ROOT)), str(dst.relative_to(ROOT)))
        done.append(f"{src.relative_to(ROOT)} -> {dst.relative_to(ROOT)}")
    for rel, text in PACKAGE_INITS.items():
        path = ROOT / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            git("add", rel)
            done.append(f"new {rel}")
    return done


# --- rewriting -------------------------------------------------------------------------------------

_NAME_END = r"(?![\w])"
_NAME_START = r"(?<![\w.])"


def _alternation(names) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


#: a whole old dotted name (followed by anything but a word character: ``.attr``, quote, space, end)
DOTTED = re.compile(_NAME_START + "(" + _alternation(MOVES) + ")" + _NAME_END)
#: graphanon.taxonomy.<name> where <name> is neither an export of the package nor one of its submodules
TAXONOMY_PRIVATE = re.compile(
    _NAME_START + re.escape(TAXONOMY_OLD) + r"\.(?!(?:" + "|".join(TAXONOMY_EXPORTS + TAXONOMY_SUBMODULES)
    + r")\b)(\w+)"
)
#: ``from graphanon.taxonomy import names``: rewritten when a name is not an export
TAXONOMY_FROM = re.compile(r"\bfrom\s+graphanon\.taxonomy\s+import\s+([\w ,]+?)(?=\s*(?:#|$|\\n|\"|\)))",
                           re.MULTILINE)
#: a statement (not a doctest line) of the package that imports from the taxonomy facade
TAXONOMY_INTERNAL = re.compile(r"^([ \t]*from[ \t]+)graphanon\.taxonomy([ \t]+import\b)", re.MULTILINE)
#: ``from <package> import <name>[ as alias][, ...]`` where ``<package>.<name>`` may be a moved module
FROM_PACKAGE = re.compile(
    r"\bfrom\s+(graphanon(?:\.\w+)*)\s+import\s+(\w+(?:\s+as\s+\w+)?(?:\s*,\s*\w+(?:\s+as\s+\w+)?)*)"
    r"(?=\s*(?:#|$|\\n|\"|;))",
    re.MULTILINE,
)
#: file paths of moved modules
PATHS = {module_path(old): module_path(new) for old, new in all_moves().items()}
PATH = re.compile(r"(?<![\w./])(" + _alternation(PATHS) + r")(?!\w)")
#: the registry's table: ``"method": "module relative to graphanon.algorithms"`` inside ``BUILTIN = {...}``
BUILTIN_BLOCK = re.compile(r"^BUILTIN = \{.*?^\}", re.MULTILINE | re.DOTALL)
BUILTIN_ENTRY = re.compile(r'("[\w-]+":\s*")([\w.]+)(")')


class ManualFix(Exception):
    """A reference the script cannot rewrite safely (it says where)."""


def _from_package(match: re.Match, where: str) -> str:
    package, names = match.group(1), match.group(2)
    parts = [p.strip() for p in names.split(",")]
    moved = [p for p in parts if f"{package}.{p.split()[0]}" in MOVES]
    if not moved:
        return match.group(0)
    if len(parts) > 1:
        raise ManualFix(f"{where}: {match.group(0)!r} mixes moved modules with other names; split it by hand")
    name, *alias = parts[0].split()
    new_parent, _, new_leaf = MOVES[f"{package}.{name}"].rpartition(".")
    local = alias[-1] if alias else name
    return f"from {new_parent} import {new_leaf}" + (f" as {local}" if local != new_leaf else "")


def _taxonomy_from(match: re.Match) -> str:
    names = [n.strip().split()[0] for n in match.group(1).split(",") if n.strip()]
    if all(n in TAXONOMY_EXPORTS or n in TAXONOMY_SUBMODULES for n in names):
        return match.group(0)
    return match.group(0).replace("graphanon.taxonomy", TAXONOMY_NEW, 1)


def _builtin_table(text: str) -> str:
    def entry(m: re.Match) -> str:
        old = f"graphanon.algorithms.{m.group(2)}"
        if old not in MOVES:
            return m.group(0)
        return m.group(1) + MOVES[old].removeprefix("graphanon.algorithms.") + m.group(3)

    return BUILTIN_BLOCK.sub(lambda block: BUILTIN_ENTRY.sub(entry, block.group(0)), text)


def rewrite(text: str, where: str = "<text>") -> str:
    """``text`` with every old module reference replaced by the new one (idempotent).

    Examples
    --------
    >>> rewrite("from graphanon._random import check_random_state")
    'from graphanon.utils.randomness import check_random_state'
    >>> rewrite("from graphanon import support  # x")
    'from graphanon.counting import support  # x'
    >>> rewrite("from graphanon.algorithms import apriori")
    'from graphanon.algorithms.hierarchy import aa as apriori'
    >>> rewrite('patch("graphanon.algorithms.cahd_release.publish"); graphanon.supporting; x.graphanon.support')
    'patch("graphanon.algorithms.nonreciprocal.cahd.publish"); graphanon.supporting; x.graphanon.support'
    >>> rewrite("from graphanon.taxonomy import Taxonomy; graphanon.taxonomy._text_nodes")
    'from graphanon.taxonomy import Taxonomy; graphanon.taxonomy.tree._text_nodes'
    >>> rewrite("    from graphanon.taxonomy import Taxonomy", "graphanon/metrics/x.py")
    '    from graphanon.taxonomy.tree import Taxonomy'
    >>> rewrite(">>> from graphanon.taxonomy import Taxonomy", "graphanon/metrics/x.py")
    '>>> from graphanon.taxonomy import Taxonomy'
    >>> rewrite("see graphanon/_io.py and graphanon/taxonomy.py")
    'see graphanon/readwrite/files.py and graphanon/taxonomy/tree.py'
    """
    text = FROM_PACKAGE.sub(lambda m: _from_package(m, where), text)
    text = TAXONOMY_FROM.sub(_taxonomy_from, text)
    text = DOTTED.sub(lambda m: MOVES[m.group(1)], text)
    text = TAXONOMY_PRIVATE.sub(lambda m: f"{TAXONOMY_NEW}.{m.group(1)}", text)
    text = PATH.sub(lambda m: PATHS[m.group(1)], text)
    if where.startswith("graphanon/") and where != "graphanon/taxonomy/__init__.py":
        text = TAXONOMY_INTERNAL.sub(lambda m: f"{m.group(1)}{TAXONOMY_NEW}{m.group(2)}", text)
    if where.endswith("graphanon/algorithms/registry.py"):
        text = _builtin_table(text)
    return text


def files_to_rewrite() -> list[Path]:
    seen = set()
    for pattern in REWRITE_GLOBS:
        for path in sorted(ROOT.glob(pattern)):
            rel = path.relative_to(ROOT).as_posix()
            generated = rel.startswith("docs/api/")  # written by tools/make_api_pages.py from the new layout
            if path.is_file() and rel not in SKIP and rel not in seen and ".ipynb_checkpoints" not in rel \
                    and not generated:
                seen.add(rel)
                yield path


def rewrite_tree(write: bool = True) -> list[str]:
    changed, manual = [], []
    for path in files_to_rewrite():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        try:
            new = rewrite(text, rel)
        except ManualFix as exc:
            manual.append(str(exc))
            continue
        if new != text:
            changed.append(rel)
            if write:
                path.write_text(new, encoding="utf-8")
    if manual:
        sys.exit("relayout: fix by hand, then re-run:\n  " + "\n  ".join(manual))
    return changed


def sort_imports(changed: list[str]) -> None:
    """Re-sort the import blocks of the rewritten Python files and notebooks (ruff's isort rule, I001):
    ``graphanon.utils`` sorts after ``graphanon.errors`` where ``graphanon._random`` sorted before."""
    code = [rel for rel in changed if rel.endswith((".py", ".ipynb"))]
    if code:
        subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "I001", "--fix-only", "--quiet", *code],
                       cwd=ROOT, check=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a run would change files")
    args = parser.parse_args(argv)
    if args.check:
        pending = [f"move {old}" for old in all_moves() if (ROOT / module_path(old)).exists()]
        pending += [f"new {rel}" for rel in PACKAGE_INITS if not (ROOT / rel).exists()]
        pending += [f"rewrite {rel}" for rel in rewrite_tree(write=False)]
        print("\n".join(pending) or "relayout: nothing to do")
        return 1 if pending else 0
    moved = move_files()
    changed = rewrite_tree()
    sort_imports(changed)
    for line in moved:
        print(line)
    print(f"relayout: {len(moved)} moves, {len(changed)} files rewritten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
