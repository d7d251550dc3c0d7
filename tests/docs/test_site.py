"""The documentation site's sources: API pages complete and current, gallery current.

The guide's python and bash blocks run in tests/docs/test_docs_snippets.py and
tests/docs/test_docs_bash.py, which read docs/ recursively.

The site itself is built by ``mkdocs build --strict`` in .ci/run (broken links, missing
references and warnings fail it) and checked by tools/check_site.py (links of the built HTML,
nothing loaded from the web). These tests need no build.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API_DIR = ROOT / "docs" / "api"
sys.path.insert(0, str(ROOT / "tools"))

import check_site  # noqa: E402
import make_api_pages  # noqa: E402
import make_gallery  # noqa: E402

#: every public package, written out here (not taken from tools/make_api_pages.py), so a
#: package dropped from the generator's list fails too
PUBLIC_PACKAGES = [
    "graphanon", "graphanon.data", "graphanon.errors", "graphanon.algorithms", "graphanon.privacy",
    "graphanon.metrics", "graphanon.attacks", "graphanon.release", "graphanon.taxonomy",
    "graphanon.readwrite", "graphanon.datasets", "graphanon.graphs", "graphanon.viz", "graphanon.study",
    "graphanon.distributed", "graphanon.counting", "graphanon.utils",
]
_DIRECTIVE = re.compile(r"^::: (?P<path>[\w.]+)$", re.M)


def exported_names(package: str) -> list[tuple[str, str]]:
    """(module, name) for every name of the package's ``__all__``, else of its public submodules'."""
    module = importlib.import_module(package)
    names = [n for n in getattr(module, "__all__", []) if not n.startswith("__")]
    if names:
        return [(package, n) for n in names]
    if not hasattr(module, "__path__"):  # a module without __all__: its public classes and functions
        return [(package, n) for n, v in vars(module).items()
                if not n.startswith("_") and getattr(v, "__module__", None) == package]
    return [(sub, n) for sub in make_api_pages.public_submodules(package)
            for n in importlib.import_module(sub).__all__]


def documented(pages: dict[str, str]) -> set[str]:
    """Dotted paths rendered by ``:::`` on the pages, with the members of whole modules."""
    paths = {m["path"] for text in pages.values() for m in _DIRECTIVE.finditer(text)}
    for path in list(paths):
        module = sys.modules.get(path) or (importlib.import_module(path) if path.count(".") == 1 else None)
        if module is not None and not hasattr(module, "__path__"):
            paths |= {f"{path}.{n}" for n, v in vars(module).items()
                      if not n.startswith("_") and getattr(v, "__module__", None) == path}
    return paths


def missing_from(pages: dict[str, str], packages: list[str]) -> list[str]:
    """``module.name`` of every public name no page renders."""
    rendered = documented(pages)
    short = {path.rsplit(".", 1)[-1] for path in rendered}
    missing = []
    for package in packages:
        for module, name in exported_names(package):
            obj = getattr(importlib.import_module(module), name)
            where = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', name)}"
            if where not in rendered and name not in short:
                missing.append(f"{module}.{name}")
    return missing


def stored_pages() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in API_DIR.glob("*.md")}


def test_every_public_name_is_in_the_api_pages():
    assert missing_from(stored_pages(), PUBLIC_PACKAGES) == []


def test_a_new_export_without_a_page_is_found():
    pages = stored_pages()
    planted = {name: text.replace("::: graphanon.privacy.km.KmAnonymity\n", "") for name, text in pages.items()}
    assert missing_from(planted, ["graphanon.privacy"]) == ["graphanon.privacy.KmAnonymity"]
    dropped = {name: text for name, text in pages.items() if name != "errors.md"}
    assert "graphanon.errors.GraphanonError" in missing_from(dropped, ["graphanon.errors"])


def test_api_pages_are_current():
    written = make_api_pages.pages()
    assert sorted(written) == sorted(stored_pages()), "run python tools/make_api_pages.py"
    for name, text in written.items():
        assert stored_pages()[name] == text, f"docs/api/{name} is stale: run python tools/make_api_pages.py"


def test_every_api_page_is_in_the_nav():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for name in stored_pages():
        assert f"api/{name}" in config


def test_each_object_is_rendered_once():
    # two `:::` of one object make two anchors with the same id: the strict build fails on it
    paths = [m["path"] for text in stored_pages().values() for m in _DIRECTIVE.finditer(text)]
    assert len(paths) == len(set(paths))


def test_sphinx_roles_become_links_or_code():
    import griffe_graphanon

    text = griffe_graphanon.convert(
        "Uses :func:`~graphanon.release.publish` and :class:`graphanon.privacy.KmAnonymity`, "
        "not :func:`no_such_function`.\n\nSee Also\n--------\n"
        "graphanon.privacy.KmAnonymity : The audit.\nanonymize_hghs, anonymize_aa\nnot_documented : No link.\n"
    )
    assert "[`publish`][graphanon.release.publish.publish]" in text
    assert "[`graphanon.privacy.KmAnonymity`][graphanon.privacy.km.KmAnonymity]" in text
    assert "`no_such_function`" in text and "[`no_such_function`]" not in text
    assert "* [`graphanon.privacy.KmAnonymity`][graphanon.privacy.km.KmAnonymity] : The audit." in text
    assert ("* [`anonymize_hghs`][graphanon.algorithms.hierarchy.hghs.anonymize_hghs], "
            "[`anonymize_aa`][graphanon.algorithms.hierarchy.aa.anonymize_aa]") in text
    assert "* `not_documented` : No link." in text
    assert ":func:" not in text and ":class:" not in text


def test_a_shared_parameter_entry_is_split():
    # griffe gives every name of "data, taxonomy, k :" the first one's annotation
    import griffe_graphanon

    text = griffe_graphanon.convert("Do.\n\nParameters\n----------\ndata, taxonomy :\n    As above.\nk : int\n    K.\n")
    assert "data\n    As above.\ntaxonomy\n    As above.\nk : int\n    K.\n" in text


def test_gallery_page_is_current():
    page = (ROOT / "docs" / "gallery" / "index.md").read_text(encoding="utf-8")
    assert page == make_gallery.page(), "run python tools/make_gallery.py"
    for output in make_gallery.outputs():
        assert (ROOT / "docs" / "gallery" / output).stat().st_size > 10_000, output
    for _title, _what, commands, output in make_gallery.ENTRIES + make_gallery.VIEWS:
        assert commands[-1].endswith(f"-o {output}")  # the page's command writes the picture it shows
    for _what, output in make_gallery.SCREENSHOTS:  # the browser tests' screenshots: present, small enough
        assert 10_000 < (ROOT / "docs" / "gallery" / output).stat().st_size < 400_000, output


def test_site_checker_finds_broken_links_and_web_assets(tmp_path):
    (tmp_path / "index.html").write_text(
        '<a href="page/">ok</a><a href="page/#here">ok</a><a href="https://example.org">followed, fine</a>'
        '<a href="missing/">broken</a><a href="page/#nowhere">no anchor</a>'
        '<script src="https://cdn.example.org/x.js"></script><link rel="stylesheet" href="//fonts.example.org/f.css">'
        '<script type="module">const m = (await import("https://cdn.example.org/m.mjs")).default;</script>'
        '<script>var here = "local";</script>'
    )
    (tmp_path / "page").mkdir()
    (tmp_path / "page" / "index.html").write_text('<h2 id="here">Here</h2><a href="../">up</a>')
    found, external = check_site.problems(tmp_path)
    assert external == 1
    assert len(found) == 5
    assert any("missing/" in line for line in found) and any("#nowhere" in line for line in found)
    assert sum("from the web" in line for line in found) == 3

