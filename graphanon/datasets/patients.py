"""Seeded synthetic patients: ICD-9-shaped diagnosis codes, and demographics for relational-transaction data.

:func:`icd9_like` draws two samples of one population of patients over an
ICD-9-shaped code tree with skewed code frequencies (most leaves absent
from a sample): the data and the "external" sample an adversary holds
(see :func:`graphanon.attacks.leaf_naming`). :func:`patients_with_demographics`
adds five quasi-identifiers with their hierarchies (relational-transaction
data, :mod:`graphanon.relational`); :func:`write_patients_files` writes them as
the files the command line reads. The Quest generator:
:mod:`graphanon.datasets.synthetic`.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from graphanon.data import TransactionData
from graphanon.errors import ParameterError
from graphanon.readwrite.files import atomic_write
from graphanon.readwrite.long_csv import write_long_csv
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.randomness import check_random_state
from graphanon.utils.validation import check_positive

__all__ = ["icd9_like", "patients_with_demographics", "write_patients_files"]


def _icd9_tree(rng, n_chapters: int):
    """Parent map, leaves (in tree order), leaf weights and leaf chapter of a random ICD-9-shaped tree."""
    parent: dict[str, str] = {}
    leaves: list[str] = []
    weights: list[float] = []
    chapter_of: list[int] = []
    cat_no = 1
    for c in range(n_chapters):
        chap = f"C{c + 1:02d}"
        parent[chap] = "ICD9"
        chap_w = rng.lognormal(0.0, 1.0)
        for _ in range(1 + min(int(rng.poisson(3)), 7)):
            n_cat = 2 + min(int(rng.poisson(3)), 8)
            block = f"{cat_no:03d}-{cat_no + n_cat - 1:03d}"
            parent[block] = chap
            block_w = chap_w * rng.lognormal(0.0, 1.0)
            for _ in range(n_cat):
                cat = f"{cat_no:03d}"
                cat_no += 1
                parent[cat] = block
                cat_w = block_w * rng.lognormal(0.0, 1.8)
                if rng.random() < 0.35:  # a 3-digit code without subdivisions is a leaf itself
                    codes, code_w = [cat], [cat_w]
                else:
                    n_codes = 2 + min(int(rng.poisson(2.5)), 7)
                    codes = [f"{cat}.{d}" for d in range(n_codes)]
                    code_w = list(cat_w * rng.lognormal(0.0, 1.0, size=n_codes))
                for code in codes:
                    if code != cat:
                        parent[code] = cat
                leaves += codes
                weights += code_w
                chapter_of += [c] * len(codes)
    return parent, leaves, np.asarray(weights), np.asarray(chapter_of, dtype=np.int64)


def _icd9_sample(n_records, leaves, p, chapter_of, n_chapters, avg_codes, rng, name):
    """``n_records`` patients drawn from the population (codes by weight, mostly from a primary chapter)."""
    lengths = 1 + rng.poisson(avg_codes - 1.0, size=n_records)
    owner = np.repeat(np.arange(n_records), lengths)
    chap_mass = np.bincount(chapter_of, weights=p, minlength=n_chapters)
    primary = rng.choice(n_chapters, size=n_records, p=chap_mass / chap_mass.sum())[owner]
    cum = np.cumsum(p)
    start = np.concatenate([[0.0], np.cumsum(chap_mass)])[:-1]
    u = rng.random(len(owner))
    # 60% of a patient's codes come from its primary chapter (codes of a chapter are contiguous)
    in_primary = rng.random(len(owner)) < 0.6
    target = np.where(in_primary, start[primary] + u * chap_mass[primary], u * cum[-1])
    codes = np.minimum(np.searchsorted(cum, target, side="right"), len(leaves) - 1)
    X = sp.csr_array((np.ones(len(codes), dtype=bool), (owner, codes)), shape=(n_records, len(leaves)))
    X.sum_duplicates()
    present = np.flatnonzero(np.bincount(X.indices, minlength=len(leaves)))
    return TransactionData(X[:, present], [leaves[j] for j in present], name=name)


def icd9_like(
    n_records: int = 3000,
    *,
    n_external: int | None = None,
    n_chapters: int = 17,
    avg_codes: float = 3.0,
    rng=None,
) -> tuple[TransactionData, TransactionData, Taxonomy]:
    """Two samples of one population of patients over an ICD-9-shaped diagnosis-code taxonomy.

    The population: a root, ``n_chapters`` chapters (``C01`` ..), 1-8 blocks
    per chapter (``001-006``), 2-10 three-digit categories per block
    (``001``), and per category either the category itself as a code or 2-9
    codes (``001.0``, ``001.1``, ..) -- about 1,000 leaves at the default.
    Code weights are products of log-normal chapter, block, category and
    code factors, so a few codes are common and most are rare: a sample of
    3,000 patients holds about 400-600 codes and leaves 500-650 of the
    taxonomy's leaves absent. A patient has ``1 + Poisson(avg_codes - 1)``
    code draws (duplicates merge), 60% of them from one primary chapter
    drawn by chapter weight (comorbidity), the rest from all codes.

    Parameters
    ----------
    n_records : int
        Patients in the data sample.
    n_external : int, optional
        Patients in the external sample (default ``n_records``), drawn
        independently from the same population: an adversary's estimate
        of the code frequencies.
    n_chapters : int
        Chapters of the taxonomy.
    avg_codes : float
        Mean code draws per patient (at least 1).
    rng : numpy Generator or int, optional
        Seed: the population (tree and weights) and both samples.

    Returns
    -------
    data : TransactionData
        The sample to anonymize (items: the codes present in it).
    external : TransactionData
        The other sample.
    taxonomy : Taxonomy
        The whole code tree, absent codes included (root ``ICD9``).

    Notes
    -----
    Complexity: O(taxonomy + codes drawn), vectorized but for the tree's construction.

    Examples
    --------
    >>> data, external, tax = icd9_like(3000, rng=0)
    >>> 900 < len(tax.leaves) < 1300, data.n_records, external.n_records
    (True, 3000, 3000)
    >>> 500 < len(tax.leaves) - data.n_items < 700     # leaves absent from the data
    True

    References
    ----------
    World Health Organization / NCHS. International Classification of
    Diseases, 9th revision, Clinical Modification: the chapter / block /
    three-digit category / code structure imitated here.
    """
    n_records = check_positive("n_records", n_records)
    n_external = n_records if n_external is None else check_positive("n_external", n_external)
    n_chapters = check_positive("n_chapters", n_chapters)
    avg_codes = check_positive("avg_codes", avg_codes, integer=False)
    if avg_codes < 1:
        raise ParameterError(f"avg_codes must be at least 1 (every patient has a code), got {avg_codes!r}")
    rng = check_random_state(rng)
    parent, leaves, w, chapter_of = _icd9_tree(rng, n_chapters)
    p = w / w.sum()
    data = _icd9_sample(n_records, leaves, p, chapter_of, n_chapters, avg_codes, rng, "icd9-like sample")
    external = _icd9_sample(n_external, leaves, p, chapter_of, n_chapters, avg_codes, rng, "icd9-like external")
    return data, external, Taxonomy.from_parent_map(parent)


#: Census divisions of the synthetic patients, under their four regions.
_DIVISIONS: dict[Hashable, Hashable] = {
    "New England": "Northeast", "Middle Atlantic": "Northeast",
    "East North Central": "Midwest", "West North Central": "Midwest",
    "South Atlantic": "South", "East South Central": "South", "West South Central": "South",
    "Mountain": "West", "Pacific": "West",
}
_RACES: dict[Hashable, Hashable] = {"White": "*", "Black": "*", "Asian": "Asian or Pacific Islander",
          "Pacific Islander": "Asian or Pacific Islander", "Native American": "*", "Other": "*"}
_MARITAL: dict[Hashable, Hashable] = {"single": "never married", "married": "ever married", "divorced": "ever married",
            "widowed": "ever married"}


def patients_with_demographics(n: int = 3000, *, seed=None, n_chapters: int = 17, avg_codes: float = 3.0):
    """Synthetic patients: demographics (age, gender, race, region, marital status) and ICD-9-like codes, correlated.

    The codes come from the population of :func:`icd9_like`; what changes is
    the patient's *primary chapter* (60% of the codes): its distribution is
    the chapters' weights times a factor per age band (decades, 0-9 .. 90+)
    and a factor per gender, both log-normal and drawn once per population,
    so that, as in real diagnosis data, the demographics narrow the likely
    codes (what makes them quasi-identifiers next to the items). Ages are
    ``Gamma``-shaped over 0-99, gender 1:1, race, division and marital status
    by fixed shares (marital status depends on age).

    Parameters
    ----------
    n : int
        Patients.
    seed : numpy Generator or int, optional
        Seed of the population and the sample.
    n_chapters, avg_codes :
        As in :func:`icd9_like`.

    Returns
    -------
    data : graphanon.relational.RTData
        Record ids ``0 .. n-1``; QIs ``age`` (numeric, automatic intervals),
        ``gender`` (flat), ``race`` (Asian and Pacific Islander grouped),
        ``region`` (census division -> region -> ``*``), ``marital``
        (never / ever married -> ``*``).
    taxonomy : Taxonomy
        The code tree (root ``ICD9``).

    Notes
    -----
    Complexity: O(n + codes drawn), vectorized (one draw per age band and gender).

    Examples
    --------
    >>> rt, tax = patients_with_demographics(500, seed=0)
    >>> rt.qi, rt.n_records
    (('age', 'gender', 'race', 'region', 'marital'), 500)
    >>> rt.hierarchies["region"].generalize("Pacific", 1)
    'West'
    """
    from graphanon.relational import AttributeHierarchy, RelationalTable, RTData

    n = check_positive("n", n)
    rng = check_random_state(seed)
    parent, leaves, w, chapter_of = _icd9_tree(rng, check_positive("n_chapters", n_chapters))
    p = w / w.sum()
    age_factor = rng.lognormal(0.0, 1.2, size=(10, n_chapters))
    gender_factor = rng.lognormal(0.0, 0.6, size=(2, n_chapters))
    age = np.minimum(rng.gamma(4.0, 11.0, size=n).astype(np.int64), 99)
    gender = rng.integers(0, 2, size=n)
    lengths = 1 + rng.poisson(max(float(avg_codes), 1.0) - 1.0, size=n)
    owner = np.repeat(np.arange(n), lengths)
    chap_mass = np.bincount(chapter_of, weights=p, minlength=n_chapters)
    primary = np.empty(n, dtype=np.int64)
    band = age // 10
    for b in range(10):
        for g in range(2):
            who = np.flatnonzero((band == b) & (gender == g))
            if who.size:
                q = chap_mass * age_factor[b] * gender_factor[g]
                primary[who] = rng.choice(n_chapters, size=who.size, p=q / q.sum())
    cum = np.cumsum(p)
    start = np.concatenate([[0.0], np.cumsum(chap_mass)])[:-1]
    u = rng.random(len(owner))
    in_primary = rng.random(len(owner)) < 0.6
    pr = primary[owner]
    target = np.where(in_primary, start[pr] + u * chap_mass[pr], u * cum[-1])
    codes = np.minimum(np.searchsorted(cum, target, side="right"), len(leaves) - 1)
    X = sp.csr_array((np.ones(len(codes), dtype=bool), (owner, codes)), shape=(n, len(leaves)))
    X.sum_duplicates()
    present = np.flatnonzero(np.bincount(X.indices, minlength=len(leaves)))
    tx = TransactionData(X[:, present], [leaves[j] for j in present], name="patients (synthetic)")
    races = list(_RACES)
    race = rng.choice(len(races), size=n, p=[0.6, 0.13, 0.06, 0.01, 0.02, 0.18])
    divisions = list(_DIVISIONS)
    division = rng.choice(len(divisions), size=n, p=[.05, .13, .14, .07, .2, .06, .12, .08, .15])
    statuses = list(_MARITAL)
    married_p = np.clip((age - 18) / 40, 0, 0.9)
    coin = rng.random(n)
    marital = np.where(age < 18, 0, np.where(coin < 1 - married_p, 0, np.where(
        coin < 1 - married_p * 0.3, 1, np.where(age > 65, 3, 2))))
    table = RelationalTable(
        list(range(n)),
        {"age": age.tolist(), "gender": np.array(["F", "M"])[gender].tolist(),
         "race": [races[i] for i in race], "region": [divisions[i] for i in division],
         "marital": [statuses[i] for i in marital]},
        source="patients (synthetic)",
    )
    race_tax = Taxonomy.from_parent_map({**_RACES, "Asian or Pacific Islander": "*"})
    region_tax = Taxonomy.from_parent_map({**_DIVISIONS, **{r: "*" for r in dict.fromkeys(_DIVISIONS.values())}})
    marital_tax = Taxonomy.from_parent_map({**_MARITAL, "never married": "*", "ever married": "*"})
    hierarchies = {
        "race": AttributeHierarchy.categorical("race", table.column("race"), taxonomy=race_tax),
        "region": AttributeHierarchy.categorical("region", table.column("region"), taxonomy=region_tax),
        "marital": AttributeHierarchy.categorical("marital", table.column("marital"), taxonomy=marital_tax),
    }
    return RTData(tx, table, hierarchies=hierarchies), Taxonomy.from_parent_map(parent)


def write_patients_files(folder, n: int = 300, *, seed=None) -> dict:
    """Write :func:`patients_with_demographics` as the files the command line reads; their paths by role.

    ``patients.csv`` (long CSV ``tid,item``), ``demographics.csv`` (``id``
    and the five QI columns), ``icd9.txt`` (the code taxonomy,
    ``code;parent;...;ICD9``), and the hierarchies of ``race``, ``region``
    and ``marital`` (``race.txt`` ..., ``value;parent;...;*``).

    Examples
    --------
    >>> import tempfile
    >>> paths = write_patients_files(tempfile.mkdtemp(), 50, seed=0)
    >>> sorted(paths)
    ['demographics', 'icd9', 'marital', 'patients', 'race', 'region']
    """
    folder = Path(folder)
    rt, tax = patients_with_demographics(n, seed=seed)
    paths = {"patients": folder / "patients.csv", "demographics": folder / "demographics.csv",
             "icd9": folder / "icd9.txt"}
    write_long_csv(rt.transactions, paths["patients"])
    t = rt.table
    lines = ["id," + ",".join(t.names)]
    lines += [rid + "," + ",".join(str(t.column(c)[i]) for c in t.names) for i, rid in enumerate(t.record_ids)]
    atomic_write(paths["demographics"], "\n".join(lines) + "\n")
    atomic_write(paths["icd9"], "".join(";".join([x, *tax.ancestors(x)]) + "\n" for x in tax.leaves))
    for name in ("race", "region", "marital"):
        tree = rt.hierarchies[name].taxonomy
        paths[name] = folder / f"{name}.txt"
        atomic_write(paths[name], "".join(";".join([x, *tree.ancestors(x)]) + "\n" for x in tree.leaves))
    return paths
