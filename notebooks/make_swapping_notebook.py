"""Write notebooks/swapping.ipynb (outputs cleared). Run: python notebooks/make_swapping_notebook.py"""

from _nbgen import NotebookCells  # notebooks/_nbgen.py, beside this script

cells = NotebookCells()
md, code = cells.md, cells.code


md("""
# Swapping to hide personal tendency

Gunawan & Mambo (Future Internet 2019) hide a person's *tendency* -- the category that dominates
their record -- by swapping items between dissimilar records rather than generalizing them. With the
items partitioned into categories:

* `WR(t, g)` = items of record `t` in category `g`; `MTV(t)` = `|t|` / categories present in `t`;
* a record has a tendency when some `WR > MTV`; its heaviest category (ties: the first) gives its
  *source items*;
* **PartSwap** pairs each such record with the least similar (Jaccard) record whose heaviest category
  differs and with which no item would collide, and the two exchange their source items (a record
  joins at most one pair);
* **FullSwap** also exchanges whole single-category records; the baselines are **RandSwap**,
  **PartSupp** (remove the heaviest category) and **SplitPerson** (one record per category).

The paper's Table 1 first, with categories of our own (its Figure 1 is lost), then BMS-WebView-1 with
50 random categories, as in the paper.
""")
code("""
import matplotlib.pyplot as plt

from graphanon.algorithms import (
    anonymize_fullswap,
    anonymize_partsupp,
    anonymize_partswap,
    anonymize_randswap,
    anonymize_splitperson,
)
from graphanon.algorithms.swapping import tendencies
from graphanon.datasets import load
from graphanon.privacy import TendencyHiding
from graphanon.taxonomy import ItemGroups
from graphanon.viz import draw_swap_graph, draw_swap_pair

data = load("swap_table1")
cats = ItemGroups({"News": ["1", "2", "3", "8"], "Shopping": ["6", "7"],
                   "Travel": ["4", "9", "12"], "Sports": ["5", "10", "11"]})
tend = tendencies(data, cats)
for i, rid in enumerate(data.record_ids):
    items = sorted(data.record(i), key=int)
    heavy = cats.names[tend.heaviest[i]] if tend.heaviest[i] >= 0 else "-"
    print(rid, " ".join(items).ljust(18), "tendency:", heavy)
""")
md("""
## PartSwap step by step

`visit="input"` visits the records in the paper's order (`rng` would draw a random order). 001 takes
007 (similarity 0; 009 would collide on item 2), 002 takes 004 (similarity 1/4: 003 collides since
002 already holds 7), 003 takes 006, 005 takes 009; 008 and 010 find no unpaired record of another
tendency and keep theirs -- the audit says so.
""")
code("""
rel = anonymize_partswap(data, categories=cats, visit="input")
for a, b in rel.trace.pairs:
    print(f"{data.record_ids[a]} <-> {data.record_ids[b]}  similarity {rel.trace.pair_similarity[a]:.2f}")
print()
print(rel.to_text())      # published rows: shuffled, pseudonyms only
print()
print(TendencyHiding(cats).audit(data, rel))
""")
code("""
draw_swap_pair(data, rel, cats, pair=rel.trace.pairs[0]);
""")
code("""
draw_swap_graph(data, rel, cats);
""")
md("""
## BMS-WebView-1, 50 random categories

The paper's setting: 50 categories of equal size drawn at random. Time, the tendency audit (with the
private link), and the utility metrics: frequent-itemset similarity and count at 0.2%-0.5% support,
and Dif.
""")
code("""
import time

from graphanon.metrics.itemsets import itemset_metrics
from graphanon.taxonomy.categories import random_categories

bms = load("bms1")
cats50 = random_categories(bms.items, 50, rng=0)
runs = {
    "PartSwap": lambda: anonymize_partswap(bms, categories=cats50, rng=0),
    "FullSwap": lambda: anonymize_fullswap(bms, categories=cats50, rng=0),
    "RandSwap": lambda: anonymize_randswap(bms),
    "PartSupp": lambda: anonymize_partsupp(bms, categories=cats50),
    "SplitPerson": lambda: anonymize_splitperson(bms, categories=cats50),
}
results = {}
for name, run in runs.items():
    t = time.perf_counter()
    r = run()
    sec = time.perf_counter() - t
    rep = TendencyHiding(cats50).audit(bms, r)
    results[name] = itemset_metrics(bms, r, supports=(0.002, 0.003, 0.004, 0.005))
    print(f"{name:12s} {sec:5.2f} s  rows {r.n_records:6d}  kept tendency {rep.details['kept_tendency']:4d}"
          f"/{rep.details['records_with_tendency']}  Dif {results[name]['dif']:.4f}")
""")
code("""
from graphanon.viz.study import series_styles

# equal results (FullSwap = PartSwap here) stay visible: each method its own colour, marker and line
# style, later ones drawn smaller and hollow on top of the earlier ones
styles = series_styles(results)
dashes = ["-", "--", ":", "-.", (0, (5, 1, 1, 1))]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for i, (name, m) in enumerate(results.items()):
    s = [row["support"] * 100 for row in m["fi"]]
    look = dict(color=styles[name]["color"], marker=styles[name]["marker"], linestyle=dashes[i % len(dashes)],
                markersize=10 - 1.5 * i, markerfacecolor="none" if i % 2 else styles[name]["color"],
                markeredgewidth=1.5, label=name, zorder=2 + i)
    axes[0].plot(s, [row["similarity"] for row in m["fi"]], **look)
    axes[1].plot(s, [row["released"] for row in m["fi"]], **look)
axes[1].plot(s, [row["original"] for row in results["PartSwap"]["fi"]], "k--", label="original")
axes[0].set(xlabel="support (%)", ylabel="FI similarity")
axes[1].set(xlabel="support (%)", ylabel="frequent itemsets")
axes[1].legend(fontsize=8)
fig.tight_layout()
""")
md("""
PartSwap keeps the most frequent itemsets of the original (highest similarity at every support) and
loses no item (Dif 0); RandSwap loses items to collisions, PartSupp the most (it deletes them);
SplitPerson loses none but multiplies the records, so few itemsets stay frequent. FullSwap equals
PartSwap here: exchanging two whole records leaves the *multiset* of published rows unchanged (the rows
are shuffled anyway), so it only changes the private link -- a person who knows their own
single-category record still finds it in the release.
""")

cells.write("swapping.ipynb")
