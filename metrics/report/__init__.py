"""Paper-ready output of results: ranking tables as Typst, LaTeX (booktabs) and PDF.

* ``metrics.report.tables``: the table model and its Typst and LaTeX source (pure strings).
* ``metrics.report.pdf``: the PDF, compiled from the Typst source with the ``typst`` package.
"""
