"""Write notebooks/coat.ipynb (outputs cleared). Run: python notebooks/make_coat_notebook.py"""

from _nbgen import NotebookCells  # notebooks/_nbgen.py, beside this script

cells = NotebookCells()
md, code = cells.md, cells.code


md("""
# COAT: constraint-based anonymization of transactions

COAT (Loukides, Gkoulalas-Divanis, Malin, KAIS 2011) publishes a *set-based* global recoding:
each item is mapped to a published set of items such as `(a,b)`, or suppressed. It is driven by

* **privacy constraints** - itemsets an attacker may know; each must end up supported by at least
  `k` published records or by none (with every sub-itemset also 0 or >= k);
* **utility constraints** - a partition of the items: published sets stay inside one block, and at
  most a fraction `s` of the items may be suppressed.

This notebook replays the paper's Fig. 1 example step by step, then runs COAT on BMS-WebView-1.
""")
code("""
import math
import time

from graphanon.algorithms.coat import KmConstraints, anonymize_coat, pgen
from graphanon.datasets import load, load_constraints
from graphanon.errors import InfeasibleError
from graphanon.graphs import ConstraintGraph, MergeForest
from graphanon.metrics import ul
from graphanon.privacy import KmAnonymity, PrivacyConstraints, check_utility_constraints
from graphanon.viz import draw_constraint_graph, draw_merge_forest

data, c = load("coat_fig1"), load_constraints("coat_fig1")
for rid, rec in zip(data.record_ids, data.records()):
    print(f"{rid:7s}", "".join(sorted(rec)))
print("P =", c["privacy"], " U =", c["utility"], " k =", c["k"], " s =", c["s"])
""")
md("""
## The constraints as a graph

Privacy constraints (top) link to the items they name; utility constraints (bottom) partition the
items. Item labels show their support: `b` (3), `d`, `g`, `h` (4) are below k = 5.
""")
code("""
cg = ConstraintGraph(data, c["privacy"], c["utility"])
draw_constraint_graph(cg);
""")
md("""
## Running COAT step by step

Both constraints have support 1; `abc` comes first (input order). Its least-supported item `b` is
merged with `a`, the only other item of its utility constraint: `(a,b)c` reaches support 5.
For `defgh`, `d` (support 4) is alone in its utility constraint and is suppressed (1 of 8 items =
12.5% <= 15%); then `g` merges with `h` (the merge of least UL: support 6 against 7 for `e` or `f`),
and `e f (g,h)` reaches support 5.
""")
code("""
rel = anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=c["k"], s=c["s"])
trace = rel.trace
for st in trace.steps:
    print(st.step, st.kind, st.items, "->", st.result, "support", st.support, "for constraint", st.constraint)
print()
print(rel.to_text())
""")
code("""
draw_merge_forest(MergeForest(trace, data.items));
""")
md("""
## Independent audits and UL

The audits share no code with the algorithm. UL of `(a,b)` with the paper's weight 0.375 is
(2^2 - 1)/(2^8 - 1) * 0.375 * 7/10 = 0.0031 (the paper divides by 8 instead of N = 10 and gets
0.004); the suppressed `d` adds its support 4 to the release's UL.
""")
code("""
print(PrivacyConstraints(c["privacy"], c["k"]).audit(data, rel))
print(check_utility_constraints(data, rel, c["utility"], c["s"]))
r = ul(data, rel, weights={"(a,b)": 0.375})
print("UL((a,b)) =", round(math.exp(r.per_item["(a,b)"]), 5), "  UL(release) =", round(r.value, 4))
""")
md("""
Utility constraints that are too strict make COAT stop with an error that names the constraint,
rather than publish a violating release:
""")
code("""
try:
    anonymize_coat(data, privacy=c["privacy"], utility=[[x] for x in data.items], k=5, s=0.0)
except InfeasibleError as exc:
    print(exc)
""")
md("""
## Pgen: privacy constraints from the data

Pgen returns the maximal records (not contained in another record) supported by fewer than k
records - Example 5.3 of the paper:
""")
code("""
from graphanon.data import from_iterable

print(pgen(from_iterable([["a", "c", "f"], ["a", "c"], ["b", "h"]]), 2))
""")
md("""
## BMS-WebView-1

COAT with all 2-itemsets as privacy constraints (k^2-anonymity, k = 5, s = 0.5%), on the full
59,602 sessions; then the k^m audit, and the AvgRE of a COUNT workload compared with AA (Apriori
anonymization on a balanced taxonomy) on the same queries.
""")
code("""
bms = load("bms1")
t = time.perf_counter()
P = pgen(bms, 5)
print(f"Pgen: {len(P)} constraints in {time.perf_counter() - t:.2f} s")
t = time.perf_counter()
rel_b = anonymize_coat(bms, privacy=KmConstraints(2), utility=None, k=5, s=0.005)
print(f"COAT: {rel_b.n_published_items} published items, {rel_b.n_suppressed} suppressed, {time.perf_counter() - t:.1f} s")
print(KmAnonymity(5, 2).audit(bms, rel_b))
sizes = sorted((len(pi.members) for pi in rel_b.published_items), reverse=True)
print("largest published sets:", sizes[:8])
""")
code("""
from graphanon.algorithms import anonymize_aa
from graphanon.metrics import average_relative_error, generate_workload
from graphanon.taxonomy import Taxonomy

aa = anonymize_aa(bms, taxonomy=Taxonomy.balanced(bms.items, 5), k=5, m=2)
for q in (1, 3):
    wl = generate_workload(bms, 200, q, rng=3)
    print(f"q={q}: AvgRE COAT {average_relative_error(rel_b, wl):.3f}   AA {average_relative_error(aa, wl):.3f}")
""")

cells.write("coat.ipynb")
