"""Write notebooks/views.ipynb (outputs cleared). Run: python notebooks/make_views_notebook.py"""

from _nbgen import NotebookCells  # notebooks/_nbgen.py, beside this script

cells = NotebookCells()
md, code = cells.md, cells.code

md("""
# Interactive views of the anonymization structures

`graphanon.viz.views` turns what a method built into an interactive view: pan and zoom, hover a
node for its numbers, click it for its detail panel. Each view is a notebook widget
(`view.widget()`, needs `pip install 'graphanon[views]'`, i.e. anywidget; works in JupyterLab,
Notebook 7 and VS Code) and a standalone HTML file (`view.save("view.html")`, or
`graphanon draw ... -o view.html`) that opens offline. A static figure follows each widget for
readers of a rendered copy of this notebook, where widgets do not run.
""")
code("""
import matplotlib.pyplot as plt
import numpy as np

from graphanon.algorithms import anonymize_mhghs
from graphanon.algorithms.nonreciprocal import gray_tsp_order
from graphanon.datasets import load, load_taxonomy
from graphanon.graphs.generalization import ring_graph
from graphanon.viz import draw_generalization_graph, draw_taxonomy_cut
from graphanon.viz.views import generalization_view, search_view, taxonomy_view

data, tax = load("groceries"), load_taxonomy("groceries")
rel = anonymize_mhghs(data, taxonomy=tax, k=10, m=2)
print(f"mHgHs: {len(rel.trace.cut)} cut nodes, {len(rel.trace.suppressed)} suppressed")
""")
md("""
## The groceries taxonomy with the mHgHs cut

Green: published cut nodes; red with a cross: suppressed ones. The tree starts collapsed at the
cut; double-click a node (or use the button in its detail panel) to open it one level. Hover a
node for its LM `(leaves - 1) / (N - 1)`; cut nodes also give their share of the release's NCP.
""")
code("""
view = taxonomy_view(tax, rel.trace.cut, rel.trace.suppressed, data=data)
view.widget(height=620)
""")
code("""
fig, ax = plt.subplots(figsize=(9, 7))
draw_taxonomy_cut(tax, rel.trace.cut, rel.trace.suppressed, ax=ax);
""")
md("""
## The search path

mHgHs walks down the cut lattice: each step expands the node whose children give the cheapest
cut. The step control replays the walk; grey nodes are the child cuts evaluated and not taken.
""")
code("""
search_view(rel.trace.search).widget(height=520)
""")
md("""
## A generalization graph

The 5-regular ring graph of 300 BMS-WebView-1 records over their Gray-TSP order. Click a record:
its 5 candidate published records. Which one was published is the private link, not drawn here.
""")
code("""
sample = load("bms1").subset(np.arange(300)).drop_unused_items()
order = gray_tsp_order(sample.matrix, time_limit=None, rng=0)
graph = ring_graph(order, 5, sample.record_ids)
generalization_view(graph, order).widget(height=560)
""")
code("""
first = np.arange(40)  # the static figure reads at up to 60 records: the first 40, in index order
fig, ax = plt.subplots(figsize=(6, 6))
draw_generalization_graph(ring_graph(first, 3), first, ax=ax, title="3-regular ring over 40 records");
""")

cells.write("views.ipynb")
