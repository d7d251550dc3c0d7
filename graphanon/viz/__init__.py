"""Matplotlib drawings of graphanon's graphs and evaluation results.

Nothing in the core imports this package (it imports matplotlib).
"""
