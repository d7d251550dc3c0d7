"""The joint audit's exact step: confirm each (record, label) pair the propagation leaves by a joint world.

Three ways, all on single records: worlds built from minimum-weight perfect
matchings (:func:`_matching_worlds`, a cheap first pass), one CP-SAT model
solved until no world uses a pair not yet confirmed (:func:`cpsat_exact`,
the default), and the older backtracking search with propagation
(:func:`search_exact`, kept for comparison). A pair no joint world gives is
removed, so the sets are exactly those of the brute-force adversary
(:func:`graphanon.privacy.joint_labels.joint_label_sets`).

References
----------
Perron, Didier. CP-SAT, OR-Tools (Google), https://developers.google.com/optimization.
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse as sp

from graphanon.errors import InternalError
from graphanon.privacy.joint_groups import add_grouped_constraints, add_matching, grouped_world
from graphanon.privacy.joint_propagation import ReleaseGraph, propagate
from graphanon.privacy.matchings import k_factor_flow, viable_edges

__all__ = ["cpsat_exact", "search_exact"]


def _world(allowed: np.ndarray, size: np.ndarray, graphs, confirmed: np.ndarray):
    """A joint world within ``allowed`` (one label per record class of size 1), or None.

    Backtracking with propagation: branch on the class with the fewest labels left, trying first the
    labels no world found so far gave it (``confirmed``), so that each world found confirms new pairs.
    """
    out = propagate(allowed, size, graphs)
    if out is None:
        return None
    allowed = out[0]
    count = allowed.sum(axis=1)
    if (count == 1).all():
        return allowed.argmax(axis=1)
    c = int(np.argmin(np.where(count > 1, count, np.iinfo(np.int64).max)))
    labels = np.flatnonzero(allowed[c])
    for lab in labels[np.argsort(confirmed[c, labels], kind="stable")]:
        trial = allowed.copy()
        trial[c] = False
        trial[c, lab] = True
        world = _world(trial, size, graphs, confirmed)
        if world is not None:
            return world
    return None


def _viable_graph(allowed: np.ndarray, size: np.ndarray, g: ReleaseGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges of a labelled release some perfect matching within ``allowed`` uses: (records, row classes, labels)."""
    if g.label is None:  # pragma: no cover - called for labelled releases
        raise InternalError("an unlabelled release has no label edges")
    keep = allowed[g.ea, g.label]
    ea, eb, lab = g.ea[keep], g.eb[keep], g.label[keep]
    left = np.where(g.present, size, 0)
    viable = viable_edges(left, g.row_size, ea, eb, k_factor_flow(left, g.row_size, ea, eb, 1), 1)
    return ea[viable], eb[viable], lab[viable]


