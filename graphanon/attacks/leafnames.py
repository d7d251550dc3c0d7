"""The leaf-naming attack: name the codes a global recoding suppressed, with the public taxonomy.

A global recoding over a taxonomy publishes its items as taxonomy nodes
with the leaves of each node that occur in the data (``members``). Whoever
holds the public taxonomy lists the leaves the file does not name: the
suppressed codes, plus the taxonomy's leaves absent from the data. An
adversary with an estimate of each code's frequency in the population
(another sample: last year's data, a neighbouring hospital) ranks those
leaves by it -- a suppressed code occurs in the population, an absent one
mostly does not -- and names the top ``N`` (``N`` is in the file:
``n_suppressed``).

The bound is **the same adversary without the release**: the same ranking
over every leaf of the taxonomy. A release hides what it suppressed when
its adversary names no more of the suppressed codes than that.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping

import numpy as np

from graphanon.attacks.result import AttackResult, chernoff_margin
from graphanon.errors import ParameterError

__all__ = ["leaf_naming", "named_hits", "release_candidates"]

_SCORES = ("frequency", "rarity")


def _leaf_counts(external, leaves: list) -> np.ndarray:
    """Count of every leaf in the adversary's external sample (a TransactionData or a mapping)."""
    if isinstance(external, Mapping):
        return np.array([float(external.get(x, 0)) for x in leaves])
    if hasattr(external, "supports") and hasattr(external, "items"):
        sup = dict(zip(external.items, np.asarray(external.supports()).tolist(), strict=True))
        return np.array([float(sup.get(x, 0)) for x in leaves])
    raise ParameterError(
        f"external must be a TransactionData (another sample) or a mapping code -> count, got {type(external).__name__}"
    )


def _scores(score, counts: np.ndarray) -> np.ndarray:
    if callable(score):
        out = np.asarray(score(counts), dtype=float)
        if out.shape != counts.shape:
            raise ParameterError(f"score returned shape {out.shape} for {counts.shape} leaves")
        return out
    if score == "frequency":  # common in the population first
        return counts.astype(float)
    if score == "rarity":  # seen in the population, rarest first; unseen last
        return np.where(counts > 0, -counts, -np.inf)
    raise ParameterError(f"score must be one of {_SCORES} or a callable, got {score!r}")


def release_candidates(release, taxonomy, strategy: str = "open") -> np.ndarray:
    """Which leaves of ``taxonomy`` the file leaves open as "present in the data and hidden".

    Read from the file only: the published items (taxonomy nodes and their
    ``members``), ``n_suppressed`` and the ``public_taxonomy`` parameter.

    * A file that lists each node's members present in the data (the
      default): every listed member is published, hence not hidden; every
      other leaf is absent or suppressed -- the candidates. When the file
      says nothing was suppressed (``n_suppressed == 0``), there are none.
      MM and COAT files read the same way with the item list as a flat
      taxonomy.
    * A ``public_taxonomy`` file lists every leaf of a node and suppresses
      nothing: the leaves under a published node may be present (and are
      then published, generalized); the others are absent. The candidates
      are the leaves under published nodes.

    ``strategy="pooled"`` adds what the shape of the file says: the leaves
    of every published item that is a union of several taxonomy nodes (an
    item such as ``(C02,C11)``, which a generalization makes only of rare
    regions) and, for a ``public_taxonomy`` file, keeps only those.

    Parameters
    ----------
    release : GlobalRecoding
    taxonomy : Taxonomy
        The public taxonomy.
    strategy : {"open", "pooled"}

    Returns
    -------
    ndarray of bool
        One per leaf of ``taxonomy.leaves``.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> from graphanon.algorithms import anonymize_cut
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = anonymize_cut(data, taxonomy=tax, cut=["P", "f", "g", "M", "e", "i"], suppress=["i"])
    >>> [x for x, c in zip(tax.leaves, release_candidates(rel, tax)) if c]
    ['i']
    """
    if strategy not in ("open", "pooled"):
        raise ParameterError(f"strategy must be 'open' or 'pooled', got {strategy!r}")
    leaves = list(taxonomy.leaves)
    nodes = set(taxonomy.nodes)
    listed = {str(m) for pi in release.published_items for m in pi.members}
    pooled = {str(m) for pi in release.published_items if pi.label not in nodes for m in pi.members}
    in_file = np.array([str(x) in listed for x in leaves])
    in_pool = np.array([str(x) in pooled for x in leaves])
    if (release.params or {}).get("public_taxonomy"):
        return in_pool if strategy == "pooled" else in_file
    # a file that does not say how many it suppressed (n_suppressed None) leaves every unlisted leaf open
    open_ = ~in_file if release.n_suppressed != 0 else np.zeros(len(leaves), dtype=bool)
    return open_ | in_pool if strategy == "pooled" else open_


def named_hits(scores: np.ndarray, allowed: np.ndarray, truth: np.ndarray, n: int) -> float:
    """Expected total ``truth`` weight of the ``n`` best-scored ``allowed`` leaves.

    ``truth`` is a boolean (a count of hits) or a weight per leaf (for
    example occurrences). Ties at the cut-off are broken uniformly at
    random, counted exactly in expectation (no draw); leaves scored NaN are
    never named. Fewer than ``n`` allowed leaves: all are named.

    Examples
    --------
    >>> import numpy as np
    >>> named_hits(np.array([3., 2., 2., 1.]), np.ones(4, bool), np.array([0, 1, 0, 0], bool), 2)   # one of two tied
    0.5
    """
    truth = np.asarray(truth, dtype=float)
    s = np.where(allowed, scores, np.nan)
    idx = np.flatnonzero(allowed & ~np.isnan(s))
    if n <= 0 or not len(idx):
        return 0.0
    if len(idx) <= n:
        return float(truth[idx].sum())
    vals = s[idx]
    order = np.argsort(-vals, kind="stable")
    cutoff = vals[order[n - 1]]
    above = idx[vals > cutoff]
    tied = idx[vals == cutoff]
    slots = n - len(above)
    return float(truth[above].sum() + slots * truth[tied].sum() / len(tied))


