"""Write notebooks/clustering.ipynb (outputs cleared). Run: python notebooks/make_clustering.py"""

from _nbgen import NotebookCells  # notebooks/_nbgen.py, beside this script

cells = NotebookCells()
md, code = cells.md, cells.code


md("""
# Clump and Partition: local recoding into k-anonymous groups

Both methods publish *transactional k-anonymity*: every published record equals at least k-1
others. A group of records is published as one pattern of taxonomy nodes:

* **Clump** (SECRYPT 2010) groups similar records and publishes each group as its *least common
  generalization* (LCG): the most specific multiset of nodes such that in every record each copy
  stands for a distinct item under it; other items are suppressed. The cost is the Group
  Generalization Distortion `GGD(S, t) = |S| * sum LM(x) + Ns`.
* **Partition** (He & Naughton, PVLDB 2009) splits top-down from the root, expanding the node of
  largest information gain; each published node stands for a non-empty set of the record's items.

We start with the Clump paper's food example, then run both methods on one month of groceries.
""")
code("""
import matplotlib.pyplot as plt
import numpy as np

from graphanon.datasets import load, load_taxonomy
from graphanon.graphs.lcg import NodeIndex, ggd_fraction, lcg_labels
from graphanon.viz import draw_group_lcg, draw_similarity_neighborhood, draw_taxonomy

food, tax = load("clump_food"), load_taxonomy("clump_food")
idx = NodeIndex(tax, food.items)
print("LM(Fruit) =", idx.lm[idx.pos["Fruit"]], "= 2/7")
draw_taxonomy(tax);
""")
md("""
## The four LCGs of the paper

For each group: its LCG and GGD (exact fractions). `<Fruit, Food>` contains a parent and a child:
Food stands for Beef in one record and for Milk in the other.
""")
code("""
for rows in ([0, 1], [2, 3], [4, 5, 6], [7, 8]):
    recs = [sorted(food.record(i)) for i in rows]
    print(recs, "->", lcg_labels(idx, food, rows), " GGD =", ggd_fraction(idx, food, rows))
""")
md("""
Which item each LCG copy stands for, and which items are suppressed (red crosses):
""")
code("""
fig, axes = plt.subplots(1, 2, figsize=(15, 5))
for ax, rows in zip(axes, ([2, 3], [7, 8])):
    draw_group_lcg(tax, [food.record(i) for i in rows], lcg_labels(idx, food, rows), ax=ax)
""")
md("""
## Partition on He & Naughton's Table 2

With k = 2 the paper's worked example gives `{A}, {A}, {b1,b2} x2, {a1,a2,B} x3` (expanding A
gains 3/17, B only 2/17). Rows are published in a secret random order; the private link shows
each record's own row.
""")
code("""
from graphanon.algorithms import anonymize_clump, anonymize_partition
from graphanon.data import from_iterable
from graphanon.privacy import TransactionalKAnonymity
from graphanon.taxonomy import Taxonomy

t2 = Taxonomy.from_parent_map({"a1": "A", "a2": "A", "b1": "B", "b2": "B", "A": "ALL", "B": "ALL"})
table2 = from_iterable([["a1"], ["a1", "a2"], ["b1", "b2"], ["b1", "b2"], ["a1", "a2", "b2"],
                        ["a1", "a2", "b2"], ["a1", "a2", "b1", "b2"]])
rel = anonymize_partition(table2, taxonomy=t2, k=2)
for i in range(7):
    print(f"T{i + 1}", sorted(table2.record(i)), "->", rel.render_record(int(rel.link.row_of_record[i])))
print(TransactionalKAnonymity(2).audit(table2, rel))
print("He & Naughton NCP:", rel.params["ncp_hn"], "= 3.5/17")
""")
md("""
## Groceries

One month of baskets with the dataset's three-level taxonomy. Both releases pass the independent
transactional k-anonymity audit; we compare the GGD of their groups (as LCGs), both NCP
conventions and the average relative error of the same 300 COUNT queries.
""")
code("""
import time

from graphanon.metrics import average_relative_error, generate_workload, ncp_he_naughton, ncp_lm

groc, gtax = load("groceries"), load_taxonomy("groceries")
workload = generate_workload(groc, 300, 2, rng=0)
for k in (5, 25):
    for method in (anonymize_partition, anonymize_clump):
        t = time.perf_counter()
        r = method(groc, taxonomy=gtax, k=k)
        sec = time.perf_counter() - t
        assert TransactionalKAnonymity(k).audit(groc, r).satisfied
        print(f"k={k:2d} {r.algorithm:9s} {sec:5.2f}s groups={r.trace.groups:5d} "
              f"GGD={r.params['ggd_lcg']:8.1f} NCP(LM)={ncp_lm(groc, r):.3f} "
              f"NCP(H&N)={ncp_he_naughton(groc, r):.3f} AvgRE={average_relative_error(r, workload):.3f}")
""")
md("""
Clump draws its candidates from a record-similarity graph (each record's nearest records by
Jaccard similarity). The neighbourhood of one record, its group in orange:
""")
code("""
rel = anonymize_clump(groc, taxonomy=gtax, k=5)
group_of = rel.group_ids()[np.asarray(rel.link.row_of_record)]   # private: uses the link
r = int(np.flatnonzero(np.diff(groc.matrix.indptr) == 4)[0])
members = np.flatnonzero(group_of == group_of[r])
draw_similarity_neighborhood(rel.trace.similarity_graph, r, members, radius=1, max_nodes=40)
print("its group:", [sorted(groc.record(i)) for i in members])
print("published as:", rel.render_record(int(rel.link.row_of_record[r])))
""")

cells.write("clustering.ipynb")
