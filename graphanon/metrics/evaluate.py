"""One call that measures every metric that applies to a release.

``graphanon evaluate`` prints what :func:`evaluate_release` returns. Each
release kind has an evaluator; methods with their own metrics register theirs
with :func:`register_evaluator`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from graphanon.errors import ParameterError
from graphanon.metrics.clustering import ggd_total, local_ncp, ncp_he_naughton, ncp_lm
from graphanon.metrics.itemsets import itemset_metrics, top_k_metrics
from graphanon.metrics.loss import ncp_taxonomy, recoding_loss
from graphanon.metrics.nonreciprocal import evaluate_nonreciprocal
from graphanon.metrics.queries import average_relative_error, generate_workload
from graphanon.metrics.utility_loss import ul_metrics
from graphanon.release.fingerprint import check_same_data
from graphanon.release.private_link import attach_link
from graphanon.utils.randomness import seed_of

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["evaluate_release", "register_evaluator"]

Evaluator = Callable[..., dict]
_EVALUATORS: dict[str, list[Evaluator]] = {}


def register_evaluator(kind: str, evaluator: Evaluator) -> None:
    """Add ``evaluator(original, release, *, queries, q, rng, link) -> dict`` for releases of ``kind``.

    ``link`` is the private :class:`~graphanon.release.ReleaseLink` given to
    :func:`evaluate_release` (or None); evaluators of metrics that need each
    record's true row use it, or ``release.link``, and leave those metrics
    out when neither exists.
    """
    _EVALUATORS.setdefault(kind, []).append(evaluator)


def _evaluate_global(original, release, *, queries: int, q: int, rng, link=None) -> dict:
    loss = recoding_loss(original, release)
    out = {
        "ncp": loss.ncp,
        "ncp_taxonomy": ncp_taxonomy(original, release),
        "generalization_cost": loss.generalization,
        "suppression_cost": loss.suppression,
        "suppression_ratio": loss.suppression / loss.occurrences if loss.occurrences else 0.0,
        "suppressed_items": len(release.suppressed_items(original)),
        "published_items": release.n_published_items,
    }
    if queries > 0:
        workload = generate_workload(original, queries, q, rng=rng)
        out["avg_relative_error"] = average_relative_error(release, workload)
        out.update({"queries": queries, "q": q, "seed": seed_of(rng)})
    return out


def _evaluate_utility_loss(original, release, *, queries: int, q: int, rng, link=None) -> dict:
    return ul_metrics(original, release)


def _evaluate_nonreciprocal(original, release, *, queries: int, q: int, rng, link=None) -> dict:
    return evaluate_nonreciprocal(original, release, queries=queries, q=q, rng=rng, link=link)


def _evaluate_perturbed(original, release, *, queries: int, q: int, rng, link=None) -> dict:
    m = itemset_metrics(original, release, supports=(0.005,))
    fi = m["fi"][0]
    out = {"dif": m["dif"], "fi_support": fi["support"], "fi_original": fi["original"],
           "fi_released": fi["released"], "fi_similarity": fi["similarity"]}
    if queries > 0:
        workload = generate_workload(original, queries, q, rng=rng)
        out["avg_relative_error"] = average_relative_error(release, workload)
        out.update({"queries": queries, "q": q, "seed": seed_of(rng)})
    return out


def _evaluate_synthetic(original, release, *, queries: int, q: int, rng, link=None) -> dict:
    # a synthetic (DP) release: the same COUNT queries and frequent itemsets, answered by its rows as they are
    out = _evaluate_perturbed(original, release, queries=queries, q=q, rng=rng)
    out.update(epsilon=release.params.get("epsilon"), released_records=release.n_records)
    return out


def _evaluate_itemsets(original, release, *, queries: int, q: int, rng, link=None) -> dict:
    # a top-k list with noisy supports (PrivBasis): no rows answer COUNT queries; its own utility measures
    out = top_k_metrics(original, release)
    out.update(epsilon=release.params.get("epsilon"), released_itemsets=release.n_records)
    return out


def _evaluate_local(original, release, *, queries: int, q: int, rng, link=None) -> dict:
    if link is not None and release.link is None:
        release.link = link
    out: dict = {"groups": int(release.group_ids().max()) + 1 if release.n_records else 0, "reading": release.reading}
    try:
        out.update(
            ncp=ncp_lm(original, release),
            ncp_taxonomy=local_ncp(original, release, "taxonomy"),
            ncp_he_naughton=ncp_he_naughton(original, release),
        )
        if release.reading == "one":
            out["ggd"] = ggd_total(original, release)
    except ParameterError:
        out["needs_link"] = ["ncp", "ncp_taxonomy", "ncp_he_naughton"]
    if queries > 0:
        workload = generate_workload(original, queries, q, rng=rng)
        out["avg_relative_error"] = average_relative_error(release, workload)
        out.update({"queries": queries, "q": q, "seed": seed_of(rng)})
    return out


def _evaluate_relational(original, release, *, queries: int, q: int, rng, link=None) -> dict:
    # the item side of a relational-transaction release (COUNT queries on items); the relational side's
    # loss is the release's own ``ril`` (mean NCP of the published QI values)
    out: dict = {"groups": len(release.groups()), "published_items": len(release.published_items),
                 "ril": release.params.get("ril")}
    if queries > 0:
        workload = generate_workload(original, queries, q, rng=rng)
        out["avg_relative_error"] = average_relative_error(release, workload)
        out.update({"queries": queries, "q": q, "seed": seed_of(rng)})
    return out


register_evaluator("global_recoding", _evaluate_global)
register_evaluator("global_recoding", _evaluate_utility_loss)
register_evaluator("nonreciprocal", _evaluate_nonreciprocal)
register_evaluator("perturbed", _evaluate_perturbed)
register_evaluator("local_recoding", _evaluate_local)
register_evaluator("synthetic", _evaluate_synthetic)
register_evaluator("itemsets", _evaluate_itemsets)
register_evaluator("relational", _evaluate_relational)


def evaluate_release(
    original: TransactionData,
    release,
    *,
    queries: int = 1000,
    q: int = 2,
    rng=0,
    link=None,
    allow_mismatch: bool = False,
) -> dict:
    """Every registered metric for ``release`` measured against ``original``.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from.
    release : Release
        The published release.
    queries, q : int
        COUNT-query workload: number of queries (0 skips query metrics), items
        per query.
    rng : None, int or numpy.random.Generator, default 0
        The workload's randomness (the same seed gives the same workload for every method;
        recorded as ``seed``).
    link : ReleaseLink or SplitLink, optional
        The private link (default ``release.link``; read a file of either kind
        with :func:`graphanon.release.private_link.load_private_link`), for
        metrics that compare each record with its own published row
        (nonreciprocal ``error_rate``, local-recoding NCPs); without one those
        metrics are left out and ``needs_link`` lists them. A given link is
        checked against the release (:func:`~graphanon.release.private_link.attach_link`)
        and set as ``release.link``.
    allow_mismatch : bool
        Skip :func:`~graphanon.release.check_same_data` (which otherwise
        raises :class:`~graphanon.errors.DataMismatchError` when the release
        was not made from ``original``; it verifies with the key in the
        release's private link -- ``link`` or ``release.link`` -- and, with
        none, cannot verify, so the metrics are computed unchecked).

    Returns
    -------
    dict
        Metric name -> value; keys follow the CLI contract (``ncp``, and
        ``ncp_taxonomy`` for global recodings, see ``docs/metrics.md``;
        ``suppression_ratio``, ``avg_relative_error`` with ``queries``, ``q``,
        ``seed``, ``ul``, ``error_rate``, ``query_error``) where defined.

    Raises
    ------
    DataMismatchError
        When the release's data fingerprint does not match ``original``, or
        ``link`` was not made with the release.

    See Also
    --------
    graphanon.metrics.ncp : Information loss of a recoding.
    graphanon.metrics.average_relative_error : COUNT-query error.
    graphanon.metrics.evaluate_nonreciprocal : The metrics of a nonreciprocal release.
    graphanon.privacy.KmAnonymity : An audit: the privacy side of the same release.
    """
    if link is not None:
        attach_link(release, link)
    if not allow_mismatch:
        check_same_data(original, release)
    # a split release has more rows than records; a synthetic (DP) one a noisy number of rows; an itemset
    # release's rows are itemsets
    if (original.n_records != release.n_records and getattr(release, "moves", None) != "split"
            and release.kind not in ("synthetic", "itemsets")):
        raise ParameterError(
            f"the release has {release.n_records} records but the data {original.n_records}; "
            f"evaluate a release against the data it was made from"
        )
    evaluators = _EVALUATORS.get(release.kind)
    if not evaluators:
        raise ParameterError(f"no metrics are defined for releases of kind {release.kind!r}")
    out: dict = {"algorithm": release.algorithm, "kind": release.kind, "records": release.n_records}
    for evaluator in evaluators:
        out.update(evaluator(original, release, queries=queries, q=q, rng=rng, link=link))
    return out
