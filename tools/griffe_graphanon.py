"""A griffe extension for the site's API reference (mkdocs.yml: mkdocstrings python extensions).

graphanon's docstrings are numpydoc with Sphinx cross-reference roles; mkdocstrings renders
Markdown. This extension, run on every object griffe loads:

* replaces the shared-paragraph placeholders of :func:`graphanon.utils.docs.fill_doc`
  (``%(unsafe_secret_seed)s``) by the text the function carries at run time;
* turns ``:func:`~graphanon.release.publish``` (and ``:class:``, ``:meth:``, ``:mod:``, ...)
  into a link when the target is documented on an API page, else into code text;
* splits a parameter entry that names several parameters without a type
  (``data, taxonomy, k :`` + description) into one entry per parameter, so each shows its own
  annotation (griffe would give them all the first one's);
* turns the names of a ``See Also`` section (``graphanon.privacy.KmAnonymity : ...``) into
  links to their API entries.

A target is documented when tools/make_api_pages.py renders it (its public name
``graphanon.privacy.KmAnonymity``, its defining path ``graphanon.privacy.km.KmAnonymity``,
or a short name that only one documented object has). Nothing outside the API pages is
linked, so the strict build never meets a dangling reference.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from functools import cache
from pathlib import Path

import griffe

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_api_pages  # noqa: E402

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):`(?P<tilde>~?)(?P<target>[\w.]+)(?:\(\))?`")
_SEE_ALSO = re.compile(r"(?P<head>^(?P<indent>[ \t]*)See Also\n(?P=indent)-{4,}\n)(?P<body>.*?)(?=\n[ \t]*\n[ \t]*\S[^\n]*\n[ \t]*-{4,}\n|\Z)",
                       re.S | re.M)


_SHARED_ENTRY = re.compile(r"^(?P<indent>[ \t]*)(?P<names>\**[A-Za-z_]\w*(?:,[ \t]*\**[A-Za-z_]\w*)+)[ \t]*:[ \t]*\n"
                           r"(?P<desc>(?:(?P=indent)[ \t]+\S[^\n]*(?:\n|$))+)", re.M)


def _split_shared(match: re.Match) -> str:
    desc = match["desc"] if match["desc"].endswith("\n") else match["desc"] + "\n"
    return "".join(f"{match['indent']}{name.strip()}\n{desc}" for name in match["names"].split(","))


@cache
def _targets() -> tuple[dict[str, str], dict[str, str]]:
    """(full name -> documented path, short name -> documented path when unique)."""
    full: dict[str, str] = {}
    short: dict[str, set[str]] = {}
    home = make_api_pages.home_pages()
    for path in home:
        full[path] = path
        short.setdefault(path.rsplit(".", 1)[-1], set()).add(path)
    for package, _title, _summary, extra in make_api_pages.PAGES:
        modules = [package, *extra]
        if not make_api_pages.public_names(package) and package not in make_api_pages.WHOLE_MODULES \
                and hasattr(importlib.import_module(package), "__path__"):
            modules += make_api_pages.public_submodules(package)
        for module in modules:
            for name in make_api_pages.public_names(module):
                full[f"{module}.{name}"] = make_api_pages.documented_path(module, name)
    return full, {name: next(iter(paths)) for name, paths in short.items() if len(paths) == 1}


def resolve(target: str) -> str | None:
    """The documented path a cross-reference target names, or None."""
    full, short = _targets()
    target = target.lstrip(".")
    if target in full:
        return full[target]
    if "." not in target:
        return short.get(target)
    # graphanon.release.publish names the function publish of the module publish
    head, _, last = target.rpartition(".")
    if f"{target}.{last}" in full:
        return full[f"{target}.{last}"]
    return None


def _role(match: re.Match) -> str:
    target = match["target"]
    shown = target.rsplit(".", 1)[-1] if match["tilde"] else target.lstrip(".")
    path = resolve(target)
    return f"[`{shown}`][{path}]" if path else f"`{shown}`"


def _see_also(match: re.Match) -> str:
    def ref(name: str) -> str:
        path = resolve(name)
        return f"[`{name}`][{path}]" if path else f"`{name}`"

    def item(line: re.Match) -> str:
        names = ", ".join(ref(name.strip()) for name in line["names"].split(","))
        return f"{line['indent']}* {names}{line['rest']}"  # one bullet per entry (Markdown joins lines)

    indent = match["indent"]
    body = re.sub(rf"^(?P<indent>{indent})(?P<names>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)(?P<rest>\s*:.*|\s*)$",
                  item, match["body"], flags=re.M)
    return match["head"] + body


def convert(text: str) -> str:
    """The docstring with its Sphinx roles and See Also names turned into Markdown references."""
    text = _SHARED_ENTRY.sub(_split_shared, text)
    text = _SEE_ALSO.sub(_see_also, text)
    return _ROLE.sub(_role, text)


def _runtime_doc(obj: griffe.Object) -> str | None:
    try:
        value = importlib.import_module(obj.module.path)
        for part in obj.path.removeprefix(obj.module.path + ".").split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError):
        return None
    return inspect.getdoc(value)


class GraphanonDocstrings(griffe.Extension):
    """Fill ``fill_doc`` placeholders and turn Sphinx roles into Markdown cross-references."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:  # noqa: D102
        if obj.docstring is None:
            return
        text = obj.docstring.value
        if "%(" in text and obj.is_function:
            text = _runtime_doc(obj) or text
        obj.docstring.value = convert(text)
