"""MkDocs hooks of the site (mkdocs.yml: hooks).

* The notebooks of ``notebooks/`` become pages ``notebooks/<name>/`` without a copy in
  ``docs/``: they are added to the build's files before mkdocs-jupyter looks at them, which
  executes them at build time (the stored notebooks have no outputs; notebooks/README.md).
* nbconvert's loader of mermaid.js from a CDN is removed from the notebook pages (it fetches
  only when a notebook holds a mermaid diagram, and none does): the site loads nothing from
  the web (tools/check_site.py checks it).
* ``<!-- include: FILE -->`` on a page is replaced by the repository file FILE (CHANGELOG.md,
  CONTRIBUTING.md), its links to ``docs/X.md`` turned into links to the page ``X.md``.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent

#: the notebooks rendered in the site, in their nav order. views.ipynb is left out: its widgets
#: need a kernel or a widget manager fetched from a CDN, and the site works offline; its HTML
#: views are in the gallery instead.
NOTEBOOKS = (
    "getting_started",
    "hierarchy_recoding",
    "coat",
    "nonreciprocal",
    "clustering",
    "swapping",
    "choosing_a_method",
)

_MERMAID_LOADER = re.compile(r'<script type="module">\s*document\.addEventListener\("DOMContentLoaded", async \(\) => \{\s*'
                             r'const diagrams = document\.querySelectorAll\("\.jp-Mermaid.*?</script>', re.S)
_INCLUDE = re.compile(r"^<!-- include: (?P<file>[\w./-]+) -->$", re.M)
_DOCS_LINK = re.compile(r"\]\(docs/(?P<page>[^)]+)\)")


@event_priority(100)  # before mkdocs-jupyter's on_files, which wraps the .ipynb files it finds
def on_files(files, config):
    """Add notebooks/<name>.ipynb to the site's files."""
    for name in NOTEBOOKS:
        files.append(File(f"notebooks/{name}.ipynb", src_dir=str(ROOT), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files


def include_file(match: re.Match) -> str:
    """The text of a repository file, its ``docs/`` links made site-internal."""
    text = (ROOT / match["file"]).read_text(encoding="utf-8")
    return _DOCS_LINK.sub(lambda m: f"]({m['page']})", text)


def on_page_markdown(markdown, page, config, files):
    """Expand ``<!-- include: FILE -->`` lines."""
    return _INCLUDE.sub(include_file, markdown)


def on_post_page(output, page, config):
    """Drop the CDN loader of mermaid.js from a notebook page that has no mermaid diagram."""
    if page.file.src_uri.endswith(".ipynb") and 'class="jp-Mermaid' not in output:
        output = _MERMAID_LOADER.sub("", output)
    return output
