"""Meta-evaluation: how well an automatic metric agrees with human judgements.

* ``metrics.meta.kendall``: pair statistics of one vector (Kendall's tau-b/-c, tau_23, acc23,
  WMT's Kendall-like tau, pairwise agreement), as mt-metrics-eval defines them.
* ``metrics.meta.segment``: segment level with item-wise grouping (WMT's Kendall-like tau,
  acc23, tie-optimised acc23), bootstrap intervals over items.
* ``metrics.meta.system``: system-level pairwise accuracy with a bootstrap interval.
* ``metrics.meta.soft``: soft pairwise accuracy (SPA, 1 - PCE) with its paired permutation
  p-values, and Pairwise Difference Pearson, as mt-metrics-eval defines them.
* ``metrics.meta.tsv``: the ``system<TAB>segment<TAB>score`` files of ``python -m metrics meta``.
"""

# Constants shared with the command line, here so that reading them imports no NumPy.
# WMT's DA threshold: pairs whose human scores differ by less are not counted (WMT17-20).
DA_THRESHOLD = 25.0
# What a system-level bootstrap may resample (``metrics.meta.system``).
RESAMPLING_UNITS = ("items", "systems")
