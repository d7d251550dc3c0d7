"""PrivBasis: the top-k frequent itemsets with noisy supports under epsilon-DP (Li et al., PVLDB 2012).

A *basis set* is a family of small itemsets (bases) such that every
frequent itemset is a subset of some basis; the supports of every subset of
a basis follow from the basis's *bin counts* (how many records hold exactly
that part of the basis). PrivBasis builds the basis set privately and then
releases noisy bin counts:

1. **lambda**, the number of frequent items, by the exponential mechanism:
   candidate ``i`` (1 .. |universe|) has quality ``-|f_(i) - theta|``, where
   ``f_(i)`` is the ``i``-th largest item count and ``theta`` the support of
   the ``ceil(eta * k)``-th most frequent itemset (0 when the data holds
   fewer itemsets);
2. the **frequent items** ``F``: ``lambda`` items chosen by the exponential
   mechanism on their counts (peeling, ``lambda`` rounds);
3. when ``lambda > max_basis``, the **frequent pairs** ``P``: ``lambda2``
   pairs of ``F`` chosen by the exponential mechanism on their counts;
4. the **basis set** from the *graph of frequent pairs* (nodes: the items of
   ``P``, edges: ``P``): its maximal cliques are the first bases, merged
   greedily, and the frequent items in no clique are added (below); when
   ``lambda <= max_basis``, ``F`` itself is the one basis;
5. **noisy bin counts**: for each basis ``B`` of ``w``, the number of records
   whose items in ``B`` are exactly ``S``, for every non-empty ``S`` of
   ``B`` (``2^|B| - 1`` bins), plus discrete Laplace noise;
6. **reconstruction**: the support of each non-empty ``T`` of a basis is the
   sum of the noisy bins of its supersets within the basis; an itemset in
   several bases gets the inverse-variance weighted mean of its estimates;
   the ``k`` highest are released with their noisy supports.

Privacy (add/remove one record). The budget splits as the paper's
``alpha1 = 0.1`` (lambda), ``alpha2 = 0.4`` (items and pairs),
``alpha3 = 0.5`` (bins), all settable. lambda's quality has sensitivity 1 (an
added record raises each order statistic ``f_(i)`` and ``theta`` by 0 or 1)
and is not monotonic: report-noisy-max at scale ``2 / (alpha1 * eps)``. Item
and pair counts have L-inf sensitivity 1 and are monotonic: noisy top-k at
scale ``lambda / eps_items`` (each of the ``lambda`` rounds spends
``eps_items / lambda``). A record lies in at most one bin of a basis (L1
sensitivity 1 per basis) but in every basis: each basis's bins get
``alpha3 * eps / w`` (sequential composition over the bases). The bases,
the reconstruction and the top-k step read only the private outputs
(post-processing). Each selection is OpenDP's (``make_noisy_max``,
``make_noisy_top_k``, max-divergence; its privacy map is checked against the
step's budget): report-noisy-max with exponential noise, i.e. permute-and-flip,
which has the exponential mechanism's guarantee for the same quality and is
never less accurate -- the one departure from the paper's exponential
mechanism (OpenDP's Gumbel form is deprecated) and each count's noise OpenDP's exact discrete Laplace, all
from OS entropy (:mod:`graphanon.algorithms.dp.noise`); ``theta`` and the
counts are computed inside the mechanism and never published. The universe is
public and given by the caller, never built from the data (a data item
outside it is refused, as in DiffPart).

Decisions where the paper leaves room (settled by reading the co-author's
Python 2 code, ``DongSuIBM/PrivBasis``; no code was taken from it):

* **Budget split**: ``alpha1, alpha2, alpha3 = 0.1, 0.4, 0.5`` and
  ``eta = 1.1`` as the authors. With ``lambda > max_basis`` the items get
  ``beta1 = alpha2 * lambda / (lambda + lambda2)`` and the pairs the rest of
  ``alpha2``, with ``lambda2 = (eta*k - lambda) / sqrt(max(1, (eta*k -
  lambda) / lambda))`` rounded up (the authors' formula). When that is below
  1 (lambda already ``>= eta * k``) no pair is selected and the items get all
  of ``alpha2`` (the authors' code would then spend a negative budget on
  pairs). Departure: the authors' code draws lambda with ``exp(0.5 * eps *
  q)``, the whole epsilon; here lambda gets ``alpha1 * eps`` as the paper's
  budget says (so the three parts add up to epsilon).
* **One basis**: when ``lambda <= max_basis`` (12, the authors' bound on a
  basis's length, ``2^12 - 1`` bins) the frequent items are the one basis
  and no pair is selected.
* **Bases from cliques**: the maximal cliques of the pair graph (networkx),
  each of at most ``L = min(largest clique, max_basis)`` items (a larger
  clique is cut into pieces of ``max_basis``); then, as the authors, two
  bases whose union has at most ``L`` items are merged, the pair with the
  largest intersection first (ties: the first pair in basis order), until no
  pair fits -- fewer bases at the same length, which lowers the paper's
  cost ``w^2 * 2^l``; the frequent items in no clique fill the bases shorter
  than ``L`` up to ``L``, in the order of their noisy selection, and the
  rest form bases of ``min(3, max_basis)`` (the authors' 3).
* **Combining estimates**: the authors average an itemset's estimates from
  several bases; here they are weighted by the inverse of their variance
  (an estimate of ``T`` from basis ``B`` sums ``2^(|B| - |T|)`` noisy bins),
  which is post-processing and never noisier. Released supports are rounded
  to 3 decimals.
* **Noise**: the authors add ``numpy`` Laplace noise to bin counts and
  sample by ``numpy.random``; here every draw is OpenDP's, exact, from OS
  entropy. ``theta``: the authors read it from a frequent-itemset file; here
  it is mined inside the mechanism (the package's level-wise engine).

Examples
--------
>>> from graphanon.data import from_iterable
>>> data = from_iterable([["a", "b"]] * 60 + [["b", "c"]] * 30 + [["c"]] * 20)
>>> rel = anonymize_privbasis(data, k=3, epsilon=2.0, universe=["a", "b", "c", "d"])
>>> rel.kind, rel.params["epsilon"], rel.fingerprint is None, rel.items
('itemsets', 2.0, True, ('a', 'b', 'c', 'd'))
>>> 1 <= len(rel) <= 3   # at most k itemsets; how many is the noise's (3 in 296 of 300 runs)
True
>>> anonymize_privbasis(data, k=3, epsilon=1.0, universe=["a", "b"])
Traceback (most recent call last):
...
graphanon.errors.ParameterError: record 61 holds item 'c', which is not in the public universe; give a universe (or taxonomy) that holds every item the data may hold -- it must not be built from the data

References
----------
N. Li, W. Qardaji, D. Su, J. Cao. *PrivBasis: frequent itemset mining with
differential privacy.* PVLDB 5(11):1340-1351, 2012: Section 3 (basis sets
and the bin counts, Algorithm 1 BasisFreq), Section 4 (constructing the
basis set privately: lambda by the exponential mechanism, the frequent items
and pairs, the bases from the cliques of the pair graph; 4.2 the basis
length), Section 5 (the budget split and eta).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from numbers import Real

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.declaration import MethodDeclaration, Parameter, Required
from graphanon.algorithms.dp.diffpart import DP_MODEL, _records_over_universe
from graphanon.algorithms.dp.noise import check_epsilon, discrete_laplace, noisy_max, noisy_top_k
from graphanon.counting.support import minimal_infrequent_itemsets
from graphanon.data import TransactionData
from graphanon.errors import ParameterError
from graphanon.release.itemsets import ItemsetRelease
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.labels import as_label
from graphanon.utils.params import Interval, validate_params
from graphanon.utils.progress import ProgressCallback, report

__all__ = ["MAX_BASIS", "PrivBasisTrace", "anonymize_privbasis"]

#: the longest basis allowed (2^12 - 1 bins; the authors' bound)
MAX_BASIS = 12
#: the authors' length of a basis made of frequent items outside every clique
_ORPHAN_BASIS = 3


@dataclass(frozen=True)
class PrivBasisTrace:
    """What PrivBasis chose on the way (in memory only, never saved; all of it DP outputs).

    Attributes
    ----------
    lam : int
        The number of frequent items chosen.
    items : tuple
        The frequent items (labels), in the order of their noisy selection.
    pairs : tuple of (label, label)
        The frequent pairs (the edges of the pair graph).
    bases : tuple of tuple
        The basis set (labels).
    """

    lam: int
    items: tuple
    pairs: tuple
    bases: tuple


def _universe(taxonomy: Taxonomy | None, universe) -> list:
    """The public universe's labels, from ``universe`` or the taxonomy's leaves (never from the data)."""
    if taxonomy is None and universe is None:
        raise ParameterError(
            "privbasis needs the public item universe: give a universe (a list of every item the data may hold) "
            "or a taxonomy (its leaves are the universe); the items observed in the data are not public"
        )
    source = universe if universe is not None else taxonomy.leaves  # type: ignore[union-attr]  # one is given
    labels = [as_label(x) for x in source]
    if len(set(labels)) != len(labels):
        raise ParameterError("the universe names an item twice")
    if not labels:
        raise ParameterError("the universe is empty")
    if universe is not None and taxonomy is not None and set(labels) != set(taxonomy.leaves):
        raise ParameterError("the universe and the taxonomy's leaves differ; give one of them")
    return labels


@validate_params({
    "k": [Interval(int, 1, None, closed="left")],
    "epsilon": [Interval(Real, 0, None, closed="neither")],
    "taxonomy": [None, Taxonomy],
    "universe": [None, "array-like"],
    "alpha1": [Interval(Real, 0, 1, closed="neither")],
    "alpha2": [Interval(Real, 0, 1, closed="neither")],
    "eta": [Interval(Real, 1, None, closed="left")],
    "max_basis": [Interval(int, 1, MAX_BASIS, closed="both")],
    "progress": [None, "callable"],
}, meanings={"epsilon": "the privacy loss of the release", "k": "the number of itemsets released"})
def anonymize_privbasis(
    data: TransactionData,
    *,
    k: int,
    epsilon: float,
    universe: Sequence[Hashable] | None = None,
    taxonomy: Taxonomy | None = None,
    alpha1: float = 0.1,
    alpha2: float = 0.4,
    eta: float = 1.1,
    max_basis: int = MAX_BASIS,
    progress: ProgressCallback | None = None,
) -> ItemsetRelease:
    """Publish the top-``k`` frequent itemsets of ``data`` with noisy supports under ``epsilon``-DP (PrivBasis).

    Parameters
    ----------
    data : TransactionData
        The records (every item must be in the universe).
    k : int
        How many itemsets to release.
    epsilon : float
        The privacy loss (> 0), for add/remove of one record.
    universe : sequence of item labels, optional
        The public item universe (every item the data may hold).
    taxonomy : Taxonomy, optional
        A public taxonomy whose leaves are the universe (used for its leaves only).
    alpha1, alpha2 : float
        The shares of ``epsilon`` for lambda and for the frequent items and
        pairs; the bins get ``1 - alpha1 - alpha2`` (the paper's 0.1, 0.4, 0.5).
    eta : float
        ``theta`` is the support of the ``ceil(eta * k)``-th most frequent
        itemset (the paper's 1.1).
    max_basis : int
        The longest basis (1 to 12; the authors' 12).
    progress : callable, optional
        ``progress(done, total, message)`` per basis.

    Returns
    -------
    ItemsetRelease
        At most ``k`` itemsets with noisy supports; no fingerprint, no link;
        ``release.trace`` (in memory) is a :class:`PrivBasisTrace`.

    Notes
    -----
    Complexity: item counts O(nnz); ``theta`` one level-wise mining at the
    support of the ``ceil(eta k)``-th item (proportional to the itemsets at
    least that frequent); pair counts one sparse product over the ``lambda``
    frequent items; the bins O(nnz + 2^l) per basis of length ``l``
    (one sparse product, one bincount, one draw, a superset-sum transform
    O(l 2^l)); the basis merging O(w^2 lambda) per merge.
    """
    eps = check_epsilon(epsilon)
    if alpha1 + alpha2 >= 1:
        raise ParameterError(f"alpha1 + alpha2 must stay below 1 (the bins get the rest), got {alpha1 + alpha2:g}")
    labels = _universe(taxonomy, universe)
    X = _records_over_universe(data, labels)
    d = len(labels)
    eps_lambda, eps_select, eps_bins = alpha1 * eps, alpha2 * eps, (1.0 - alpha1 - alpha2) * eps
    counts = np.bincount(X.indices, minlength=d).astype(np.int64)
    theta = _kth_support(X, counts, math.ceil(eta * k - 1e-9))
    lam = _choose_lambda(np.sort(counts)[::-1], theta, eps_lambda)
    pairs: list[tuple[int, int]] = []
    if lam <= max_basis:
        F = noisy_top_k(counts, lam, eps_select)
        bases = [sorted(F)]
    else:
        rest = eta * k - lam
        lam2 = math.ceil(rest / math.sqrt(max(1.0, rest / lam)) - 1e-9) if rest > 0 else 0
        n_cand = lam * (lam - 1) // 2
        lam2 = min(lam2, n_cand)
        beta1 = alpha2 * lam / (lam + lam2) if lam2 >= 1 else alpha2
        F = noisy_top_k(counts, lam, beta1 * eps)
        if lam2 >= 1:
            ii, jj, pair_counts = _pair_counts(X, F)
            chosen = noisy_top_k(pair_counts, lam2, (alpha2 - beta1) * eps)
            pairs = [(int(ii[c]), int(jj[c])) for c in chosen]
        bases = _bases(F, pairs, max_basis)
    eps_bin = _bin_budget(eps_bins, len(bases))
    found: dict[tuple[int, ...], list[float]] = {}
    Xc = sp.csc_array(X)
    for b, basis in enumerate(bases):
        report(progress, b + 1, len(bases), "PrivBasis: noisy bin counts per basis")
        _basis_estimates(Xc, basis, eps_bin, found)
    ranked = sorted(found, key=lambda t: (-found[t][0] / found[t][1], len(t), t))[:k]
    supports = [round(found[t][0] / found[t][1], 3) for t in ranked]
    S = sp.csr_array((np.ones(sum(len(t) for t in ranked), dtype=bool),
                      np.fromiter((j for t in ranked for j in t), dtype=np.int64),
                      np.concatenate([[0], np.cumsum([len(t) for t in ranked])]).astype(np.int64)),
                     shape=(len(ranked), d))
    params = {
        "epsilon": eps, "mechanism": "PrivBasis (Li et al. 2012): private selections by OpenDP's noisy max / "
        "top-k (exponential noise, permute-and-flip) and discrete Laplace bin counts (OpenDP)", "neighbouring": "add/remove one record", "k": int(k),
        "alpha1": float(alpha1), "alpha2": float(alpha2), "alpha3": round(1.0 - alpha1 - alpha2, 12),
        "eta": float(eta), "max_basis": int(max_basis),
        "universe": "given" if universe is not None else "the taxonomy's leaves",
    }
    rel = ItemsetRelease(items=labels, itemsets=S, supports=supports, algorithm="privbasis", params=params)
    rel.trace = PrivBasisTrace(lam=lam, items=tuple(labels[j] for j in F),
                               pairs=tuple((labels[a], labels[b]) for a, b in pairs),
                               bases=tuple(tuple(labels[j] for j in basis) for basis in bases))
    return rel


def _kth_support(X: sp.csr_array, counts: np.ndarray, k1: int) -> int:
    """The support of the ``k1``-th most frequent non-empty itemset (0 when fewer have support >= 1); exact, private."""
    ordered = np.sort(counts)[::-1]
    t = max(1, int(ordered[k1 - 1]) if len(ordered) >= k1 else 0)
    # every itemset with support >= t is mined; when t is the k1-th item count there are >= k1 of them
    _, levels = minimal_infrequent_itemsets(
        sp.csr_array(X, dtype=bool), t, None, what="PrivBasis's exact top itemsets (inside the mechanism)",
        advice="release fewer itemsets (a smaller k)")
    sups = np.concatenate([lv.supports for lv in levels] or [np.zeros(0, dtype=np.int64)])
    if len(sups) < k1:
        return 0
    return int(np.partition(sups, len(sups) - k1)[len(sups) - k1])


def _choose_lambda(f_sorted: np.ndarray, theta: int, eps: float) -> int:
    """The number of frequent items (1 .. len(f_sorted)) by the exponential mechanism on ``-|f_(i) - theta|``."""
    return noisy_max(-np.abs(f_sorted - theta), eps, monotonic=False) + 1


def _bin_budget(eps_bins: float, w: int) -> float:
    """The epsilon of each basis's bin counts: a record is in every basis, so they share ``eps_bins``."""
    return eps_bins / w


def _pair_counts(X: sp.csr_array, F: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of the frequent items (universe columns ``ii < jj``) and its exact support (one sparse product)."""
    cols = np.asarray(sorted(F), dtype=np.int64)
    Y = sp.csc_array(X[:, cols])
    G = (Y.T @ Y).toarray()
    a, b = np.triu_indices(len(cols), k=1)
    return cols[a], cols[b], G[a, b].astype(np.int64)


def _bases(F: list[int], pairs: list[tuple[int, int]], max_basis: int) -> list[list[int]]:
    """The basis set from the cliques of the frequent-pair graph, merged, plus the items in no clique."""
    import networkx as nx

    g = nx.Graph()
    g.add_edges_from(pairs)
    cliques = sorted((sorted(c) for c in nx.find_cliques(g)), key=lambda c: (-len(c), c))
    bases = [c[i : i + max_basis] for c in cliques for i in range(0, len(c), max_basis)]
    L = min(max((len(c) for c in cliques), default=min(_ORPHAN_BASIS, max_basis)), max_basis)
    bases = _merge(bases, L)
    covered = {j for b in bases for j in b}
    orphans = [j for j in F if j not in covered]
    pos = 0
    for b in bases:
        take = max(0, L - len(b))
        b.extend(orphans[pos : pos + take])
        pos += take
    size = min(_ORPHAN_BASIS, max_basis)
    bases += [orphans[i : i + size] for i in range(pos, len(orphans), size)]
    return [sorted(b) for b in bases]


def _merge(bases: list[list[int]], L: int) -> list[list[int]]:
    """Merge two bases whose union has at most ``L`` items, the largest intersection first, until none fits."""
    bases = [list(b) for b in bases]
    while len(bases) > 1:
        items = sorted({j for b in bases for j in b})
        col = {j: i for i, j in enumerate(items)}
        M = np.zeros((len(bases), len(items)), dtype=np.int64)
        for r, b in enumerate(bases):
            M[r, [col[j] for j in b]] = 1
        inter = M @ M.T
        size = M.sum(axis=1)
        union = size[:, None] + size[None, :] - inter
        ok = (union <= L) & np.triu(np.ones_like(inter, dtype=bool), k=1)
        if not ok.any():
            break
        score = np.where(ok, inter, -1)
        r, c = divmod(int(np.argmax(score)), len(bases))  # ties: the first pair in row-major (basis) order
        bases[r] = sorted(set(bases[r]) | set(bases[c]))
        del bases[c]
    return bases


def _basis_estimates(X: sp.csc_array, basis: list[int], eps_bin: float, found: dict) -> None:
    """Noisy bin counts of one basis, and the support estimate of each non-empty subset (weighted into ``found``).

    ``found[itemset] = [sum of weight * estimate, sum of weight]`` with weight
    ``2^-(|basis| - |itemset|)``, the inverse of the estimate's variance up to
    a common factor.
    """
    n_b = len(basis)
    cols = np.asarray(basis, dtype=np.int64)
    codes = np.asarray(X[:, cols] @ (1 << np.arange(n_b, dtype=np.int64))).ravel()
    bins = np.bincount(codes, minlength=1 << n_b)[1:].astype(np.int64)  # bin 0 (no item of the basis) is never counted
    noisy = np.zeros(1 << n_b, dtype=np.float64)
    noisy[1:] = discrete_laplace(bins, eps_bin)
    est = _superset_sums(noisy, n_b)
    masks = np.arange(1, 1 << n_b)
    sizes = np.bitwise_count(masks.astype(np.uint64)).astype(np.int64)
    weights = np.ldexp(1.0, sizes - n_b)
    for mask, value, weight in zip(masks.tolist(), est[1:].tolist(), weights.tolist()):
        key = tuple(int(cols[i]) for i in range(n_b) if mask >> i & 1)
        acc = found.setdefault(key, [0.0, 0.0])
        acc[0] += weight * value
        acc[1] += weight


def _superset_sums(values: np.ndarray, n_b: int) -> np.ndarray:
    """``out[T] = sum of values[S] over S ⊇ T`` (bit masks of ``n_b`` bits), O(n_b 2^n_b)."""
    out = values.copy()
    for j in range(n_b):
        view = out.reshape(-1, 2, 1 << j)
        view[:, 0, :] += view[:, 1, :]
    return out


def _prepare_privbasis(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    """``-a privbasis``: ``--epsilon`` is needed (``--param k`` is :attr:`required`); the universe is ``--universe`` or a typed ``--taxonomy``.

    As for DiffPart, the public item universe is ``--universe FILE`` or the
    leaves of a taxonomy the user typed (a bundled one is used when no
    ``--universe`` is given), never the items observed in the data.
    """
    if opts.epsilon is None:
        raise ParameterError("algorithm 'privbasis' needs --epsilon E (the privacy loss of the release, > 0)")
    kwargs["taxonomy"] = opts.taxonomy if opts.universe is None or opts.is_given("taxonomy") else None
    return kwargs


PRIVBASIS = MethodDeclaration(
    name="privbasis", family="dp", function=anonymize_privbasis, privacy_model=DP_MODEL,
    summary="PrivBasis: the top-k frequent itemsets with noisy supports under epsilon-DP (Li et al. 2012; needs "
            "--epsilon, --param k=K and --universe or --taxonomy)",
    params=(
        Parameter("k", int, None, "the number of itemsets to release (required), e.g. --param k=100"),
        Parameter("alpha1", float, 0.1, "share of epsilon for lambda, the number of frequent items (the paper's 0.1)"),
        Parameter("alpha2", float, 0.4, "share of epsilon for the frequent items and pairs (the paper's 0.4); "
                  "the bin counts get the rest"),
        Parameter("eta", float, 1.1, "theta is the support of the ceil(eta*k)-th most frequent itemset (the "
                  "paper's 1.1)"),
        Parameter("max_basis", int, 12, "the longest basis, 1-12 (2^l - 1 noisy bins each; the authors' 12)"),
    ),
    # a DP release states epsilon, the mechanism, its settings and the public universe -- no count of the data
    published=frozenset({"epsilon", "mechanism", "neighbouring", "k", "alpha1", "alpha2", "alpha3", "eta",
                         "max_basis", "universe"}),
    required=(Required(("k",), "k=100", "the number of itemsets to release"),),
    options=("taxonomy", "epsilon", "universe"), prepare=_prepare_privbasis,
)