def _matching_worlds(allowed: np.ndarray, size: np.ndarray, graphs, confirmed: np.ndarray, *,
                     stall: int = 5, seed: int = 0, deadline: float = math.inf) -> np.ndarray:  # fmt: skip
    """Pairs confirmed by joint worlds built from minimum-weight perfect matchings (a cheap first pass).

    One attempt: take the labelled releases in a random order; in each, a
    perfect matching of its records (records labelled by an earlier release
    keep that label; the others may take any allowed label) that prefers
    pairs not yet confirmed (weight 1 against 2, plus noise); its row labels
    fix the labels of its records. Each matching is a real perfect matching
    consistent with the labels fixed before, so a finished attempt is a
    joint world and confirms its pairs. Stops after ``stall`` attempts in a
    row confirm nothing new (or ``4 stall`` fail in a row), or at ``deadline`` (``time.monotonic()``). The random draws change only how fast
    pairs are confirmed, never the sets: what this pass leaves, CP-SAT settles.
    """
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    confirmed = confirmed.copy()
    labelled = [g for g in graphs if g.labelled]
    rng = np.random.default_rng(seed)
    idle = failed = 0
    while idle < stall and failed < 4 * stall and time.monotonic() < deadline:
        fixed = np.full(len(size), -1, dtype=np.int64)
        ok = True
        for r in rng.permutation(len(labelled)):
            g = labelled[r]
            if g.group is not None:  # label groups: a group and a label per record, then rows within groups
                dealt = grouped_world(allowed, size, g, fixed, confirmed, rng)
                if dealt is None:
                    ok = False
                    break
                fixed = np.where(dealt >= 0, dealt, fixed)
                continue
            ea, eb, el = _viable_graph(allowed, size, g)
            fit = (fixed[ea] < 0) | (fixed[ea] == el)
            ea, eb, el = ea[fit], eb[fit], el[fit]
            # one node per row: row class b of size s stands for s identical rows
            first = np.zeros(len(g.row_size) + 1, dtype=np.int64)
            np.cumsum(g.row_size, out=first[1:])
            reps = g.row_size[eb]
            ea, el = np.repeat(ea, reps), np.repeat(el, reps)
            row = np.repeat(first[eb], reps) + (np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps))
            inside = np.flatnonzero(g.present)
            pos = np.full(len(size), -1, dtype=np.int64)
            pos[inside] = np.arange(len(inside))
            weight = 2.0 - (~confirmed[ea, el]) + 0.5 * rng.random(len(ea))
            W = sp.csr_array((weight, (pos[ea], row)), shape=(len(inside), int(first[-1])))
            try:
                left, right = min_weight_full_bipartite_matching(W)
            except ValueError:  # no perfect matching with the labels fixed so far: give up this attempt
                ok = False
                break
            code = sp.csr_array((el + 1, (pos[ea], row)), shape=W.shape)  # each (record, row) pair once
            fixed[inside[left]] = np.asarray(code[left, right]).reshape(-1).astype(np.int64) - 1
        if not ok or (fixed < 0).any():  # a failed attempt (counted apart: grouped attempts fail more often)
            failed += 1
            continue
        failed = 0
        new = ~confirmed[np.arange(len(size)), fixed]
        confirmed[np.arange(len(size)), fixed] = True
        idle = 0 if new.any() else idle + 1
    return confirmed


