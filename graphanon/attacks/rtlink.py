"""The demographics-plus-items linking attack on relational-transaction releases.

The adversary knows a target's quasi-identifier values (age, gender, ...)
and ``m`` of its items, and keeps the published rows consistent with them:

* **relational**: every published value of the row covers the target's
  value (an interval holding it, a hierarchy node above it, the value
  itself, ``*``);
* **items**: every known item is covered by a published label of the row
  (the item itself, a label standing for it, an ancestor of it in the item
  taxonomy) -- unless no row of the row's class (rows with the same
  published relational values) publishes a label covering it: the item may
  have been suppressed there, so it constrains nothing for that class.

The second rule keeps the target's own row among the candidates for every
faithful release (its class publishes a covering label exactly when the
item was not suppressed, and then the row holds it), so the attack never
rules out the truth by itself. The adversary guesses uniformly among the
candidates: success ``1/|candidates|`` when the true row is one of them.
A (k, k^m)-anonymous release leaves every target at least ``k`` candidates
(:mod:`graphanon.privacy.rt`, Claim A); a release that anonymizes the
relational part and the items separately does not (the demographics narrow
the rows before the items are used).

References
----------
Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos. Anonymizing data with
relational and transaction attributes. ECML PKDD 2013, Sec. 3 (the
adversary of (k, k^m)-anonymity).
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. VLDB 2008 (the m-item adversary).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.result import AttackResult, make_result, random_row_baseline, resolve_targets
from graphanon.errors import ParameterError
from graphanon.metrics.relational import AttributeDomain, attribute_domains
from graphanon.utils.randomness import check_random_state

__all__ = ["rt_candidates", "rt_linkage"]

_CELLS = 4_000_000  # targets x rows cells per block


def _ancestors(taxonomy) -> dict[str, set[str]]:
    if taxonomy is None:
        return {}
    if hasattr(taxonomy, "ancestors") and hasattr(taxonomy, "nodes"):
        return {str(v): {str(a) for a in taxonomy.ancestors(v)} for v in taxonomy.nodes}
    return {str(v): {str(a) for a in anc} for v, anc in taxonomy.items()}


def _incidence(rows: Sequence[Sequence[str]], index: dict[str, int]) -> sp.csr_array:
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    cols = np.fromiter((index[x] for r in rows for x in r), dtype=np.int64, count=int(lengths.sum()))
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    X = sp.csr_array((np.ones(len(cols), dtype=np.int32), cols, indptr), shape=(len(rows), len(index)))
    X.sum_duplicates()
    return X


def _relational_cover(domains: Sequence[AttributeDomain], published: list[tuple[str, ...]],
                      original: list[tuple], targets: np.ndarray) -> list[tuple]:
    """Per attribute, what a block needs: codes of the rows and a target-by-value cover test."""
    tests = []
    for j, dom in enumerate(domains):
        values, row_code = np.unique(np.array([r[j] for r in published], dtype=str), return_inverse=True)
        row_code = row_code.ravel()
        tv = [original[t][j] for t in targets.tolist()]
        if dom.numeric:
            spans = np.array([(-np.inf, np.inf) if v == "*" else dom.interval(str(v)) for v in values], dtype=float)
            x = np.array([float(v) for v in tv])
            tests.append(("num", row_code, spans, x))
        else:
            orig_vals, t_code = np.unique(np.array([str(v) for v in tv], dtype=str), return_inverse=True)
            M = np.array([[str(o) in dom.members(str(v)) for o in orig_vals] for v in values], dtype=bool)
            tests.append(("cat", row_code, M, t_code.ravel()))
    return tests


def rt_candidates(
    original_rows: Sequence[Sequence],
    known: Sequence[Iterable[str]],
    published_rows: Sequence[Sequence[str]],
    published_items: Sequence[Iterable[str]],
    targets: Sequence[int] | np.ndarray,
    *,
    domains: Sequence[AttributeDomain] | None = None,
    hierarchies: Mapping[int, object] | None = None,
    taxonomy=None,
    members: Mapping[str, Iterable[str]] | None = None,
) -> np.ndarray:
    """Candidate rows of each target: relational values cover its QI values, labels cover its known items.

    Parameters
    ----------
    original_rows : sequence of tuples
        Original quasi-identifier values of every record.
    known : sequence of sets of str
        The original items the adversary knows, one set per target.
    published_rows, published_items : sequences
        The release: relational values and published labels of each row.
    targets : sequence of int
        The records attacked (indices into ``original_rows``).
    domains : sequence of AttributeDomain, optional
        Default: :func:`graphanon.metrics.relational.attribute_domains` of
        ``original_rows`` with ``hierarchies``.
    hierarchies : mapping, optional
        Per attribute position, its hierarchy (value -> ancestors) or
        numeric ``(lo, hi)`` domain.
    taxonomy : Taxonomy or mapping of str to iterable of str, optional
        Item ancestors: a published label that is an ancestor of an item
        covers it.
    members : mapping of str to iterable of str, optional
        Published label -> the original items it stands for.

    Returns
    -------
    ndarray of bool, shape (len(targets), n_rows)
        ``out[i, r]``: row ``r`` is a candidate of target ``targets[i]``.

    Notes
    -----
    Complexity: O(targets x rows) cells (the answer, in blocks of 4e6),
    plus sparse products of the known items with the items each row and
    each class shows.

    Examples
    --------
    >>> orig = [(42, "F"), (45, "F"), (47, "M")]
    >>> pub = [("[40-49]", "*")] * 3
    >>> rt_candidates(orig, [{"a"}], pub, [{"a"}, {"b"}, {"a"}], [0]).astype(int).tolist()
    [[1, 0, 1]]
    """
    rows = [tuple(str(v) for v in r) for r in published_rows]
    orig = [tuple(r) for r in original_rows]
    t = np.asarray(targets, dtype=np.int64).reshape(-1)
    if len(known) != len(t):
        raise ParameterError(f"{len(known)} sets of known items for {len(t)} targets: give one per target")
    if len(rows) != len(published_items):
        raise ParameterError(f"the release has {len(rows)} relational rows and {len(published_items)} item rows")
    n = len(rows)
    if n == 0 or len(t) == 0:
        return np.zeros((len(t), n), dtype=bool)
    doms = attribute_domains(orig, hierarchies=hierarchies) if domains is None else list(domains)
    # item coverage: original items (known ones) x published labels
    pub_items = [{str(x) for x in r} for r in published_items]
    labels = sorted(set().union(*pub_items)) if pub_items else []
    lab_index = {x: i for i, x in enumerate(labels)}
    known_sets = [{str(x) for x in s} for s in known]
    items = sorted(set().union(*known_sets)) if known_sets else []
    it_index = {x: i for i, x in enumerate(items)}
    anc = _ancestors(taxonomy)
    stands = {lab: {str(x) for x in (members or {}).get(lab, [lab])} for lab in labels}
    under: dict[str, set[int]] = {}  # original item -> the labels standing for it
    for lab in labels:
        for x in stands[lab]:
            under.setdefault(x, set()).add(lab_index[lab])
    cov_r, cov_c = [], []
    for x in items:  # the labels covering each known item: itself, a label standing for it, an ancestor
        cover = set(under.get(x, ())) | {lab_index[a] for a in anc.get(x, ()) if a in lab_index}
        if x in lab_index:
            cover.add(lab_index[x])
        cov_r += [it_index[x]] * len(cover)
        cov_c += sorted(cover)
    Cov = sp.csr_array((np.ones(len(cov_r), dtype=np.int32), (cov_r, cov_c)), shape=(len(items), len(labels)))
    R = _incidence([sorted(r) for r in pub_items], lab_index)
    row_cov = sp.csr_array(((R @ Cov.T) > 0).astype(np.int32))  # rows x known items: the row shows the item
    _, cls = np.unique(np.array(rows, dtype=str).reshape(n, -1), axis=0, return_inverse=True)
    cls = cls.ravel()
    G = sp.csr_array((np.ones(n, dtype=np.int32), (cls, np.arange(n))), shape=(int(cls.max()) + 1, n))
    class_cov = sp.csr_array(((G @ row_cov) > 0).astype(np.int32))  # classes x items: some row of the class shows it
    Q = _incidence([sorted(s) for s in known_sets], it_index)
    out = np.zeros((len(t), n), dtype=bool)
    step = max(1, _CELLS // max(1, n))
    tests = _relational_cover(doms, rows, orig, t)
    for lo in range(0, len(t), step):
        hi = min(len(t), lo + step)
        q = Q[lo:hi]
        # known items the row's class shows but the row does not: none allowed
        ok = (q @ class_cov.T).toarray()[:, cls] == (q @ row_cov.T).toarray()
        for kind, row_code, table, tv in tests:
            if kind == "num":
                spans = table[row_code]
                ok &= (spans[None, :, 0] <= tv[lo:hi, None]) & (tv[lo:hi, None] <= spans[None, :, 1])
            else:
                ok &= table[row_code][:, tv[lo:hi]].T
        out[lo:hi] = ok
    return out


def rt_linkage(
    original_rows: Sequence[Sequence],
    original_items: Sequence[Iterable[str]],
    published_rows: Sequence[Sequence[str]],
    published_items: Sequence[Iterable[str]],
    *,
    k: int,
    m: int = 2,
    truth=None,
    targets=None,
    hierarchies: Mapping[int, object] | None = None,
    taxonomy=None,
    members: Mapping[str, Iterable[str]] | None = None,
    rng=None,
    confidence: float = 0.999,
) -> AttackResult:
    """The linking attack of an adversary who knows a target's QI values and ``m`` of its items.

    Parameters
    ----------
    original_rows, original_items : sequences
        The original records: quasi-identifier values and item sets.
    published_rows, published_items : sequences
        The release (relational values and labels of each row).
    k : int
        The level the release claims (bound ``1/k``).
    m : int
        Items the adversary knows (all of a shorter record's).
    truth : array of int, optional
        ``truth[i]``: the row of record ``i`` (the private link). None: the
        true row is taken to be a candidate (it is, for a faithful release;
        module notes), so the success is the adversary's expected
        ``1/|candidates|``.
    targets : None, int or array of int
        As in :func:`graphanon.attacks.result.resolve_targets`.
    hierarchies, taxonomy, members :
        As in :func:`rt_candidates`.
    rng : seed or Generator
        Draws the targets (when an int) and the known items.
    confidence : float

    Returns
    -------
    AttackResult
        ``success`` = mean of ``1/|candidates|`` when the truth is a
        candidate; ``details``: ``records_below_k`` (how many targets have
        fewer than ``k`` candidates) and the first of them
        (``below_k_examples``: record index and candidate count),
        ``share_below_k``, ``min_candidates``, ``truth_outside``.

    See Also
    --------
    graphanon.privacy.rt.audit_rt : The audit of the bound it tests.
    graphanon.attacks.m_item_linkage : The same adversary without demographics.

    Notes
    -----
    Complexity: that of :func:`rt_candidates`; no Python loop over records
    beyond reading them.

    Examples
    --------
    >>> orig = [(42, "F"), (45, "F"), (47, "M"), (41, "M")]
    >>> items = [{"a"}, {"b"}, {"a"}, {"b"}]
    >>> pub = [("[40-49]", "*")] * 4
    >>> res = rt_linkage(orig, items, pub, items, k=2, m=1, truth=np.arange(4))
    >>> res.details["records_below_k"], res.within_bound()
    (0, True)
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ParameterError(f"m (items the adversary knows) must be a whole number >= 1, got {m!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"k must be a whole number >= 1, got {k!r}")
    n = len(original_rows)
    if len(original_items) != n:
        raise ParameterError(f"{n} original QI rows but {len(original_items)} item sets: one of each per record")
    if len(published_rows) != n:
        raise ParameterError(f"the original data has {n} records but the release {len(published_rows)} rows")
    gen = check_random_state(rng)
    t = resolve_targets(targets, n, gen)
    recs = [sorted(str(x) for x in original_items[i]) for i in t.tolist()]
    known = []
    for rec in recs:  # m of each target's items, uniformly (all of a shorter record)
        pick = gen.choice(len(rec), size=min(int(m), len(rec)), replace=False).tolist() if rec else []
        known.append({rec[p] for p in pick})
    cand = rt_candidates(original_rows, known, published_rows, published_items, t, hierarchies=hierarchies,
                         taxonomy=taxonomy, members=members)
    sizes = cand.sum(axis=1)
    if truth is None:
        has_truth = sizes > 0
    else:
        truth_rows = np.asarray(getattr(truth, "row_of_record", truth), dtype=np.int64)
        has_truth = cand[np.arange(len(t)), truth_rows[t]] if len(t) else np.zeros(0, dtype=bool)
    inv = np.where(sizes > 0, 1.0 / np.maximum(sizes, 1), 0.0)
    per = np.where(has_truth, inv, 0.0)
    below = np.flatnonzero(sizes < k)
    nt = len(t)
    return make_result(
        f"rt-linkage/m={int(m)}" + ("" if truth is not None else "/expected"),
        per,
        1.0 / int(k),
        "1/k",
        confidence,
        {
            "m": int(m),
            "k": int(k),
            "records_below_k": int(len(below)),
            "below_k_examples": [{"record": int(t[i]), "candidates": int(sizes[i])} for i in below[:10].tolist()],
            "share_below_k": float(len(below) / nt) if nt else 0.0,
            "min_candidates": int(sizes.min()) if nt else 0,
            "truth_outside": float((~has_truth).mean()) if nt else 0.0,
            "scored": truth is not None,
        },
        baseline=random_row_baseline(len(published_rows)),
        baseline_kind="random row",
    )
