"""COAT's compiled k^m engine against the Python heap loop it replaced (same release, step by step).

The reference below is the loop as it was before the queue moved into numba (issue 15): a
``heapq`` of ``(-support, seq, items, t_push, groups)`` tuples, the top ``batch`` entries
re-counted when the top is stale, and the partner search scoring every candidate with
bitmap unions. The compiled engine must take exactly the same merge and suppression steps.
Small ``batch`` values make the re-count rule (re-pushed entries go behind entries of equal
support) decide the order on small data too.
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.coat import KmConstraints, anonymize_coat, engine
from graphanon.algorithms.coat.state import LN2, CoatState, RunLog, weight_function
from graphanon.counting.support import minimal_infrequent_itemsets
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import InfeasibleError
from graphanon.taxonomy import Taxonomy
from graphanon.taxonomy.constraint_sets import as_utility_blocks


class ReferenceState(CoatState):
    """The partner search before the compiled one: every candidate scored, unions from bitmaps."""

    def best_partner(self, g):
        live = self.is_live.copy()
        live[g] = False
        if not self.one_block:
            live &= self.block == self.block[g]
        cands = np.flatnonzero(live)
        if not len(cands):
            return None
        cands = cands[np.argsort(self.min_member[cands], kind="stable")]
        union = np.bitwise_count(self.bits[cands] | self.bits[g]).sum(axis=1).astype(np.float64)
        size = (self.size[cands] + self.size[g]).astype(np.float64)
        key = size * LN2 + np.log1p(-np.exp2(-size)) + self._log_weight(g, cands) + np.log(np.maximum(union, 0.5))
        return int(cands[int(np.argmin(key))])


def reference_run_km(state, m, batch):
    """The k^m loop before issue 15 (engine._run_km at c122772), Python heap and all."""
    k, trace, heap, seq = state.k, state.trace, [], 0

    def current(items):
        out = []
        for i in items:
            g = int(state.grp[i])
            if g >= 0 and g not in out:
                out.append(g)
        return tuple(out)

    def search():
        nonlocal seq
        viol, _ = minimal_infrequent_itemsets(state.published_matrix(), k, m)
        for lvl in viol:
            for row, sup in zip(lvl.itemsets.tolist(), lvl.supports.tolist(), strict=True):
                heap.append((-sup, seq, tuple(row), state.clock, tuple(row)))
                seq += 1
                trace.violations_found += 1
        heapq.heapify(heap)
        return bool(heap)

    def fresh(entry):
        _, _, items, t_push, groups = entry
        return current(items) == groups and max(state.changed_at[g] for g in groups) <= t_push

    while search():
        while heap:
            if not fresh(heap[0]):
                popped = [heapq.heappop(heap) for _ in range(min(len(heap), batch))]
                cur = [current(e[2]) for e in popped]
                for e, pub, sup in zip(popped, cur, state.supports_of(cur).tolist(), strict=True):
                    if pub and 0 < sup < k:
                        heapq.heappush(heap, (-sup, seq, e[2], state.clock, pub))
                        seq += 1
                continue
            items = heapq.heappop(heap)[2]
            trace.constraints_processed += 1
            state.satisfy(np.asarray(items, dtype=np.int64), tuple(state.data.items[i] for i in items))


def reference_trace(data, m, k, s, utility=None, weights=None, batch=engine.RECOUNT_BATCH):
    block, _ = as_utility_blocks(data, utility)
    trace = RunLog()
    state = ReferenceState(data, block, k, float(s), weight_function(data, weights), None, trace)
    reference_run_km(state, m, batch)
    return trace.freeze()


def assert_same_run(data, m, k, s, utility=None, weights=None, batch=engine.RECOUNT_BATCH):
    """Both engines succeed with the same steps and counters, or both refuse the same way."""
    def run_new():
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(engine, "RECOUNT_BATCH", batch)
            return anonymize_coat(data, privacy=KmConstraints(m), utility=utility, k=k, s=s, weights=weights).trace

    try:
        expected = reference_trace(data, m, k, s, utility, weights, batch)
    except InfeasibleError as exc:
        with pytest.raises(InfeasibleError) as got:
            run_new()
        assert str(got.value) == str(exc)
        return None
    got = run_new()
    assert got.steps == expected.steps
    assert (got.constraints_processed, got.violations_found) == (
        expected.constraints_processed, expected.violations_found)
    assert got.suppressed == expected.suppressed
    return got


@pytest.mark.parametrize("name, rows, m, k, s, batch", [
    ("groceries", 3000, 2, 5, 0.05, 4096),
    ("groceries", 3000, 2, 5, 0.05, 7),
    ("groceries", 1500, 3, 4, 0.2, 16),
    ("bms1", 4000, 2, 5, 0.1, 4096),
    ("bms1", 4000, 2, 10, 0.2, 5),
])
def test_same_steps_as_the_python_heap_loop_on_bundled_data(name, rows, m, k, s, batch):
    data = load(name).subset(np.arange(rows))
    trace = assert_same_run(data, m, k, s, batch=batch)
    assert trace is not None and len(trace.steps) > 20  # a run long enough for stale entries and re-counts


def test_same_steps_with_utility_blocks_and_taxonomy_weights():
    """Blocks restrict the partners; taxonomy weights switch off the per-size pruning."""
    data = load("groceries").subset(np.arange(2000))
    tax = Taxonomy.balanced(data.items, 4)
    blocks = [data.items[i:i + 40] for i in range(0, data.n_items, 40)]
    assert assert_same_run(data, 2, 5, 0.3, utility=blocks, batch=9) is not None
    assert assert_same_run(data, 2, 5, 0.3, weights=tax, batch=9) is not None


@st.composite
def km_problems(draw):
    n_items = draw(st.integers(2, 12))
    items = [f"i{j}" for j in range(n_items)]
    records = draw(st.lists(st.lists(st.sampled_from(items), min_size=1, max_size=6, unique=True),
                            min_size=3, max_size=40))
    data = from_iterable(records)
    n_blocks = draw(st.integers(1, 3))
    blocks = None
    if n_blocks > 1:
        assign = draw(st.lists(st.integers(0, n_blocks - 1), min_size=data.n_items, max_size=data.n_items))
        blocks = [b for j in range(n_blocks) if (b := [x for x, a in zip(data.items, assign, strict=True) if a == j])]
    k = draw(st.integers(2, min(6, len(records))))
    return (data, draw(st.integers(1, 3)), k, draw(st.sampled_from([0.0, 0.2, 1.0])),
            blocks, draw(st.sampled_from([1, 2, 3, 4096])))


@settings(max_examples=120, deadline=None)
@given(km_problems())
def test_same_steps_as_the_python_heap_loop_on_random_data(problem):
    data, m, k, s, blocks, batch = problem
    assert_same_run(data, m, k, s, utility=blocks, batch=batch)


@pytest.mark.parametrize("offer", ["none", "self", "merged", "suppressed"])
def test_a_partner_that_is_not_live_is_an_internal_error_not_a_key_error(monkeypatch, offer):
    """The flaky ``KeyError: -1`` in ``CoatState.merge``: the compiled partner search offered -1
    (machine code that did not match its source, graphanon.utils.numba_cache). Every group the
    search can offer is checked before a merge: a group that is not live in ``g``'s block would
    merge into a crash or a wrong release."""
    from graphanon.algorithms.coat import _kernels
    from graphanon.errors import InternalError

    data = load("coat_fig1")
    state = CoatState(data, np.zeros(data.n_items, dtype=np.int64), 2, 1.0, None, None, RunLog())
    state.merge(2, 3, ())
    state.suppress(4, ())
    g = 0
    bad = {"none": -1, "self": g, "merged": 3, "suppressed": 4}[offer]
    real = _kernels.partner_candidates
    assert bad not in real(g, state.bits, data.matrix.indptr, data.matrix.indices, state.grp, state.rep_of_min,
                           state.block, state.one_block, state.sup, state.size, True)[0].tolist()
    monkeypatch.setattr(_kernels, "partner_candidates",
                        lambda *a: (np.array([bad], dtype=np.int64), np.array([1], dtype=np.int64)))
    with pytest.raises(InternalError, match="not a live published item .*numba's cache"):
        state.best_partner(g)


def test_a_partner_of_another_block_is_an_internal_error(monkeypatch):
    from graphanon.algorithms.coat import _kernels
    from graphanon.errors import InternalError

    data = load("coat_fig1")
    block = np.arange(data.n_items, dtype=np.int64) % 2
    state = CoatState(data, block, 2, 1.0, None, None, RunLog())
    assert state.best_partner(0) in np.flatnonzero(block == 0).tolist()
    monkeypatch.setattr(_kernels, "partner_candidates",
                        lambda *a: (np.array([1], dtype=np.int64), np.array([1], dtype=np.int64)))
    with pytest.raises(InternalError, match="utility block"):
        state.best_partner(0)
