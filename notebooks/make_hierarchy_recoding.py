"""Generate notebooks/hierarchy_recoding.ipynb (outputs cleared). Run: python notebooks/make_hierarchy_recoding.py"""

from _nbgen import NotebookCells  # notebooks/_nbgen.py, beside this script

sources = [
    ("md", """# Hierarchy-based global recoding: HgHs / mHgHs, AA and MM

This notebook walks through the taxonomy-driven k^m-anonymizers of graphanon on the worked example of
Liu & Wang (PAKDD 2010, Fig. 1) and on the groceries baskets with their real 3-level taxonomy:

* **HgHs / mHgHs** — a top-down greedy walk of the *cut lattice*, each cut paired with a greedy
  *suppression scenario* found on the *suppression enumeration tree*;
* **AA** (Apriori Anonymization, Terrovitis et al.) — full-subtree generalization only;
* **MM** (Xu et al.) — total item suppression only, for (h,k,p)-coherence.

Every release is checked with an independent audit."""),
    ("code", """import matplotlib.pyplot as plt

from graphanon.algorithms import anonymize_aa, anonymize_hghs, anonymize_mhghs, anonymize_mm
from graphanon.datasets import load, load_taxonomy
from graphanon.metrics import ncp, suppression_ratio
from graphanon.privacy import HKPCoherence, KmAnonymity
from graphanon.viz import draw_cut_lattice, draw_enumeration_tree, draw_taxonomy_cut"""),
    ("md", "## 1. The Fig. 1 example: 8 records, a taxonomy of 11 leaves"),
    ("code", """data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
for i, rid in enumerate(data.record_ids):
    print(rid, " ".join(sorted(data.record(i))))
tax"""),
    ("md", "## 2. HgHs with k = 2, m = infinity\n\nThe paper's result: cut {P,f,g,M,e,i}, suppression scenario {i}, cost 3.6 + 2 = 5.6."),
    ("code", """rel = anonymize_hghs(data, taxonomy=tax, k=2, m=None)
print("cut:", rel.trace.cut, " suppressed:", rel.trace.suppressed)
p = rel.params
print(f"cost_G = {p['cost_generalization']:.1f}, cost_S = {p['cost_suppression']:.1f}, total = {p['cost']:.1f}")
print(rel.to_text())
print(KmAnonymity(2, None).audit(data, rel))"""),
    ("md", "The walk through the lattice, with the cost of every evaluated child cut:"),
    ("code", """rnd = rel.trace.search.rounds[0]
print("start", rnd.start, rnd.start_cost[0])
for st in rnd.steps:
    print(f"expand {st['expanded']!r:5} -> cost {st['cost']:.1f}, suppress {st['suppressed']}; "
          f"candidates {[(n, round(c, 1)) for n, c, _ in st['candidates']]}")"""),
    ("code", """fig, axes = plt.subplots(1, 3, figsize=(18, 5))
draw_taxonomy_cut(tax, rel.trace.cut, rel.trace.suppressed, ax=axes[0])
draw_cut_lattice(rel.trace.search.lattice(), ax=axes[1])
draw_enumeration_tree(rel.trace.search.enumeration_tree(), ax=axes[2], max_nodes=25)
fig.tight_layout()"""),
    ("md", "## 3. mHgHs: rounds k^1, k^2, ... on shrinking taxonomies\n\nRound 1 gives {a,b,c,d,f,g,M,e,i} with nothing suppressed."),
    ("code", """mrel = anonymize_mhghs(data, taxonomy=tax, k=2, m=None)
for r in mrel.trace.search.rounds:
    print(f"round {r.m}: cut {r.cut}, suppressed {r.suppressed}, cost {r.cost:.1f}, {r.n_threats} threats")
print(KmAnonymity(2, None).audit(data, mrel))"""),
    ("md", "## 4. The baselines on Fig. 1 (k = 2, m = 2)\n\nAA cannot suppress the rare pair {e,i}, so it generalizes everything to the root; MM suppresses items."),
    ("code", """for name, r in [("mHgHs", anonymize_mhghs(data, taxonomy=tax, k=2, m=2)),
                ("AA", anonymize_aa(data, taxonomy=tax, k=2, m=2)),
                ("MM", anonymize_mm(data, k=2, m=2))]:
    print(f"{name:6} NCP {ncp(data, r):.3f}  suppressed {suppression_ratio(data, r):.3f}  "
          f"audit {KmAnonymity(2, 2).audit(data, r).satisfied}")"""),
    ("md", "## 5. Groceries (9835 baskets, 169 items, 3-level taxonomy), k = 10, m = 2"),
    ("code", """gdata, gtax = load("groceries"), load_taxonomy("groceries")
results = {"mHgHs": anonymize_mhghs(gdata, taxonomy=gtax, k=10, m=2),
           "AA": anonymize_aa(gdata, taxonomy=gtax, k=10, m=2),
           "MM": anonymize_mm(gdata, k=10, m=2)}
for name, r in results.items():
    rep = KmAnonymity(10, 2).audit(gdata, r)
    print(f"{name:6} NCP {ncp(gdata, r):.4f}  suppression ratio {suppression_ratio(gdata, r):.4f}  "
          f"published items {r.n_published_items:3d}  audit {rep.satisfied}")"""),
    ("code", """g = results["mHgHs"]
fig, axes = plt.subplots(1, 2, figsize=(16, 5))
draw_taxonomy_cut(gtax, g.trace.cut, g.trace.suppressed, ax=axes[0], labels=False)
draw_cut_lattice(g.trace.search.lattice(), ax=axes[1], max_nodes=25)
fig.tight_layout()
print("suppressed:", g.trace.suppressed)"""),
    ("md", "## 6. (h,k,p)-coherence with private items\n\nMM with `whole milk` and `beef` private: no public pair may have support below 10 or predict a private item with probability above 0.4."),
    ("code", """private = ["whole milk", "beef"]
hkp = anonymize_mm(gdata, k=10, m=2, h=0.4, private_items=private)
print(HKPCoherence(0.4, 10, 2, private).audit(gdata, hkp))
print(f"suppressed {len(hkp.trace.suppressed)} public items, NCP {ncp(gdata, hkp):.3f}")"""),
]

cells = NotebookCells()
for kind, src in sources:
    (cells.md if kind == "md" else cells.code)(src)
cells.write("hierarchy_recoding.ipynb")
