"""Privacy models and their independent audits.

Each model's ``audit(original, release)`` returns an
:class:`~graphanon.privacy.report.AuditReport`: satisfied or not, the number
of violations, the worst case and concrete counter-examples. Audits share no
code with the anonymizers besides support counting.

A differentially private release cannot be audited from its output; its
guarantee is *tested*: :func:`empirical_epsilon` gives a lower bound on a
mechanism's epsilon from neighbouring datasets (``docs/dp.md``).
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.privacy.achieved": ("AchievedReport", "achieved_privacy"),
    "graphanon.privacy.constraints": (
        "PrivacyConstraints", "UtilityConstraints", "check_utility_constraints",
    ),
    "graphanon.privacy.dp_empirical": ("EmpiricalDPResult", "clopper_pearson", "empirical_epsilon"),
    "graphanon.privacy.diversity": ("EntropyLDiversity", "RecursiveLDiversity", "diversity_model"),
    "graphanon.privacy.hkp": ("HKPCoherence",),
    "graphanon.privacy.joint": ("JointAudit", "audit_joint"),
    "graphanon.privacy.km": ("KmAnonymity", "TransactionalKAnonymity", "check_k"),
    "graphanon.privacy.report": ("AuditReport", "PrivacyModel"),
    "graphanon.privacy.rt": ("RTAnonymity", "audit_rt", "audit_rt_release", "rt_recoding_mismatches"),
    "graphanon.privacy.nonreciprocal": ("LDiversity", "NonreciprocalKAnonymity", "nonreciprocal_matches"),
    "graphanon.privacy.tendency": ("TendencyHiding",),
})