def _harvest(x: list):
    """A CP-SAT solution callback keeping in ``seen`` the pairs ``x`` of every solution reported.

    The solver reports each improving solution of a maximization, not only
    its last: every one is a solution of the model -- a joint world -- so
    every pair it uses is confirmed, for one read of ``x`` per solution.
    """
    from ortools.sat.python import cp_model

    class Harvest(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.seen = np.zeros(len(x), dtype=bool)

        def on_solution_callback(self) -> None:
            self.seen |= np.fromiter((self.boolean_value(v) for v in x), dtype=bool, count=len(x))

    return Harvest()


def cpsat_exact(allowed: np.ndarray, size: np.ndarray, graphs, *, workers: int = 1, first_pass: bool = True,
                 budget: float | None = None) -> tuple[np.ndarray, bool]:  # fmt: skip
    """The (record, label) pairs of ``allowed`` some joint world gives, by CP-SAT (records of size 1).

    One model: a Boolean per allowed (record, label) pair, exactly one per
    record; per labelled release a Boolean per viable edge, exactly one per
    record present in its data, ``row_size`` per row class, an edge
    implying its label's pair. Unlabelled releases couple nothing (their
    matchings exist, the propagation checked). Then, until every pair is
    settled: ask for a world using at least one pair no world found so far
    used, the search hinted toward one open label per record drawn at random
    (a plain feasibility solve: CP-SAT's presolve dominates a round, so a
    world that spreads over many open pairs is worth more than an optimal
    one); every solution the solver reports confirms all its pairs (one per
    record), and when none exists the pairs left are in no joint world.
    With ``first_pass``, worlds built from perfect matchings
    (:func:`_matching_worlds`) confirm pairs first. Grouped releases add
    their count constraints (:mod:`graphanon.privacy.joint_groups`).

    Returns ``(pairs, settled)``: with ``settled`` the pairs are exactly those
    of some joint world; when ``budget`` seconds (the whole step, from its
    start) ran out first, ``settled`` is False and the pairs are those
    confirmed so far -- a lower bound, ``allowed`` the upper one.
    """
    from ortools.sat.python import cp_model

    deadline = time.monotonic() + (math.inf if budget is None else float(budget))

    if (size != 1).any():  # pragma: no cover - exact mode works on single records
        raise InternalError("the exact step works on single records")
    model = cp_model.CpModel()
    rec, lab = np.nonzero(allowed)
    x = [model.new_bool_var(f"x{c}_{v}") for c, v in zip(rec.tolist(), lab.tolist(), strict=True)]
    var = np.full(allowed.shape, -1, dtype=np.int64)
    var[rec, lab] = np.arange(len(rec))
    starts = np.searchsorted(rec, np.arange(len(size) + 1))
    for c in range(len(size)):
        model.add_exactly_one(x[starts[c] : starts[c + 1]])
    for g in graphs:
        if g.group is not None:
            add_grouped_constraints(model, x, var, allowed, size, g)
            continue
        if g.label is None:
            continue
        ea, eb, el = _viable_graph(allowed, size, g)
        y = add_matching(model, ea, eb, size, g)
        for e, pair in enumerate(var[ea, el].tolist()):
            model.add_implication(y[e], x[pair])
    confirmed = np.zeros(len(rec), dtype=bool)
    if first_pass:
        confirmed = _matching_worlds(allowed, size, graphs, np.zeros_like(allowed), deadline=deadline)[rec, lab]
    xs = np.array(x, dtype=object)
    settled = True
    harvest = _harvest(x)
    rng = np.random.default_rng(0)
    while not confirmed.all():
        if time.monotonic() >= deadline:
            settled = False
            break
        open_ = xs[~confirmed].tolist()
        model.add_bool_or(open_)  # the open pairs only shrink: every earlier clause is implied
        # steer the search to a world of open pairs: hint each record one of its open labels, at random
        model.clear_hints()
        pick = rng.random(len(rec)) + 2.0 * confirmed
        best = np.full(len(size), np.inf)
        np.minimum.at(best, rec, pick)
        for v, on in zip(x, (pick == best[rec]).tolist(), strict=True):
            model.add_hint(v, on)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = workers
        if math.isfinite(deadline):
            solver.parameters.max_time_in_seconds = max(0.0, deadline - time.monotonic())
        status = solver.solve(model, harvest)
        confirmed |= harvest.seen  # every solution CP-SAT reported on the way is a joint world
        if status == cp_model.INFEASIBLE:
            break
        if status == cp_model.UNKNOWN and math.isfinite(deadline):  # the budget ran out
            settled = False
            break
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):  # pragma: no cover - no limit left
            raise InternalError(f"CP-SAT ended with status {solver.status_name(status)}")
        confirmed |= np.array([solver.boolean_value(v) for v in x], dtype=bool)
    out = np.zeros_like(allowed)
    out[rec[confirmed], lab[confirmed]] = True
    return out, settled


def search_exact(allowed: np.ndarray, size: np.ndarray, graphs) -> np.ndarray:
    """The exact step by backtracking search with propagation (one search per unconfirmed pair)."""
    confirmed = np.zeros_like(allowed)
    for c in range(len(size)):
        for lab in np.flatnonzero(allowed[c] & ~confirmed[c]):
            trial = allowed.copy()
            trial[c] = False
            trial[c, lab] = True
            world = _world(trial, size, graphs, confirmed)
            if world is None:  # no joint world gives it: drop it, and what that rules out
                allowed[c, lab] = False
                allowed = propagate(allowed, size, graphs)[0]
            else:
                confirmed[np.arange(len(size)), world] = True
    return allowed
