"""Paper-ready downloads of a shared task's tables (Typst, LaTeX with booktabs, PDF compiled
from the Typst source) and of the results pages' plots (SVG, PDF): one list of what can be
downloaded, for the pages and the API."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.text import slugify

from annotation.errors import ApplicationError
from annotation.selectors.shared_task_tables import autorank_tables, domain_grids, global_grid
from annotation.selectors.shared_tasks import SharedTaskResults
from metrics.report.grid import latex_grid, typst_grid
from metrics.report.pdf import compile_typst
from metrics.report.tables import latex_page, latex_table, typst_page, typst_table

TABLE_FORMATS = {
    "typ": ("text/plain; charset=utf-8", "Typst source"),
    "tex": ("text/x-tex; charset=utf-8", "LaTeX source (booktabs)"),
    "pdf": ("application/pdf", "PDF (compiled from the Typst source)"),
}
# Which tables a download holds.
TABLE_SETS = {
    "all": "every table below",
    "pairs": "each pair's ranking",
    "global": "the global table across pairs",
    "domains": "the per-domain tables",
    "autorank": "human rankings beside AutoRank",
}


class DownloadError(ApplicationError):
    kind = "not_found"


def _sources(results: SharedTaskResults, which: str) -> tuple[list[str], list[str]]:
    """(Typst parts, LaTeX parts) of the tables ``which`` names: a key of ``TABLE_SETS`` or
    ``pair-<campaign id>`` (one pair the reader sees)."""
    typst: list[str] = []
    latex: list[str] = []
    if which.startswith("pair-"):
        pair = next((p for p in results.ranked_pairs if p.download_key == which), None)
        if pair is None or pair.table is None:
            raise DownloadError("no such ranked pair in this shared task")
        return [typst_table(pair.table)], [latex_table(pair.table)]
    if which not in TABLE_SETS:
        raise DownloadError(
            f"unknown table set {which!r}; use one of {', '.join(TABLE_SETS)} or pair-<id>"
        )
    if which in ("all", "global") and results.global_rows:
        grid = global_grid(results)
        typst.append(typst_grid(grid))
        latex.append(latex_grid(grid))
    if which in ("all", "pairs"):
        for pair in results.ranked_pairs:
            if pair.table is not None:
                typst.append(typst_table(pair.table))
                latex.append(latex_table(pair.table))
    if which in ("all", "domains"):
        for grid in domain_grids(results):
            typst.append(typst_grid(grid))
            latex.append(latex_grid(grid))
    if which in ("all", "autorank"):
        for table in autorank_tables(results):
            typst.append(typst_grid(table.grid))
            latex.append(latex_grid(table.grid))
    if not typst:
        raise DownloadError("nothing ranked yet, so no table")
    return typst, latex


def table_document(results: SharedTaskResults, which: str, fmt: str) -> bytes:
    """The document of the tables ``which`` in ``fmt`` (a key of ``TABLE_FORMATS``)."""
    if fmt not in TABLE_FORMATS:
        raise DownloadError(f"tables download as {', '.join('.' + f for f in TABLE_FORMATS)}")
    typst, latex = _sources(results, which)
    if fmt == "tex":
        return latex_page(latex).encode("utf-8")
    source = typst_page(typst)
    return source.encode("utf-8") if fmt == "typ" else compile_typst(source)


def table_response(results: SharedTaskResults, which: str, fmt: str) -> HttpResponse:
    data = table_document(results, which, fmt)
    name = f"{slugify(results.shared_task.name) or 'shared-task'}-{which}.{fmt}"
    response = HttpResponse(data, content_type=TABLE_FORMATS[fmt][0])
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
