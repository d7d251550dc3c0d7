"""The methods on record orders on the command line: ``-a nr`` and ``-a cahd``.

Each ``AlgorithmSpec`` declares the method's ``--param`` texts and general
options and adapts :class:`~graphanon.cli.registry.RunOptions` to
:func:`~graphanon.algorithms.nonreciprocal.anonymize_nonreciprocal` or
:func:`~graphanon.algorithms.nonreciprocal.cahd.anonymize_cahd`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphanon.cli.registry import AlgorithmSpec, Param, RunOptions
from graphanon.errors import ParameterError

if TYPE_CHECKING:  # the release module imports numba: only the run does (the spec is read without it)
    from graphanon.release.nonreciprocal import NonreciprocalRelease

__all__ = ["CAHD", "NR"]

_TSP_PARAMS = (
    Param("min_segment", int, 300, "Gray-TSP order: shortest segment solved as one TSP"),
    Param("max_segment", int, 350, "Gray-TSP order: longest segment solved as one TSP"),
    Param("tsp_time_limit", float, None, "Gray-TSP order: seconds per segment instead of the default step budget "
          "(refused with --seed)"),
    Param("tsp_step_limit", int, None, "Gray-TSP order: deterministic search budget per segment (the default; "
          "OR-Tools steps, default 40000; kicks of the local solver, default 1500)"),
    Param("tsp_solver", str, "local-length", "Gray-TSP order: segment solver, local-length (default: iterated "
          "2-opt/Or-opt on Hamming distance plus length difference; lower ER and QE than ortools at about a "
          "tenth of its time), ortools (OR-Tools routing, the former default) or local (Hamming distance only: "
          "the lowest ER, a higher QE)"),
)
_NR_PARAMS = (
    Param("l", int, None, "l-diversity of the sensitive labels (records need a label column)"),
    Param("l_method", str, "groups", "with l: groups (default: labels published apart from the k-anonymous rows, "
          "in groups of l distinct labels), or the paper's l-diverse graph, flow or greedy-walk (labels on "
          "postimages: l-diverse under uniform possible worlds only)"),
    Param("diversity", str, "distinct", "l-diversity variant of the label groups: distinct, entropy or recursive "
          "(l_method=groups)"),
    Param("c", float, None, "recursive (c,l)-diversity constant (diversity=recursive)"),
    Param("order", str, "gray-tsp", "cyclic record order"),
    Param("extraction", str, "closed-walk", "assignment extraction"),
    *_TSP_PARAMS,
)


def _run_nr(data, opts: RunOptions) -> NonreciprocalRelease:
    values = opts.values(_NR_PARAMS)
    order = values["order"]
    unused = [p.name for p in _TSP_PARAMS if p.name in opts.params]
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
    from graphanon.algorithms.nonreciprocal.anonymize import anonymize_nonreciprocal

    return anonymize_nonreciprocal(
        data,
        k=opts.k,
        **values,
        rng=opts.seed,
        progress=opts.progress,
        unsafe_secret_seed=opts.unsafe_secret_seed,
        client=opts.client,
        priors=opts.priors,
    )


NR = AlgorithmSpec(
    name="nr",
    summary="nonreciprocal recoding: k-regular ring over the Gray-TSP order, closed-walk assignments, "
    "bit voting (--param l=L for l-diversity: labels in groups, diversity=distinct|entropy|recursive, c=C; "
    "l_method=flow|greedy-walk: the paper's; order=gray-tsp|gray|identity; "
    "extraction=closed-walk|backtracking)",
    adapter=_run_nr,
    privacy_model="nonreciprocal",
    params=_NR_PARAMS,
    options=("k", "seed", "scheduler"),
    label_params=("l",),
)


_CAHD_PARAMS = (
    Param("l", int, None, "l-diversity: groups of l distinct sensitive labels (default: -k)"),
    Param("alpha", int, 3, "CAHD candidate list: alpha * l records on each side of the band"),
    Param("diversity", str, "distinct", "l-diversity variant: distinct, entropy (label entropy of every "
          "record's viable rows >= log l) or recursive (r_1 < c (r_l + ...))"),
    Param("c", float, None, "recursive (c,l)-diversity constant (diversity=recursive)"),
)


def _run_cahd(data, opts: RunOptions) -> NonreciprocalRelease:
    values = opts.values(_CAHD_PARAMS)
    l = opts.k if values["l"] is None else values["l"]  # noqa: E741
    if l is None:
        raise ParameterError("algorithm 'cahd' needs --param l=L (or -k L)")
    opts.require_labels(data, f"-a cahd --param l={l}" if values["l"] is not None else f"-a cahd -k {l}")
    from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd

    return anonymize_cahd(
        data, l=l, k=opts.k, alpha=values["alpha"], diversity=values["diversity"], c=values["c"],
        unsafe_secret_seed=opts.unsafe_secret_seed,
        progress=opts.progress, priors=opts.priors,
    )


CAHD = AlgorithmSpec(
    name="cahd",
    summary="CAHD l-diverse groups (Ghinita et al.) published by nonreciprocal bit voting (--param l=L; "
    "-k K > L: groups of K distinct labels)",
    adapter=_run_cahd,
    privacy_model="ldiversity",
    params=_CAHD_PARAMS,
    audit_params=("l", "diversity", "c"),
    options=("k",),
    needs_labels=True,
)
