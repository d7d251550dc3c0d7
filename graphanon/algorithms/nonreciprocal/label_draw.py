"""The rows that carry the labels of an l-diverse ``nr`` release: a random diverse perfect matching (issue 30, item 1).

Xue et al. (Fig. 4b) publish each record's label on its own postimage. That
row is, far more often than the record's other candidates, the one whose
published content is nearest to the record, so an adversary who ranks the
candidates by content reads the label well above ``1/l``
(``docs/attacks.md`` (j)). Here the label of record ``s`` goes instead on
row ``M*(s)`` for a perfect matching ``M*`` of the generalization graph,
drawn from operating-system entropy among the matchings under which every
record's ``l`` graph rows still carry ``l`` distinct labels.

The postimage labelling (record ``s`` on its own row) is such a matching, so
one always exists. The draw is the optimum of CP-SAT on random edge weights
(a random-utility draw: not uniform over the feasible matchings, but
independent of the published contents, of the secret chosen assignment and
of the row order); it sees only the graph and the labels.
"""

from __future__ import annotations

import numpy as np

from graphanon.errors import InfeasibleError

__all__ = ["draw_label_matching"]


def draw_label_matching(
    assignments: np.ndarray,
    labels,
    l: int,  # noqa: E741
    *,
    rng: np.random.Generator,
    avoid_own: bool = True,
    time_limit: float = 600.0,
    workers: int = 1,
) -> tuple[np.ndarray, dict]:
    """Draw the row each record's label is published on: a random l-diverse perfect matching of the graph.

    Parameters
    ----------
    assignments : int array (l, n)
        The ``l`` disjoint perfect matchings of the generalization graph
        (``assignments[a, s]`` is the published record that matching ``a``
        gives record ``s``); one of them is the identity (each record's own
        postimage). The graph is their union: ``l``-regular.
    labels : sequence of length n
        The records' sensitive labels.
    l : int
        Every record's ``l`` graph rows must carry ``l`` distinct labels.
    rng : numpy.random.Generator
        The secret generator (:func:`graphanon.utils.randomness.secret_generator`):
        the edge weights and the solver's seed come from it.
    avoid_own : bool
        First minimize the records whose label stays on their own postimage
        (the row the content-ranking adversary finds), then maximize the
        random weights; else the random weights only.
    time_limit : float
        Seconds for CP-SAT. If it stops with a feasible matching that is not
        proven optimal, that matching is used (it is still drawn without the
        contents); if it found none, ``InfeasibleError``.
    workers : int
        CP-SAT search workers.

    Returns
    -------
    row_of_label : int array (n,)
        ``row_of_label[s]``: the published record that carries record ``s``'s label.
    stats : dict
        ``status``, ``seconds``, ``fixed_points`` (records whose label stays
        on their own postimage), ``variables``, ``diversity_constraints``.

    Raises
    ------
    InfeasibleError
        If the assignments are not ``l`` perfect matchings containing the
        identity with ``l`` distinct labels per record, or the solver found
        no matching within ``time_limit``.

    Notes
    -----
    Model: a boolean ``x[s, r]`` per graph edge; exactly one per record and
    one per row; for every record ``t`` and label ``L``, at most one of
    ``t``'s ``l`` rows carries ``L``, i.e. ``sum x[s, r] <= 1`` over the rows
    ``r`` of ``t`` and their preimages ``s`` labelled ``L`` (with ``l`` rows
    per record this is exactly "``l`` distinct labels"). Objective: maximize
    the sum of random integer weights in ``[0, 2**10)`` (with ``avoid_own``,
    after minimizing the fixed points). Since the graph is
    ``l``-regular and its rows carry distinct labels per record, the graph
    itself is the ``l``-regular ``l``-diverse subgraph the ``ldiversity``
    audit looks for, and ``M*`` is a label-preserving perfect matching.

    Complexity: ``n l`` variables, ``2 n`` exactly-one and at most
    ``n l^2`` terms in the diversity constraints; the solve is NP-hard in
    general, measured in ``docs/attacks.md`` (j).

    References
    ----------
    Xue et al., KDD 2012, Sec. 3 and Fig. 4b (the postimage labelling this
    replaces). Perron and Didier, CP-SAT (OR-Tools).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]])
    >>> rows, stats = draw_label_matching(A, list("abcabc"), 2, rng=np.random.default_rng(0))
    >>> sorted(rows.tolist()) == list(range(6)) and bool(((rows == A[0]) | (rows == A[1])).all())
    True
    """
    from ortools.sat.python import cp_model

    A = np.asarray(assignments, dtype=np.int64)
    n = A.shape[1]
    if A.shape[0] != l or not (np.sort(A, axis=1) == np.arange(n)).all():
        raise InfeasibleError(f"the label matching needs {l} perfect matchings of the graph, got shape {A.shape}")
    index: dict = {}
    lab = np.array([index.setdefault(v, len(index)) for v in labels], dtype=np.int64)
    n_lab = len(index)
    rec = np.tile(np.arange(n), l)  # edge e = (rec[e], row[e]), a-major
    row = A.ravel()
    if not (row[rec == row].size == n):
        raise InfeasibleError("the generalization graph does not contain every record's own postimage")
    model = cp_model.CpModel()
    x = [model.new_bool_var("") for _ in range(rec.size)]
    by_rec = np.argsort(rec, kind="stable").reshape(n, l)
    by_row = np.argsort(row, kind="stable").reshape(n, l)
    for es in by_rec:
        model.add_exactly_one(x[int(e)] for e in es)
    for es in by_row:
        model.add_exactly_one(x[int(e)] for e in es)
    # diversity: for record t, each of its rows r = A[a, t], each edge f into r (preimage s = rec[f]):
    # group (t, lab[s]) -> at most one chosen edge per group
    t_of = np.repeat(np.arange(n), l * l)
    rows_t = A.T[:, :, None]  # (n, l, 1) rows of t
    f = by_row[rows_t[:, :, 0]]  # (n, l, l) edges into each of t's rows
    f = f.reshape(-1)
    key = t_of * n_lab + lab[rec[f]]
    order = np.argsort(key, kind="stable")
    key, f = key[order], f[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    ends = np.r_[starts[1:], key.size]
    n_div = 0
    for s0, s1 in zip(starts.tolist(), ends.tolist(), strict=True):
        if s1 - s0 > 1:
            model.add_at_most_one(x[int(e)] for e in f[s0:s1])
            n_div += 1
    weights = rng.integers(0, 2**10, size=rec.size)
    if avoid_own:  # lexicographic: one edge off the postimage outweighs all random weights together
        weights = weights + (rec != row) * (2**10 * (n + 1))
    model.maximize(sum(int(w) * v for w, v in zip(weights.tolist(), x, strict=True)))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_search_workers = int(workers)
    solver.parameters.random_seed = int(rng.integers(2**31 - 1))
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise InfeasibleError(
            f"no l-diverse label matching found in {time_limit:g} s on {n} records "
            f"(solver status {solver.status_name(status)}); raise the label matching's time limit"
        )
    chosen = np.array([solver.value(v) for v in x], dtype=bool)
    out = np.empty(n, dtype=np.int64)
    out[rec[chosen]] = row[chosen]
    _check(out, A, lab, l)
    stats = {
        "status": solver.status_name(status),
        "seconds": float(solver.wall_time),
        "fixed_points": int((out == np.arange(n)).sum()),
        "variables": int(rec.size),
        "diversity_constraints": n_div,
    }
    return out, stats


def _check(out: np.ndarray, A: np.ndarray, lab: np.ndarray, l: int) -> None:  # noqa: E741
    """Raise unless ``out`` is a perfect matching of the graph keeping ``l`` distinct labels per record."""
    n = out.size
    if not (np.sort(out) == np.arange(n)).all() or not (A == out).any(axis=0).all():
        raise InfeasibleError("the label matching is not a perfect matching of the graph")
    owner = np.empty(n, dtype=np.int64)
    owner[out] = np.arange(n)
    labs = np.sort(lab[owner[A]], axis=0)  # (l, n): labels on each record's l rows
    if l > 1 and (labs[1:] == labs[:-1]).any():
        raise InfeasibleError("the label matching leaves a record with fewer than l distinct labels")
