"""Write the API reference pages of the site (docs/api/*.md) from the packages' ``__all__``.

One page per public subpackage. Each public name is documented where it is defined
(``::: graphanon.privacy.km.KmAnonymity``): the subpackages are lazy facades (PEP 562,
graphanon.utils.lazy), so their names are found by importing them, not by reading the
``__init__``. Packages without a package-level ``__all__`` (counting, readwrite, utils) are
documented by the ``__all__`` of each public submodule.

tests/docs/test_site.py checks that the stored pages equal what this script writes (so a new
export without a page fails) and, independently, that every name of every public ``__all__``
appears. Run: python tools/make_api_pages.py
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API_DIR = ROOT / "docs" / "api"

#: (package, page title, one-line summary, extra public modules documented whole on the page)
PAGES = [
    ("graphanon", "graphanon", "The top-level names: data, readers, taxonomy, the memory budget.", ()),
    ("graphanon.data", "graphanon.data", "TransactionData and the readers and writers of transaction files.", ()),
    ("graphanon.errors", "graphanon.errors", "Every error an input can cause.", ()),
    ("graphanon.algorithms", "graphanon.algorithms", "The anonymization methods, one function each.", ()),
    ("graphanon.privacy", "graphanon.privacy", "Independent audits, one per privacy model.", ()),
    ("graphanon.metrics", "graphanon.metrics", "Utility metrics: NCP, UL, AvgRE, ER/QE, GGD.", ()),
    ("graphanon.attacks", "graphanon.attacks", "Adversaries scored against the private link.", ()),
    ("graphanon.release", "graphanon.release", "The release kinds, publication and the private link.", ()),
    ("graphanon.taxonomy", "graphanon.taxonomy", "Taxonomies and item groups.", ()),
    ("graphanon.relational", "graphanon.relational",
     "Relational-transaction data: relational tables, their hierarchies, the joined data.", ()),
    ("graphanon.readwrite", "graphanon.readwrite", "Transaction formats, Parquet, constraint files, atomic writes.", ()),
    ("graphanon.datasets", "graphanon.datasets", "Bundled datasets and the papers' worked examples.",
     ("graphanon.datasets.synthetic",)),
    ("graphanon.graphs", "graphanon.graphs", "The graph structures the methods build.", ()),
    ("graphanon.viz", "graphanon.viz", "Matplotlib drawings and interactive views.", ("graphanon.viz.views",)),
    ("graphanon.study", "graphanon.study", "Studies across methods, parameters and datasets.", ()),
    ("graphanon.distributed", "graphanon.distributed", "The Dask paths behind client=.", ()),
    ("graphanon.counting", "graphanon.counting", "Supports, bitmaps, containment counts, packed rows.", ()),
    ("graphanon.utils", "graphanon.utils", "Argument checks, randomness, progress, memory budget, labels.", ()),
    ("graphanon.testing", "graphanon.testing", "check_method: the common checks for your own method.",
     ("graphanon.testing.strategies",)),
    ("graphanon.plugins", "graphanon.plugins", "Methods of other installed packages (entry points).", ()),
]

#: packages documented whole (no __all__): every public class of the module
WHOLE_MODULES = {"graphanon.errors"}


def page_name(package: str) -> str:
    """docs/api/<name>.md for a package (``graphanon`` -> ``index``)."""
    return "index" if package == "graphanon" else package.removeprefix("graphanon.")


def _module_defining(package: str, name: str) -> str:
    """The submodule of ``package`` that assigns ``name`` at module level (constants)."""
    pkg = importlib.import_module(package)
    candidates = [package]
    if hasattr(pkg, "__path__"):
        candidates += [f"{package}.{info.name}" for info in pkgutil.iter_modules(pkg.__path__)]
    for module_name in candidates:
        module = importlib.import_module(module_name)
        source = Path(module.__file__).read_text(encoding="utf-8")
        for node in ast.parse(source).body:
            targets = []
            if isinstance(node, ast.Assign):
                targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                targets = [node.target.id]
            if name in targets:
                return module_name
    raise LookupError(f"{package}.{name}: no module of {package} defines it")


def documented_path(package: str, name: str) -> str:
    """The dotted path where ``package.name`` is defined (what ``:::`` renders)."""
    obj = getattr(importlib.import_module(package), name)
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and module.startswith("graphanon") \
            and "<" not in qualname:
        return f"{module}.{qualname}"
    return f"{_module_defining(package, name)}.{name}"


def public_names(package: str) -> list[str]:
    """The package's ``__all__`` (without ``__version__``)."""
    names = getattr(importlib.import_module(package), "__all__", None) or []
    return [n for n in names if not n.startswith("__")]


def public_submodules(package: str) -> list[str]:
    """Submodules of ``package`` not starting with ``_`` that declare ``__all__``."""
    pkg = importlib.import_module(package)
    found = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        module_name = f"{package}.{info.name}"
        if getattr(importlib.import_module(module_name), "__all__", None):
            found.append(module_name)
    return sorted(found)


