"""Draw the gallery of the site (docs/gallery/): every `graphanon draw` figure on bundled data.

Each entry is the shell commands that make one picture; this script runs them (the installed
`graphanon` command, with this checkout first on PYTHONPATH) in docs/gallery/ and writes
docs/gallery/index.md showing each picture under the commands that made it. The commands on
the page are the ones run here, so the page cannot show a command that does not make its
picture. Run: python tools/make_gallery.py   (about a minute on two cores)

The screenshots of the views at the size of real data come from the browser tests:
    GRAPHANON_SCREENSHOTS=/tmp/shots pytest tests/viz/test_views_browser.py -k "at_scale or overview_answers"
    python tools/make_gallery.py --screenshots /tmp/shots
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GALLERY = ROOT / "docs" / "gallery"

#: (title, what it shows, commands; the last one writes `output`, output file)
ENTRIES = [
    ("Taxonomy cut of an mHgHs release",
     "The groceries taxonomy collapsed at the cut mHgHs published (k=5, m=2): published nodes "
     "blue, suppressed nodes red and crossed.",
     ["graphanon anonymize groceries -a mhghs -k 5 -m 2 --taxonomy groceries -o groceries_release.json",
      "graphanon draw taxonomy groceries --release groceries_release.json -o taxonomy_groceries.png"],
     "taxonomy_groceries.png"),
    ("Taxonomy of the paper's example",
     "Liu & Wang's Fig. 1 taxonomy with the cut HgHs finds for k=2, m=2.",
     ["graphanon anonymize liuwang_fig1 -a hghs -k 2 -m 2 --taxonomy liuwang_fig1 -o liuwang_release.json",
      "graphanon draw taxonomy liuwang_fig1 --release liuwang_release.json -o taxonomy_liuwang.png"],
     "taxonomy_liuwang.png"),
    ("The HgHs search",
     "HgHs on Liu & Wang's example: the cut, the walk through the cut lattice, and the "
     "suppression enumeration tree with its greedy path.",
     ["graphanon draw search liuwang_fig1 -k 2 -m 2 --taxonomy liuwang_fig1 -o search_liuwang.png"],
     "search_liuwang.png"),
    ("The mHgHs search on groceries",
     "The same three panels for mHgHs on groceries (k=5, m=2), trimmed to fit: the titles say "
     "what was left out.",
     ["graphanon draw search groceries -a mhghs -k 5 -m 2 --taxonomy groceries -o search_groceries.png"],
     "search_groceries.png"),
    ("COAT's constraint graph",
     "The items and privacy constraints of the COAT paper's Fig. 1 example.",
     ["graphanon draw constraints coat_fig1 -o constraints_coat_fig1.png"],
     "constraints_coat_fig1.png"),
    ("Constraints of a real dataset",
     "Thousands of constraints (all 2-itemsets of the first 2,000 BMS-WebView-1 sessions below "
     "k=5, from pgen) drawn as counts per item and per size.",
     ["graphanon draw constraints bms1 -k 5 -m 2 --records 2000 -o constraints_bms1.png"],
     "constraints_bms1.png"),
    ("Nonreciprocal recoding: ring and assignments",
     "The 2-regular generalization graph over the Gray-TSP order of the nonreciprocal paper's "
     "Table 1, and the two disjoint assignments the closed walk extracts.",
     ["graphanon draw generalization nr_table1 -k 2 -o generalization_nr_table1.png"],
     "generalization_nr_table1.png"),
    ("Nonreciprocal recoding on click streams",
     "The same for the first 40 BMS-WebView-1 sessions, k=3.",
     ["graphanon draw generalization bms1 --records 40 -k 3 -o generalization_bms1.png"],
     "generalization_bms1.png"),
]

#: interactive views (self-contained HTML, open offline): (title, what, commands, output)
VIEWS = [
    ("Taxonomy view", "pan, zoom, double-click a node to open or close it; LM and occurrences per node",
     ["graphanon anonymize groceries -a mhghs -k 5 -m 2 --taxonomy groceries -o groceries_release.json",
      "graphanon draw taxonomy groceries --release groceries_release.json -o taxonomy_groceries.html"],
     "taxonomy_groceries.html"),
    ("Search view", "the mHgHs walk through the cut lattice; the step control replays it",
     ["graphanon draw search groceries -a mhghs -k 5 -m 2 --taxonomy groceries -o search_groceries.html"],
     "search_groceries.html"),
    ("Generalization ring", "500 BMS-WebView-1 records on the k=5 ring; click a record for its candidates",
     ["graphanon draw generalization bms1 --records 500 -k 5 -o ring_bms1.html"],
     "ring_bms1.html"),
]


#: screenshots of the interactive views at the size of real data (26,854 ICD-9-like records, synthetic), taken in
#: headless Chromium at 1300x850 by tests/viz/test_views_browser.py with GRAPHANON_SCREENSHOTS=docs/gallery:
#: (what it shows, file). None draws a private link (record -> published row).
SCREENSHOTS = [
    ("Generalization overview: 360 bins of consecutive records along the order of the k=5 ring, coloured by the "
     "items a row must cover; arcs join bins with candidate edges between them",
     "generalization_overview_26854.png"),
    ("Generalization detail: one record, its 5 candidate rows and the other records they may stand for, drawn on "
     "click (no private link given: every candidate is equally likely)", "generalization_detail_26854.png"),
    ("Constraint blocks: pgen's 10,573 privacy constraints (k=5) drawn as one block per rarest item",
     "constraints_icd9_26854_overview.png"),
    ("Constraint block detail: a block's constraints and their items, drawn on click",
     "constraints_icd9_26854_block_detail.png"),
    ("Search: the mHgHs walk (k=5, m=2) through the cut lattice of the ICD-9-like taxonomy; every label apart",
     "search_icd9_26854_overview.png"),
    ("Search detail: the chosen cut clicked, its cost, size, cut and suppressed nodes in the side panel",
     "search_icd9_26854_detail.png"),
    ("Similarity overview: every record placed by similarity in Clump's k=5 groups (PRIVATE structure: the groups "
     "come from the release's link), coloured by group size", "similarity_icd9_26854_overview.png"),
    ("Similarity detail: a record found by its id and zoomed in on, its group ringed, its group, items and drawn "
     "neighbours in the side panel", "similarity_icd9_26854_detail.png"),
]


def run(commands: list[str]) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    for command in commands:
        print("$", command, file=sys.stderr)
        subprocess.run(shlex.split(command), cwd=GALLERY, env=env, check=True, stdout=subprocess.DEVNULL)


def page() -> str:
    lines = [
        "<!-- written by tools/make_gallery.py; do not edit by hand -->",
        "# Gallery",
        "",
        "Every drawing `graphanon draw` makes, on bundled data, under the commands that made it "
        "(paste them in any folder). The same figures come from Python through "
        "[graphanon.viz](../api/viz.md); the [notebooks](../notebooks/getting_started.ipynb) draw them inline.",
        "",
    ]
    for title, what, commands, output in ENTRIES:
        lines += [f"## {title}", "", what, "", "```bash", *commands, "```", "",
                  f"![{title}]({output})", ""]
    lines += [
        "## Interactive views",
        "",
        "An output ending in `.html` writes an interactive view instead: one self-contained file "
        "(the data and graphanon's own renderer inlined) that opens offline, with no server "
        "([interactive views](../index.md#interactive-views)).",
        "",
    ]
    for title, what, commands, output in VIEWS:
        lines += [f"### {title}", "", f"[Open the view]({output}): {what}.", "", "```bash", *commands, "```", ""]
    lines += [
        "### The views at the size of real data",
        "",
        "26,854 synthetic ICD-9-like patient records (`graphanon.datasets.synthetic.icd9_like`), screenshots of "
        "headless Chromium at 1300x850 taken by `tests/viz/test_views_browser.py` (set `GRAPHANON_SCREENSHOTS`).",
        "",
    ]
    for what, output in SCREENSHOTS:
        lines += [f"- {what}.", "", f"  ![{what}]({output})", ""]
    return "\n".join(lines)


def outputs() -> list[str]:
    return [entry[3] for entry in ENTRIES + VIEWS]


def copy_screenshots(folder: Path, colours: int = 256) -> None:
    """Copy the browser tests' screenshots (``SCREENSHOTS``) from ``folder`` into the gallery, each reduced to an
    adaptive palette of ``colours`` (Pillow, no dithering): the views' flat colours and text survive, the file
    shrinks 3-5 times (a canvas of thousands of anti-aliased edges otherwise writes over a megabyte)."""
    from PIL import Image

    for _what, output in SCREENSHOTS:
        with Image.open(folder / output) as image:
            image.convert("RGB").quantize(colors=colours, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE).save(
                GALLERY / output, optimize=True)
        print(f"{output}: {(GALLERY / output).stat().st_size:,} bytes", file=sys.stderr)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--screenshots":  # python tools/make_gallery.py --screenshots FOLDER
        copy_screenshots(Path(sys.argv[2]))
        (GALLERY / "index.md").write_text(page(), encoding="utf-8")
        return
    GALLERY.mkdir(parents=True, exist_ok=True)
    for _title, _what, commands, _output in ENTRIES + VIEWS:
        run(commands)
    for scratch in GALLERY.glob("*_release.json"):
        scratch.unlink()
    (GALLERY / "index.md").write_text(page(), encoding="utf-8")
    print(f"wrote {GALLERY.relative_to(ROOT)}/index.md and {len(outputs())} drawings", file=sys.stderr)


if __name__ == "__main__":
    main()
