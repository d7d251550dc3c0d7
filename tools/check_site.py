"""Check a built site (mkdocs build) for broken links and for anything it would load from the web.

Run after ``mkdocs build --strict`` (which checks the links of the Markdown pages): this reads
every HTML file of the built site, notebooks and API pages included, and fails when

* a relative link or resource (``href``, ``src``) names a file that is not in the site, or an
  anchor (``#id``) that its page does not have;
* a page loads a script, style sheet, font, image or frame from another host (the site must
  work offline): links a reader may follow to another host are allowed and counted.

Run: python tools/check_site.py [site]    (exit 1 and one line per problem when it finds any)
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: (tag, attribute) pairs the browser loads by itself, as opposed to links a reader follows
LOADED = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"), ("source", "src"),
          ("video", "src"), ("audio", "src"), ("embed", "src"), ("object", "data")}


#: a script that fetches code from another host by itself (``import("https://...")``, a ``.js`` URL)
_SCRIPT_FETCH = re.compile(r"""import\(\s*["'](?:https?:)?//|["'](?:https?:)?//[^"'\s]+\.m?js["']""")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.refs: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.fetching_scripts: list[str] = []  # inline scripts that load code from the web
        self._in_script = False

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and _SCRIPT_FETCH.search(data):
            self.fetching_scripts.append(_SCRIPT_FETCH.search(data).group(0))

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        self._in_script = tag == "script"
        for key in ("id", "name"):
            if values.get(key):
                self.ids.add(values[key])
        for attribute in ("href", "src", "data"):
            value = values.get(attribute)
            if value is None:
                continue
            if tag == "link" and not set((values.get("rel") or "").split()) & {"stylesheet", "icon", "preload",
                                                                               "modulepreload", "manifest"}:
                continue  # <link rel="canonical"> and the like are not loaded
            self.refs.append((tag, attribute, value))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def _target(site: Path, page: Path, path: str) -> Path | None:
    """The file a URL path names (a folder means its index.html; ``/x`` is from the site's root)."""
    if path.startswith("/"):
        resolved = (site / unquote(path).lstrip("/")).resolve()
    else:
        resolved = (page.parent / unquote(path)).resolve() if path else page
    if resolved.is_dir():
        resolved = resolved / "index.html"
    return resolved if resolved.is_file() and resolved.is_relative_to(site.resolve()) else None


def problems(site: Path) -> tuple[list[str], int]:
    """(problems found, number of links to other hosts) of a built site."""
    pages = {path.resolve(): _parse(path) for path in site.rglob("*.html")}
    found, external = [], 0
    for path, page in pages.items():
        name = path.relative_to(site.resolve())
        found += [f"{name}: an inline script loads code from the web ({what})" for what in page.fetching_scripts]
        for tag, attribute, value in page.refs:
            url = urlsplit(value)
            if url.scheme in ("http", "https") or value.startswith("//"):
                if (tag, attribute) in LOADED:
                    found.append(f"{name}: loads <{tag} {attribute}={value!r}> from the web (the site must work offline)")
                else:
                    external += 1
                continue
            if url.scheme in ("mailto", "data", "javascript", "blob", "about"):
                continue
            target = _target(site, path, url.path)
            if target is None:
                found.append(f"{name}: <{tag} {attribute}={value!r}>: no such file in the site")
                continue
            if url.fragment and target.suffix == ".html" and target in pages \
                    and unquote(url.fragment) not in pages[target].ids:
                found.append(f"{name}: <{tag} {attribute}={value!r}>: no anchor #{url.fragment} there")
    return found, external


def main() -> int:
    site = Path(sys.argv[1] if len(sys.argv) > 1 else "site")
    if not (site / "index.html").is_file():
        print(f"check_site: {site} holds no built site (run mkdocs build first)", file=sys.stderr)
        return 2
    found, external = problems(site)
    for line in found:
        print(line)
    pages = sum(1 for _ in site.rglob("*.html"))
    print(f"check_site: {pages} pages, {len(found)} problems, {external} links to other hosts (not loaded)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
