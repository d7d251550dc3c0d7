"""Interactive views of graphanon's graphs: standalone HTML files and notebook widgets.

A :class:`GraphView` holds a graph as plain arrays (positions, labels, a
category per node and per edge, a detail table per node) and renders it with
one small canvas renderer written for graphanon (``_graphview.js``, shipped
in the package). :meth:`GraphView.save` writes a self-contained HTML file --
the script is inlined, nothing is fetched, so the file opens offline from
disk -- and :meth:`GraphView.widget` returns a notebook widget
(:class:`anywidget.AnyWidget`, the ``views`` extra) running the same script
in JupyterLab, Notebook 7 and VS Code.

Why a canvas renderer of our own: the views need tree expand/collapse, a
step-through of a search path and "edges shown only around the selected
node" (the candidate rows of a record), which generic graph widgets do not
offer, and the HTML must open offline (no CDN). A 2-D canvas with one batched
path per colour, a uniform picking grid and edges dropped while dragging keeps
10^5 nodes responsive (see ``benchmarks/views.py``).

The builders take what a method made and lay it out in numpy:
:func:`taxonomy_view` (a taxonomy with a published cut, suppressed nodes
crossed, LM/NCP per node), :func:`search_view` (the HgHs/mHgHs walk through
the cut lattice, one step at a time), :func:`generalization_view` (the
k-regular generalization graph: a record's k candidate rows, the chosen row
only when the private link is passed), :func:`similarity_view` (the record
similarity graph coloured by group) and :func:`constraint_view` (COAT's
constraint graph).

Privacy: a view contains what its builder is given. The private link (which
row is a record's) is drawn only when passed explicitly; a view made from a
release alone holds nothing the release does not publish.

The code lives in one module per view: ``core`` (:class:`GraphView`, its file and widget, the compact arrays),
``taxonomy`` (taxonomy and search views), ``generalization``, ``similarity`` and ``constraints``; every name is
importable from here.
"""

from __future__ import annotations

from graphanon.viz.views.constraints import BLOCK_DETAIL, CONSTRAINT_OVERVIEW_FROM, constraint_view  # noqa: F401 - the thresholds
from graphanon.viz.views.core import HTML_SUFFIXES, GraphView
from graphanon.viz.views.generalization import OVERVIEW_FROM, generalization_view  # noqa: F401
from graphanon.viz.views.similarity import similarity_layout, similarity_view
from graphanon.viz.views.taxonomy import (  # noqa: F401 - CutLabel: the search view's short labels
    CutLabel,
    classify_cut,
    cut_of_release,
    search_view,
    taxonomy_view,
)

__all__ = [
    "HTML_SUFFIXES",
    "GraphView",
    "classify_cut",
    "constraint_view",
    "cut_of_release",
    "generalization_view",
    "search_view",
    "similarity_layout",
    "similarity_view",
    "taxonomy_view",
]
