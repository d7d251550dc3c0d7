"""Utilities of the bottom layer: argument checks, randomness, progress, memory budget, lazy imports.

* :mod:`.params` -- the declared parameters: ``validate_params``, ``Interval``, ``StrOptions``
  and the rules between parameters; ``expand_params`` (``--param`` texts holding several values);
* :mod:`.validation` -- the checks that need the data (``check_k``: k at most the number of
  records, ``check_order``, ``check_diversity_feasible``);
* :mod:`.registry` -- ``LazyRegistry``, the one lazy name table (methods, audit models, release kinds);
* :mod:`.randomness` -- ``check_random_state`` (the structure randomness, ``rng=``) and
  ``secret_generator`` (the secret choices, operating-system entropy);
* :mod:`.progress` -- the ``progress(done, total, message)`` callback type and ``report``;
* :mod:`.memory` -- the ``--max-memory`` budget;
* :mod:`.lazy` -- ``attach``, the lazy package facades (PEP 562);
* :mod:`.labels` -- items and labels are text: ``as_label``, ``natural_key``, ``parse_name_list``;
* :mod:`.intervals` -- ``parse_interval``: published ``[lo-hi]`` values of relational attributes.

Nothing is imported here: ``import graphanon`` reads :mod:`.lazy` only.
"""
