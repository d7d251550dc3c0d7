"""Attacks as tests: the adversaries that matter for a published release.

Each attack plays an adversary against a release, scores its guesses
against the truth (the original data and the private link
``release.link.row_of_record``, passed explicitly), and returns an
:class:`AttackResult`: the success rate next to the bound the privacy model
promises, with a one-sided sampling margin.

===================== ========================================== ==================
attack                adversary knows                            bound
===================== ========================================== ==================
:func:`row_linkage`   target's record; takes the row at its       1/k (nonreciprocal),
                      input position or bearing its id            else mean 1/|cands|
:func:`label_inference` target's record; infers its label from    1/l, or the honest
                      its row or its candidates' labels           baseline
:func:`m_item_linkage`  m items of the target (k^m model)         1/k
:func:`rt_linkage`    target's demographics (QI values) and m      1/k
                      of its items ((k, k^m) model)
:func:`seed_recovery` the seed (or a seed range), the method      1/k
                      and the data
:func:`known_label_attack` the seed, the data, N (person, label)  1/k; labels: 1/l
                      pairs; re-runs the method, keeps the       or the link-free
                      consistent assignments (else the match     reference
                      graph pruned to feasible edges)
:func:`same_seed_attack` the seed, the data, two releases made    1/k; labels: as
                      with it; keeps assignment pairs            above
                      consistent on every record
:func:`partner_tendency` one original record; reads what its     most common partner
                      row received (swapping releases)            tendency (baseline)
:func:`known_label_linkage` target's record and label; keeps the  1/k (not promised)
                      candidates carrying the label
:func:`leaf_naming`   the public taxonomy and another sample's     the same ranking
                      code frequencies; names the codes the file   without the release
                      leaves open (suppressed ones)
:func:`ranking_label_inference` target's record; ranks its        1/l, or the honest
                      candidates by a score of the published     baseline
                      rows and its items, reads the top label
:func:`lost_items_attack` known records; flags a row equal to one   share of the known
                      minus its heaviest category, no gift       records that lost
                      (swapping releases)                        items (base rate)
:func:`completion_attack` every record but the target's and the    what the rows
                      file; tests guesses of the missing record  alone allow
                      against the data fingerprint and counts
:func:`group_skip_attack` every record's items and the public      1/l
                      order; reads labels from the groups formed
                      earlier that skipped the target (label
                      groups, CAHD); heuristic or exact posterior
:func:`holdout_label_inference` the population's content-label     the same vote on
                      tendency; majority label of a member's      non-members (k
                      candidates against a non-member's k         nearest rows)
                      nearest rows
:func:`label_majority_check` as :func:`label_inference`, on a     1/l
                      release that promises l (``anonymize``'s
                      warning, the study's label columns)
===================== ========================================== ==================

Candidates are the published rows an adversary cannot rule out
(:func:`candidate_sets`); see ``docs/attacks.md``.

Examples
--------
>>> import numpy as np
>>> from graphanon.data import from_iterable
>>> from graphanon.release import GlobalRecoding
>>> from graphanon.release.publish import publish
>>> data = from_iterable([["a"], ["b"]] * 20)
>>> recode = {"a": "(a,b)", "b": "(a,b)"}
>>> aligned = GlobalRecoding.from_mapping(data, recode)     # row i is record i's
>>> row_linkage(data, aligned, truth=np.arange(40), k=2).within_bound()
False
>>> rel = publish(data, GlobalRecoding.from_mapping(data, recode), unsafe_secret_seed=0)
>>> res = row_linkage(data, rel, truth=rel.link, k=2)       # shuffled: position says nothing
>>> print(res)  # doctest: +NORMALIZE_WHITESPACE
row-linkage/position: success 0.0500 vs bound 0.5000 (1/k) + margin 0.2850,
    baseline 0.0250 (random candidate) over 40 targets: within bound
"""

from graphanon.attacks.candidates import CandidateSets, candidate_sets, row_signatures
from graphanon.attacks.completion import (
    CompletionTarget,
    completion_attack,
    completion_count,
    completion_guesses,
    file_oracle,
)
from graphanon.attacks.group_skips import group_skip_attack
from graphanon.attacks.holdout import holdout_label_inference
from graphanon.attacks.itemlink import known_items, m_item_linkage
from graphanon.attacks.known_labels import feasible_edges, known_label_attack, same_seed_attack
from graphanon.attacks.label_linkage import known_label_linkage
from graphanon.attacks.label_majority import label_majority_check
from graphanon.attacks.labels import label_inference
from graphanon.attacks.leafnames import leaf_naming
from graphanon.attacks.linkage import guess_rows, row_linkage
from graphanon.attacks.ranking import ranking_label_inference
from graphanon.attacks.result import AttackResult, chernoff_margin
from graphanon.attacks.rtlink import rt_candidates, rt_linkage
from graphanon.attacks.seed import seed_recovery
from graphanon.attacks.suppression import lost_items_attack, lost_records
from graphanon.attacks.tendency import partner_tendency

__all__ = [
    "AttackResult",
    "CandidateSets",
    "CompletionTarget",
    "candidate_sets",
    "chernoff_margin",
    "completion_attack",
    "completion_count",
    "completion_guesses",
    "feasible_edges",
    "file_oracle",
    "group_skip_attack",
    "guess_rows",
    "holdout_label_inference",
    "known_items",
    "known_label_attack",
    "known_label_linkage",
    "label_inference",
    "label_majority_check",
    "leaf_naming",
    "lost_items_attack",
    "lost_records",
    "m_item_linkage",
    "partner_tendency",
    "ranking_label_inference",
    "row_linkage",
    "row_signatures",
    "rt_candidates",
    "rt_linkage",
    "same_seed_attack",
    "seed_recovery",
]
