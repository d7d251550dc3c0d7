"""What each number of ``graphanon evaluate`` means: its direction, unit and one line of meaning.

``graphanon evaluate`` prints every metric with these, and ``--json`` carries
them in a ``meaning`` map beside the metrics (the metric keys themselves stay
as the CLI contract fixes them). ``docs/metrics.md`` has the definitions.
"""

from __future__ import annotations

__all__ = ["METRIC_MEANINGS", "describe_metrics"]

#: One metric a line: ``key | direction | unit | meaning`` (an indented line continues the meaning). Direction:
#: "lower" or "higher" is better, or "context" (a count or a setting of the measurement, neither good nor bad).
_TABLE = """
algorithm | context | name | the method that made the release
kind | context | name | the release kind (global_recoding, local_recoding, nonreciprocal, perturbed, synthetic,
    itemsets)
records | context | records | published records (an itemset release: its itemsets)
ncp | lower | fraction in [0, 1] | information lost per original occurrence: the share of the data's items its
    published item stands for (1 when suppressed)
ncp_taxonomy | lower | fraction in [0, 1] | as ncp, counting the taxonomy's leaves (the hierarchy papers'
    convention)
ncp_he_naughton | lower | fraction in [0, 1] | He & Naughton's NCP: leaves/M per generalized occurrence
generalization_cost | lower | occurrences x LM | loss from generalization, summed over occurrences
suppression_cost | lower | occurrences | occurrences suppressed (each costs 1)
suppression_ratio | lower | fraction in [0, 1] | suppressed occurrences / original occurrences
suppressed_items | lower | items | original items no record publishes
published_items | context | items | distinct items the release publishes
avg_relative_error | lower | ratio (0 = exact) | mean |estimated - true| / true count over the COUNT-query workload
queries | context | queries | COUNT queries in the workload
q | context | items | items per query (include, exclude for nonreciprocal releases)
seed | context | seed | the workload's seed (the same for every method compared)
ul | lower | COAT utility loss | COAT's utility loss (generalization and suppression)
log_ul | lower | natural log | log of ul (ul spans many orders of magnitude)
log_ul_generalization | lower | natural log | log of the generalization part of ul
ul_suppression | lower | COAT utility loss | the suppression part of ul
error_rate | lower | per item of the record | ER: mean Hamming distance of a record to its published base, over its
    length
query_error | lower | per record | QE: mean of the type I and type II query errors
query_error_type1 | lower | per record | mean |true - answered| / n of COUNT queries asking for all items present
query_error_type2 | lower | per record | mean |true - answered| / n of COUNT queries asking for all items absent
dif | lower | ratio (0 = same frequencies) | Dif: sum of item-frequency differences / original occurrences
fi_support | context | fraction | minimum support of the frequent itemsets compared
fi_original | context | itemsets | frequent itemsets of the data
fi_released | context | itemsets | frequent itemsets of the release
fi_similarity | higher | fraction in [0, 1] | Jaccard similarity of the two frequent-itemset sets
epsilon | context | privacy loss | the epsilon of a differentially private release
released_records | context | rows | rows of a synthetic (DP) dataset (a noisy number)
released_itemsets | context | itemsets | itemsets of a top-k list with noisy supports
topk_k | context | itemsets | the k of the released top-k itemset list
topk_released | context | itemsets | itemsets the top-k list releases
topk_true | context | itemsets | the data's true top-k itemsets (ties at the k-th support included)
topk_common | higher | itemsets | released itemsets that are in the true top-k
topk_precision | higher | fraction in [0, 1] | released itemsets in the true top-k / released itemsets
topk_recall | higher | fraction in [0, 1] | released itemsets in the true top-k / k
topk_f | higher | fraction in [0, 1] | harmonic mean of top-k precision and recall
support_relative_error | lower | ratio (0 = exact) | median |noisy - true| / max(true, 1) over the released
    itemsets' supports
support_relative_error_mean | lower | ratio (0 = exact) | mean |noisy - true| / max(true, 1) over the released
    itemsets' supports
groups | context | groups | groups of equal published records
reading | context | name | how a group's published items are read (one or some)
ggd | lower | occurrences x LM | total generalization distance (GGD) over the groups
ril | lower | fraction in [0, 1] | relational loss the rt method reached (mean NCP over records and QIs)
rt_gcp | lower | fraction in [0, 1] | GCP: mean NCP of the published quasi-identifier values (0 = exact, 1 = all
    suppressed)
rt_query_error | lower | ratio (0 = exact) | mean |estimated - true| / max(true, 1) of COUNT queries combining
    ranges on 2 quasi-identifiers with items
"""


def _parse(table: str) -> dict[str, tuple[str, str, str]]:
    """``key -> (direction, unit, meaning)`` from :data:`_TABLE`'s lines."""
    lines: list[str] = []
    for line in table.strip().splitlines():
        if line.startswith(" ") and lines:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    out = {}
    for line in lines:
        key, direction, unit, meaning = (part.strip() for part in line.split(" | ", 3))
        if direction not in ("lower", "higher", "context"):
            raise ValueError(f"metric {key!r}: direction must be lower, higher or context, got {direction!r}")
        out[key] = (direction, unit, meaning)
    return out


#: key -> (direction, unit, meaning), as :data:`_TABLE` states them.
METRIC_MEANINGS: dict[str, tuple[str, str, str]] = _parse(_TABLE)


def describe_metrics(keys) -> dict[str, dict[str, str]]:
    """The ``meaning`` map of ``graphanon evaluate --json``: direction, unit and meaning of each known key.

    Parameters
    ----------
    keys : iterable of str
        The keys of :func:`graphanon.metrics.evaluate.evaluate_release`'s result.

    Returns
    -------
    dict
        ``key -> {"direction": "lower"|"higher"|"context", "unit": ..., "meaning": ...}``
        for every key this module knows (others are left out).

    Examples
    --------
    >>> describe_metrics(["ncp"])["ncp"]["direction"]
    'lower'
    """
    out = {}
    for key in keys:
        if key in METRIC_MEANINGS:
            direction, unit, meaning = METRIC_MEANINGS[key]
            out[key] = {"direction": direction, "unit": unit, "meaning": meaning}
    return out
