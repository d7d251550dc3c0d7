"""Markdown tables from benchmarks/results/nonreciprocal.json (for docs/performance_nonreciprocal.md)."""

import json
import sys
from pathlib import Path


def main(path=Path(__file__).parent / "results" / "nonreciprocal.json"):
    r = json.loads(Path(path).read_text())
    out = [f"Machine: {r['machine']['platform']}, {r['machine']['cpus']} CPUs ({r['machine']['note']}).", ""]
    for q in r["quality_vs_k"]:
        out += [
            f"### {q['dataset']} (n={q['n']}, {q['items']} items): ring over Gray vs Gray-TSP order",
            "",
            f"Cyclic Hamming length: identity {q['cyclic_hamming']['identity']}, Gray {q['cyclic_hamming']['gray']}, "
            f"Gray-TSP {q['cyclic_hamming']['gray-tsp']} (TSP {q['tsp_time_limit']} s/segment, order time "
            f"{q['order_time_s']['gray-tsp']:.1f} s). QE over {q['queries']['n']} type I (|In|=3) and type II (|Ex|=4) queries.",
            "",
            "| k | ER Gray | ER Gray-TSP | QE-I Gray | QE-I Gray-TSP | QE-II Gray | QE-II Gray-TSP | audits |",
            "|---|---|---|---|---|---|---|---|",
        ]
        by = {}
        for row in q["rows"]:
            by.setdefault(row["k"], {})[row["order"]] = row
        for k, d in sorted(by.items()):
            g, t = d["gray"], d["gray-tsp"]
            ok = "pass" if g.get("audit_k") and t.get("audit_k") else "FAIL"
            out.append(
                f"| {k} | {g['error_rate']:.4f} | {t['error_rate']:.4f} | {g['query_error_type1']:.5f} | "
                f"{t['query_error_type1']:.5f} | {g['query_error_type2']:.5f} | {t['query_error_type2']:.5f} | {ok} |"
            )
        out.append("")
    for q in r["quality_vs_l"]:
        out += [
            f"### {q['dataset']}: l-diversity, NR (Gray-TSP, greedy assignments) vs CAHD (bit voting); labels {q['labels']}",
            "",
            "| l | method | ER | QE-I | QE-II | time (s) | l-diversity audit |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in q["rows"]:
            out.append(
                f"| {row['l']} | {row['method']} | {row['error_rate']:.4f} | {row['query_error_type1']:.5f} | "
                f"{row['query_error_type2']:.5f} | {row['time_s']:.2f} | {'pass' if row.get('audit_l') else 'FAIL'} |"
            )
        out.append("")
    e = r["extraction"]
    out += ["### Assignment extraction time, ring over the Gray order of chess (best of repeats)", "",
            "| k | closed walk (s) | backtracking (s) | ratio | steps CW | steps BT |", "|---|---|---|---|---|---|"]
    by = {}
    for row in e["vs_k"]:
        by.setdefault(row["k"], {})[row["method"]] = row
    for k, d in sorted(by.items()):
        c, b = d["closed-walk"], d["backtracking"]
        out.append(f"| {k} | {c['time_s']:.3f} | {b['time_s']:.3f} | {b['time_s'] / c['time_s']:.2f} | {c['steps']} | {b['steps']} |")
    out += ["", "| data | n | closed walk (s) | backtracking (s) | ratio | steps CW | steps BT |", "|---|---|---|---|---|---|---|"]
    by = {}
    for row in e["vs_size"]:
        by.setdefault(row["factor"], {})[row["method"]] = row
    for f, d in sorted(by.items()):
        c, b = d["closed-walk"], d["backtracking"]
        out.append(f"| chess x{f} (k=16) | {c['n']} | {c['time_s']:.3f} | {b['time_s']:.3f} | {b['time_s'] / c['time_s']:.2f} | {c['steps']} | {b['steps']} |")
    out += ["", "### Full k-anonymization (Gray-TSP order + ring + closed walk + bit voting)", "",
            "| dataset | n | k | TSP s/segment | time (s) | ER |", "|---|---|---|---|---|---|"]
    for row in r["full_pipeline"]:
        out.append(f"| {row['dataset']} | {row['n']} | {row['k']} | {row['tsp_time_limit']} | {row['time_s']:.2f} | {row['error_rate']:.4f} |")
    print("\n".join(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
