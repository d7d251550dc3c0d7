"""Write notebooks/choosing_a_method.ipynb (outputs cleared). Run: python notebooks/make_choosing_a_method.py"""

from _nbgen import NotebookCells  # notebooks/_nbgen.py, beside this script

cells = NotebookCells()
md, code = cells.md, cells.code


md("""
# Choosing a method for your data

A data custodian has transaction data and a privacy requirement (here: an adversary who knows up to
`m = 2` items of a customer's basket must not narrow them down to fewer than `k` customers, the
k^m-anonymity of Terrovitis et al., VLDB 2008). Several methods meet it; they differ in what they
destroy and in how long they take. A *study* runs every method at every `k` on the data, audits each
release independently, measures its utility on one shared COUNT-query workload, and attacks it -- then
the custodian picks.

The data is `groceries` (9,835 baskets over 169 items), with a balanced taxonomy of fan-out 5.
`graphanon compare` does the same from the command line and writes an HTML report.
""")
code("""
from graphanon.study import expand_grid, run_study

plan = expand_grid(["aa", "mhghs", "coat", "partition"], ["groceries"], k=[2, 5, 10], m=2,
                   taxonomy="balanced:5")
print(len(plan.runs), "runs")
for note in plan.notes:          # options a method does not take are left out, not ignored silently
    print("note:", note)
""")
md("""
Each method gets only what its declaration says it takes: Partition (He & Naughton, VLDB 2009)
protects against an adversary who knows the *whole* basket (transactional k-anonymity) and has no `m`;
COAT (Loukides et al., 2011) reads a taxonomy only when asked to.
""")
code("""
from graphanon.study import headline

table = run_study(plan.runs, workers=2)
print(headline(table))           # a failed run would be named here, and its row would say why
table[["method", "k", "m", "status", "audit_model", "audit_satisfied", "ncp", "avg_relative_error",
       "suppression_ratio", "wall_seconds", "attack_success"]].round(4)
""")
md("""
The headline above the table is computed from it: it names any run that failed (`status`, `error`)
and says whether every release met its model in the independent audit (`audit_satisfied`); COAT runs
with the command line's defaults (`s = 0.005`, the k^m privacy constraints of `m`), as
`graphanon anonymize -a coat` would. Lower NCP (information lost, 0-1) and AvgRE (relative error of
COUNT queries) are better. The row-linkage attack plays an
adversary who knows a customer's whole basket; k^m-anonymity does not promise anything against that
adversary, so `attack_success` there is a baseline to read, not a bound to meet.
""")
code("""
from graphanon.viz import draw_utility_vs_k

draw_utility_vs_k(table, ["ncp", "avg_relative_error", "suppression_ratio"]);
""")
code("""
from graphanon.viz import draw_pareto, draw_privacy_vs_k

draw_privacy_vs_k(table);
""")
code("""
draw_pareto(table, "ncp");
""")
md("""
## The choice

Among the releases that meet `k = 5, m = 2` in the audit, take the one losing the least information
(lowest NCP); ties go to the faster method.
""")
code("""
ok = table[(table["k"] == 5) & table["audit_satisfied"].fillna(False).astype(bool)]
best = ok.sort_values(["ncp", "wall_seconds"]).iloc[0]
print(f"chosen: {best['method']} (NCP {best['ncp']:.4f}, AvgRE {best['avg_relative_error']:.3f}, "
      f"{best['wall_seconds']:.2f} s)")
""")
md("""
The chosen release, made again and audited on its own: the audit report, the metrics on a fresh
workload and the attack next to its bound.
""")
code("""
from graphanon.attacks import row_linkage
from graphanon.datasets import load
from graphanon.metrics.evaluate import evaluate_release
from graphanon.privacy import KmAnonymity
from graphanon.study import run_method
from graphanon.study.execute import load_taxonomy

data = load("groceries")
given = best.dropna()           # the options this method was run with (a method's missing ones are NA)
tax = load_taxonomy(given["taxonomy"], "groceries") if "taxonomy" in given else None
release = run_method(best["method"], data, k=5, m=int(given["m"]) if "m" in given else None, taxonomy=tax)
report = KmAnonymity(5, 2).audit(data, release)
print(report.model, "satisfied:", report.satisfied, "violations:", report.violations)
metrics = evaluate_release(data, release, queries=200, rng=1)
print({name: round(metrics[name], 4) for name in ("ncp", "suppression_ratio", "avg_relative_error")})
print(row_linkage(data, release, truth=release.link, targets=2000, rng=0))
""")
md("""
What the chosen release actually achieves, beyond the k it was asked for
(`graphanon report groceries RELEASE`, docs/report.md): the largest k for each m, the records at
risk for each (k, m) and the most exposed itemsets, read from the published file as an adversary
would.
""")
code("""
import pandas as pd

from graphanon.privacy import achieved_privacy

achieved = achieved_privacy(data, release, k_grid=(2, 5, 10, 25)).to_dict()
print("largest k per m:", achieved["largest_k"])
risk = pd.DataFrame(achieved["risk"]).pivot(index="m", columns="k", values="records_at_risk")
print("records at risk (rows: m, columns: k):")
print(risk.to_string())
print("most exposed:", achieved["exposed"][:3])
""")
md("""
`graphanon compare groceries -a aa,mhghs,coat,partition -k 2,5,10 -m 2 --taxonomy balanced:5 -o study/`
writes this study's table (`results.csv`, `results.parquet`), its figures and one self-contained
`study/report.html`; a second run into the same folder with one more `k` reuses the finished runs.
""")
cells.write("choosing_a_method.ipynb")
