"""Releases: what an anonymizer publishes.

Every release kind implements the :class:`~graphanon.release.base.Release`
protocol: save/load (``graphanon-release/3``, JSON or JSON.gz), text
rendering by pseudonym, COUNT-query estimation over its possible worlds, and
a match graph against the original data. Anonymizers end with
:func:`publish`: rows shuffled by a secret permutation, a keyed fingerprint
of the data (:func:`check_same_data`), and a private :class:`ReleaseLink`
that is never saved with the release (``docs/privacy.md``).

Kinds
-----
GlobalRecoding
    Every original item maps to one published item (a taxonomy node or a set
    of items) or is suppressed.
LocalRecoding
    Each record a multiset of taxonomy nodes; equal records form groups
    (Clump, Partition).
NonreciprocalRelease
    Bit-voting records (base, distance, threshold, label).
PerturbedRelease
    Plain transactions after items were swapped, removed or split (tendency hiding).
RelationalRelease
    Relational-transaction data: generalized QI values beside published items
    ((k, k^m)-anonymity, ``docs/relational.md``).
SyntheticRelease
    A synthetic dataset drawn by a differentially private mechanism (DiffPart):
    no fingerprint, no link, no exact count (``docs/dp.md``).
ItemsetRelease
    The top-k frequent itemsets with noisy supports from a differentially
    private mechanism (PrivBasis): no rows for records, no exact count.

Any kind is written as a plain table for recipients without graphanon, with a
codebook, by :func:`export_release` (``docs/export.md``).
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.release.base": ("FORMAT_TAG", "PUBLISHED_PARAMS", "Release", "check_published_params", "load_release",
                               "release_kinds"),
    "graphanon.release.export": ("codebook_columns", "codebook_html", "codebook_markdown", "export_columns",
                                 "export_release"),
    "graphanon.release.fingerprint": ("check_same_data", "data_fingerprint"),
    "graphanon.release.global_recoding": ("GlobalRecoding", "PublishedItem"),
    "graphanon.release.link": ("LINK_FORMAT_TAG", "ReleaseLink", "load_link"),
    "graphanon.release.relational": ("RelationalRelease",),
    "graphanon.release.local_recoding": ("LocalRecoding", "PublishedNode"),
    "graphanon.release.nonreciprocal": ("NonreciprocalRelease",),
    "graphanon.release.perturbed": ("PerturbedRelease", "SplitLink", "load_split_link"),
    "graphanon.release.publish": ("publish",),
    "graphanon.release.synthetic": ("SyntheticRelease",),
    "graphanon.release.ledger": ("Accounting", "BudgetLedger", "LEDGER_FORMAT_TAG", "data_identity", "is_dp_release",
                                 "release_digest"),
    "graphanon.release.itemsets": ("ItemsetRelease",),
})
