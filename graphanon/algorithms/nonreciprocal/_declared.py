"""The translation hook of ``-a nr``'s declaration (:data:`graphanon.algorithms.nonreciprocal.anonymize.NR`).

Its refusal rules between options cannot be data; they sit in the family, beside the declaration's module.
"""

from __future__ import annotations

from graphanon.algorithms.declaration import Parameter
from graphanon.errors import ParameterError

__all__ = ["NR_PARAMS", "TSP_PARAMS", "prepare_nr"]


TSP_PARAMS = (
    Parameter("min_segment", int, 300, "Gray-TSP order: shortest segment solved as one TSP"),
    Parameter("max_segment", int, 350, "Gray-TSP order: longest segment solved as one TSP"),
    Parameter("tsp_time_limit", float, None, "Gray-TSP order: seconds per segment instead of the default step "
              "budget (refused with --seed)"),
    Parameter("tsp_step_limit", int, None, "Gray-TSP order: deterministic search budget per segment (the default; "
              "OR-Tools steps, default 40000; kicks of the local solver, default 1500)"),
    Parameter("tsp_solver", str, "local-length", "Gray-TSP order: segment solver, local-length (default: iterated "
              "2-opt/Or-opt on Hamming distance plus length difference; lower ER and QE than ortools at about a "
              "tenth of its time), ortools (OR-Tools routing, the former default) or local (Hamming distance only: "
              "the lowest ER, a higher QE)"),
)

#: ``-a nr``'s ``--param`` options (its declaration: :data:`graphanon.algorithms.nonreciprocal.anonymize.NR`).
NR_PARAMS = (
    Parameter("l", int, None, "l-diversity of the sensitive labels (records need a label column)"),
    Parameter("l_method", str, "groups", "with l: groups (default: labels published apart from the k-anonymous "
              "rows, in groups of l distinct labels), or the paper's l-diverse graph, flow or greedy-walk "
              "(labels on postimages: l-diverse under uniform possible worlds only)"),
    Parameter("grouping", str, "random", "label groups (l_method=groups): random (default: drawn in secret from "
              "the label counts, anew on every run, Anatomy; the rows are those of -k K alone; to publish the "
              "same data again, give this release as --prior, since two independent draws pin labels) or order (formed along the record "
              "order, one ring per group: closer labels, but which records a group skipped tells their labels)"),
    Parameter("diversity", str, "distinct", "l-diversity variant of the label groups: distinct, entropy or "
              "recursive (l_method=groups)"),
    Parameter("c", float, None, "recursive (c,l)-diversity constant (diversity=recursive)"),
    Parameter("order", str, "gray-tsp", "cyclic record order"),
    Parameter("extraction", str, "closed-walk", "assignment extraction"),
    *TSP_PARAMS,
)


def prepare_nr(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    """``-a nr``'s refusal rules between options (its declaration's ``prepare`` hook).

    Refused: TSP settings without the Gray-TSP order, a wall-clock limit with
    a seed, ``l_method`` without ``l``, a ring anyone can rebuild with labels
    and ``-k`` only, ``diversity`` or ``c`` without ``l``.
    """
    order = values["order"]
    unused = [p.name for p in TSP_PARAMS if p.name in opts.params]
    if unused and order != "gray-tsp":
        raise ParameterError(
            f"--param {', '.join(unused)}: only the Gray-TSP order reads {'it' if len(unused) == 1 else 'them'} "
            f"(got order={order}); drop {'it' if len(unused) == 1 else 'them'}"
        )
    if values["tsp_time_limit"] is not None and opts.seed is not None:
        raise ParameterError(
            f"--param tsp_time_limit={values['tsp_time_limit']} stops the Gray-TSP search on wall-clock time, so "
            "--seed would not reproduce the order; drop it, or set the deterministic budget with "
            "--param tsp_step_limit=N (per segment: 1500 kicks of the local solvers by default; 40000 steps with "
            "tsp_solver=ortools)"
        )
    if "l_method" in opts.params and "l" not in opts.params:
        raise ParameterError("--param l_method only applies with --param l=L (l-diversity)")
    if "grouping" in opts.params and ("l" not in opts.params or values["l_method"] != "groups"):
        raise ParameterError("--param grouping only applies to label groups: --param l=L with l_method=groups")
    if values["l"] is not None:
        opts.require_labels(data, f"--param l={values['l']}")
    elif getattr(data, "labels", None) is not None:
        # issue 30, item 4: with k only the labels travel with the chosen assignment; a ring an adversary holding
        # the data can rebuild (a seeded or a deterministic order) cuts each record's candidates to its k ring rows
        public = "--seed" if opts.is_given("seed") and opts.seed is not None else None
        if order in ("gray", "identity") and "order" in opts.params and opts.given is not None:  # typed: the CLI
            public = f"--param order={order}" if public is None else f"{public} and --param order={order}"
        if public is not None:
            raise ParameterError(
                f"{public} with sensitive labels and -k only: the labels travel with the chosen assignment and "
                "anyone holding the data rebuilds the ring (each record's k rows instead of all its candidates), "
                "which lifts label inference above the release's reference; keep the unseeded gray-tsp order, "
                "publish without labels (drop --label), or use --param l=L"
            )
    for name in ("diversity", "c"):
        if name in opts.params and values["l"] is None:
            raise ParameterError(f"--param {name} only applies with --param l=L (l-diversity)")
    return kwargs
