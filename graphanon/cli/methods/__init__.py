"""Each method family's command-line declarations (``AlgorithmSpec``), one module per family.

Looked up by :func:`graphanon.cli.registry.get_algorithm`; the algorithm
modules under :mod:`graphanon.algorithms` speak Python only.
"""