_ROLE = re.compile(r":(?:py:)?\w+:`~?\.?(?P<target>[\w.]+)`")


def _first_paragraph(module_name: str) -> str:
    """The first paragraph of a module's docstring, its Sphinx roles as code text."""
    doc = importlib.import_module(module_name).__doc__ or ""
    return _ROLE.sub(lambda m: f"`{m['target']}`", doc.strip().split("\n\n")[0].replace("\n", " "))


def _sections(package: str, extra_modules: tuple[str, ...]) -> list[tuple[str | None, list[tuple[str, str]]]]:
    """(section module or None, [(name, documented path)]) of one page."""
    sections: list[tuple[str | None, list[tuple[str, str]]]] = []
    names = public_names(package)
    if names:
        sections.append((None, [(n, documented_path(package, n)) for n in names]))
    elif package not in WHOLE_MODULES and hasattr(importlib.import_module(package), "__path__"):
        for module_name in public_submodules(package):
            sections.append((module_name, [(n, documented_path(module_name, n)) for n in public_names(module_name)]))
    for module_name in extra_modules:
        sections.append((module_name, [(n, documented_path(module_name, n)) for n in public_names(module_name)]))
    return sections


def home_pages() -> dict[str, tuple[str, str | None]]:
    """Documented path -> (package, section) whose page renders it (each object is rendered once).

    A name exported by several packages or submodules (``check_k`` by privacy and utils,
    ``read_basket`` by readwrite.formats and readwrite.long_csv) is rendered where it is
    defined: in the section of its own module if a page has one, else on the page of the
    longest package prefix of its path; the other places link to it.
    """
    listed: dict[str, list[tuple[str, str | None]]] = {}
    for package, _title, _summary, extra in PAGES:
        if package == "graphanon":
            continue
        for module, entries in _sections(package, extra):
            for _name, path in entries:
                listed.setdefault(path, []).append((package, module))
    home: dict[str, tuple[str, str | None]] = {}
    for path, places in listed.items():
        whole = [m for m in WHOLE_MODULES if path.startswith(m + ".")]
        if whole:  # rendered by the page of the module documented whole (graphanon.errors)
            home[path] = (whole[0], None)
            continue
        own = [place for place in places if place[1] is not None and path.startswith(place[1] + ".")]
        prefixes = [place for place in places if path.startswith(place[0] + ".")]
        home[path] = own[0] if own else max(prefixes, key=lambda place: len(place[0])) if prefixes else places[0]
    return home


def _entries(place: tuple[str, str | None], entries: list[tuple[str, str]],
             home: dict[str, tuple[str, str | None]], level: int) -> list[str]:
    lines = []
    elsewhere = []
    for name, path in sorted(entries, key=lambda e: e[0].lower()):
        if home.get(path, place) == place:
            lines.append(f"::: {path}")
            if level != 2:
                lines += ["    options:", f"      heading_level: {level}"]
            lines.append("")
        else:
            elsewhere.append(f"* `{name}`: documented as [`{path}`][{path}]")
    if elsewhere:
        lines = ["Also exported here, documented with the module that defines it:", "", *elsewhere, "",
                 *lines]
    return lines


def render_page(package: str, title: str, summary: str, extra_modules: tuple[str, ...],
                home: dict[str, tuple[str, str | None]]) -> str:
    """The markdown of one API page."""
    lines = [
        "<!-- written by tools/make_api_pages.py from the packages' __all__; do not edit by hand -->",
        f"# {title}",
        "",
        summary,
        "",
        f"> {_first_paragraph(package)}",
        "",
    ]
    if package == "graphanon":
        lines += ["Each name is documented on the page of the module that defines it:", ""]
        for name in public_names(package):
            path = documented_path(package, name)
            lines.append(f"* [`graphanon.{name}`][{path}]: `{path}`")
        lines.append("")
        return "\n".join(lines)
    if package in WHOLE_MODULES:
        lines += [f"::: {package}", "    options:", "      show_root_heading: false", "      heading_level: 2",
                  "      members_order: source", ""]
        return "\n".join(lines)
    for module_name, entries in _sections(package, extra_modules):
        if module_name is None:
            lines += [f"`{package}.__all__`: {len(entries)} names.", ""]
            lines += _entries((package, None), entries, home, 2)
        else:
            lines += [f"## {module_name}", "", _first_paragraph(module_name), ""]
            lines += _entries((package, module_name), entries, home, 3)
    return "\n".join(lines)


def pages() -> dict[str, str]:
    """File name -> markdown for every API page."""
    home = home_pages()
    return {f"{page_name(pkg)}.md": render_page(pkg, title, summary, extra, home)
            for pkg, title, summary, extra in PAGES}


def main() -> None:
    API_DIR.mkdir(parents=True, exist_ok=True)
    written = pages()
    for stale in API_DIR.glob("*.md"):
        if stale.name not in written:
            stale.unlink()
    for name, text in written.items():
        (API_DIR / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(written)} pages to {API_DIR.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
