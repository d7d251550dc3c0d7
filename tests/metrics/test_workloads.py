"""One workload generator: the same seed gives the same queries as the two generators it replaced.

The functions prefixed ``_old_`` are verbatim copies of the code before the merge
(``generate_workload`` of graphanon/metrics/queries.py and ``nr_workload`` of
graphanon/metrics/nonreciprocal.py), kept here so that a change to the shared
generator that would alter a published benchmark number fails this test.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphanon.algorithms import anonymize_nonreciprocal
from graphanon.counting.support import VerticalBitmaps
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.metrics import CountQuery, generate_workload, query_error, true_counts


def _old_generate_workload(data, n_queries=1000, q=2, *, seed=0, among=None, n_exclude=0, max_tries=200):
    rng = np.random.default_rng(seed)
    sup = data.supports()
    if among is None:
        pool = np.flatnonzero(sup > 0)
    else:
        pool = np.unique(data.item_ids(among))
        pool = pool[sup[pool] > 0]
    in_pool = np.zeros(data.n_items, dtype=bool)
    in_pool[pool] = True
    vb = VerticalBitmaps(data.matrix)
    m = data.matrix
    n_inc = q - n_exclude
    queries, answers = [], []
    for _ in range(n_queries):
        for _attempt in range(max_tries):
            r = int(rng.integers(data.n_records))
            rec = m.indices[m.indptr[r] : m.indptr[r + 1]]
            rec = rec[in_pool[rec]]
            if len(rec) >= n_inc:
                inc = rng.choice(rec, size=n_inc, replace=False)
            else:
                inc = rng.choice(pool, size=n_inc, replace=False)
            rest = np.setdiff1d(pool, inc)
            exc = rng.choice(rest, size=n_exclude, replace=False) if n_exclude else np.zeros(0, np.int64)
            bm = vb.bitmap(inc)
            for j in exc:
                bm = bm & ~vb.bits[j]
            a = int(np.bitwise_count(bm).sum())
            if a > 0:
                queries.append(
                    CountQuery(tuple(data.items[j] for j in sorted(inc)), tuple(data.items[j] for j in sorted(exc)))
                )
                answers.append(a)
                break
    return tuple(queries), np.array(answers, dtype=np.int64)


def _old_nr_workload(original, n_queries=500, n_include=3, n_exclude=4, *, seed=0):
    rng = np.random.default_rng(seed)
    sup = original.supports()
    pool = np.flatnonzero(sup > 0)
    Xc = sp.csc_array(original.matrix).astype(np.int32)
    inc, exc, ai, ae = [], [], [], []
    for _ in range(n_queries):
        a = rng.choice(pool, size=n_include, replace=False)
        b = rng.choice(pool, size=n_exclude, replace=False)
        cnt_a = np.asarray(Xc[:, a].sum(axis=1)).ravel()
        cnt_b = np.asarray(Xc[:, b].sum(axis=1)).ravel()
        inc.append(tuple(original.items[j] for j in a))
        exc.append(tuple(original.items[j] for j in b))
        ai.append(int((cnt_a == n_include).sum()))
        ae.append(int((cnt_b == 0).sum()))
    return tuple(inc), tuple(exc), np.array(ai), np.array(ae)


def _old_query_error(release, inc, exc, ai, ae, n_records):
    e1 = np.array([release.estimate_count(q) for q in inc])
    e2 = np.array([release.estimate_count((), q) for q in exc])
    q1 = float(np.mean(np.abs(ai - e1)) / n_records)
    q2 = float(np.mean(np.abs(ae - e2)) / n_records)
    return {"query_error_type1": q1, "query_error_type2": q2, "query_error": (q1 + q2) / 2}


@pytest.mark.parametrize(("name", "q", "n_exclude", "seed", "among"), [
    ("chess", 2, 0, 0, None), ("chess", 3, 1, 5, None), ("groceries", 1, 0, 3, None),
    ("groceries", 4, 2, 7, None), ("chess", 2, 0, 11, "first-20"),
])
def test_record_draw_is_the_old_generate_workload(name, q, n_exclude, seed, among):
    data = load(name)
    if among == "first-20":
        among = list(data.items[:20])
    new = generate_workload(data, 60, q, rng=seed, n_exclude=n_exclude, among=among)
    queries, answers = _old_generate_workload(data, 60, q, seed=seed, n_exclude=n_exclude, among=among)
    assert new.queries == queries and np.array_equal(new.answers, answers)


@pytest.mark.parametrize(("n_inc", "n_exc", "seed"), [(3, 4, 0), (3, 4, 9), (2, 2, 1), (5, 5, 4)])
def test_uniform_draw_is_the_old_nr_workload(n_inc, n_exc, seed):
    data = load("chess")
    new = generate_workload(data, 80, n_inc + n_exc, n_exclude=n_exc, rng=seed, draw="uniform")
    inc, exc, ai, ae = _old_nr_workload(data, 80, n_inc, n_exc, seed=seed)
    assert [set(q.include) for q in new.queries] == [set(t) for t in inc]
    assert [set(q.exclude) for q in new.queries] == [set(t) for t in exc]
    assert np.array_equal(true_counts(data, [CountQuery(q.include) for q in new.queries]), ai)
    assert np.array_equal(true_counts(data, [CountQuery((), q.exclude) for q in new.queries]), ae)


def test_query_error_numbers_unchanged():
    data = load("chess")
    rel = anonymize_nonreciprocal(data, k=5, order="gray", rng=0, unsafe_secret_seed=0)
    new = query_error(data, rel, generate_workload(data, 150, 7, n_exclude=4, rng=2, draw="uniform"))
    assert new == _old_query_error(rel, *_old_nr_workload(data, 150, 3, 4, seed=2), data.n_records)
    assert new["query_error"] > 0


def test_unknown_draw_names_the_parameter():
    with pytest.raises(ParameterError, match="draw"):
        generate_workload(load("chess"), 5, 2, draw="zipf")
