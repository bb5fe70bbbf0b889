"""Pure statistics for MT evaluation.

Everything in this package works on plain Python lists and NumPy arrays and imports nothing
from Django, so it can be used and tested without a database: automatic metrics and their
sufficient statistics, bootstrap intervals, paired significance tests, inter- and
intra-annotator agreement, human rankings, meta-evaluation of metrics against human scores
(``metrics.meta``) and compare-mt style error analysis of two systems (``metrics.analysis``).
"""
