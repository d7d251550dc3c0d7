"""Privacy models and their independent audits.

Each model's ``audit(original, release)`` returns an
:class:`~graphanon.privacy.report.AuditReport`: satisfied or not, the number
of violations, the worst case and concrete counter-examples. Audits share no
code with the anonymizers besides support counting.
"""

from graphanon.privacy.constraints import (
    PrivacyConstraints,
    UtilityConstraints,
    check_utility_constraints,
)
from graphanon.privacy.hkp import HKPCoherence
from graphanon.privacy.km import KmAnonymity, TransactionalKAnonymity, check_k
from graphanon.privacy.report import AuditReport, PrivacyModel

__all__ = [
    "AuditReport",
    "HKPCoherence",
    "KmAnonymity",
    "PrivacyConstraints",
    "PrivacyModel",
    "UtilityConstraints",
    "check_utility_constraints",
    "TransactionalKAnonymity",
    "check_k",
]
from graphanon.privacy.nonreciprocal import (  # noqa: E402
    LDiversity,
    NonreciprocalKAnonymity,
    nonreciprocal_matches,
)

__all__ += ["LDiversity", "NonreciprocalKAnonymity", "nonreciprocal_matches"]
from graphanon.privacy.tendency import TendencyHiding  # noqa: E402

__all__ += ["TendencyHiding"]