def leaf_naming(
    release,
    taxonomy,
    external,
    *,
    truth: Iterable[Hashable],
    n: int | None = None,
    score: str | Callable = "frequency",
    strategy: str = "open",
    original=None,
    confidence: float = 0.999,
) -> AttackResult:
    """Name ``n`` suppressed codes from the public taxonomy and an external frequency estimate.

    Parameters
    ----------
    release : GlobalRecoding
        The release (read as its file reads: published items, their
        members, ``n_suppressed``, the parameters).
    taxonomy : Taxonomy
        The public taxonomy (it may hold codes absent from the data).
    external : TransactionData or mapping
        The adversary's other sample of the population (or code -> count).
    truth : iterable of leaves
        The codes to be named, for scoring: the suppressed items
        (``release.suppressed``), or any set of codes at risk (for example
        those another release of the same data suppressed).
    n : int, optional
        How many codes the adversary names; default the file's
        ``n_suppressed`` when positive, else ``len(truth)``.
    score : "frequency", "rarity" or callable
        How leaves are ranked from their external counts: ``"frequency"``
        (most common first), ``"rarity"`` (seen in the external sample,
        least common first), or ``f(counts) -> scores`` (higher first).
    strategy : {"open", "pooled"}
        Which leaves the adversary ranks (:func:`release_candidates`):
        those the file leaves open, or also those of pooled items.
    original : TransactionData, optional
        The data, to count the occurrences the named codes held.
    confidence : float
        Of the sampling margin (over the ``n`` names).

    Returns
    -------
    AttackResult
        ``success``: expected fraction of the ``n`` names that are in
        ``truth`` with the release; ``bound``: the same ranking over every
        leaf of the taxonomy, without the release. ``details``: ``named``
        and ``named_without_release`` (expected counts), ``n``, ``truth``,
        ``candidates`` (leaves the file leaves open), ``empty_rows``
        (published rows with no item: records whose every code was
        suppressed, when the data has no empty record) and, with
        ``original``, ``occurrences_named`` / ``occurrences_named_without_release``
        of ``truth_occurrences``.

    Notes
    -----
    Complexity: O(taxonomy leaves x log + published members).

    The bound is the adversary's knowledge without the release: what a
    frequency guess over the whole taxonomy names. With a single draw per
    code, the margin is taken over the ``n`` names.

    References
    ----------
    Liu, Wang. Anonymizing transaction data by integrating suppression and
    generalization. PAKDD 2010, Sec. 2 (suppression scenario over a cut).
    Terrovitis, Mamoulis, Kalnis. PVLDB 2008, Sec. 2 (public taxonomy, full-subtree recoding).

    Examples
    --------
    >>> from graphanon.datasets.synthetic import icd9_like
    >>> from graphanon.algorithms import anonymize_hghs
    >>> data, external, tax = icd9_like(1000, rng=3)
    >>> rel = anonymize_hghs(data, taxonomy=tax, k=5, m=2)
    >>> res = leaf_naming(rel, tax, external, truth=rel.suppressed)
    >>> res.success > res.bound
    True
    """
    leaves = list(taxonomy.leaves)
    truth_set = {str(x) for x in truth}
    is_truth = np.array([str(x) in truth_set for x in leaves])
    unknown = truth_set - {str(x) for x in leaves}
    if unknown:
        raise ParameterError(f"{len(unknown)} code(s) of truth are not leaves of the taxonomy, e.g. {sorted(unknown)[:3]}")
    if n is None:
        n = int(release.n_suppressed) if release.n_suppressed else len(truth_set)
    n = int(n)
    counts = _leaf_counts(external, leaves)
    s = _scores(score, counts)
    allowed = release_candidates(release, taxonomy, strategy)
    with_release = named_hits(s, allowed, is_truth, n)
    without = named_hits(s, np.ones(len(leaves), dtype=bool), is_truth, n)
    success = with_release / n if n else 0.0
    bound = without / n if n else 0.0
    rec = release.records
    details = {
        "score": score if isinstance(score, str) else getattr(score, "__name__", "callable"),
        "strategy": strategy,
        "n": n,
        "truth": len(truth_set),
        "leaves": len(leaves),
        "candidates": int(allowed.sum()),
        "named": round(with_release, 4),
        "named_without_release": round(without, 4),
        "empty_rows": int((np.diff(rec.indptr) == 0).sum()),
    }
    if original is not None:
        occ = _leaf_counts(original, leaves)
        details["truth_occurrences"] = int(occ[is_truth].sum())
        weight = np.where(is_truth, occ, 0.0)
        details["occurrences_named"] = round(named_hits(s, allowed, weight, n), 4)
        details["occurrences_named_without_release"] = round(named_hits(s, np.ones(len(leaves), bool), weight, n), 4)
    name = f"leaf-naming/{strategy}/{details['score']}"
    return AttackResult(
        attack=name,
        success=float(success),
        bound=float(bound),
        bound_kind="baseline: the same ranking without the release",
        n_targets=n,
        margin=chernoff_margin(n, float(bound), confidence),
        confidence=confidence,
        details=details,
    )

