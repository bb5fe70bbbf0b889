"""Paper-ready output of results: ranking tables as Typst, LaTeX (booktabs) and PDF.

* ``metrics.report.tables``: the table model and its Typst and LaTeX source (pure strings).
* ``metrics.report.grid``: other tables (a shared task's global, per-domain and AutoRank
  tables) as rows of formatted cells, in the same style.
* ``metrics.report.shared_task``: normalised ranks, the global ranking, AutoRank and
  per-domain means across language pairs.
* ``metrics.report.pdf``: the PDF, compiled from the Typst source with the ``typst`` package.
"""
