"""Paper-ready downloads of a shared task's tables (Typst, LaTeX with booktabs, PDF compiled
from the Typst source) and of the results pages' plots (SVG, PDF): one list of what can be
downloaded, for the pages and the API."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.http import HttpResponse
from django.utils.text import slugify

from annotation.errors import ApplicationError
from annotation.results_freshness import file_headers, file_name, older_note
from annotation.selectors.shared_task_tables import autorank_tables, domain_grids, global_grid
from annotation.selectors.shared_tasks import SharedTaskResults
from annotation.services.snapshot_compute import Snapshotted
from metrics.report.grid import latex_grid, typst_grid
from metrics.report.pdf import compile_typst
from metrics.report.tables import latex_page, latex_table, typst_page, typst_table

TABLE_FORMATS = {
    "typ": ("text/plain; charset=utf-8", "Typst source"),
    "tex": ("text/x-tex; charset=utf-8", "LaTeX source (booktabs)"),
    "pdf": ("application/pdf", "PDF (compiled from the Typst source)"),
}
# A note's comment line in each text format (the PDF's is in its name and headers only).
COMMENT_PREFIX = {"typ": "// ", "tex": "% "}
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


def table_document(results: SharedTaskResults, which: str, fmt: str, note: str = "") -> bytes:
    """The document of the tables ``which`` in ``fmt`` (a key of ``TABLE_FORMATS``);
    ``note``: a first comment line of a text source (that its figures are older)."""
    if fmt not in TABLE_FORMATS:
        raise DownloadError(f"tables download as {', '.join('.' + f for f in TABLE_FORMATS)}")
    typst, latex = _sources(results, which)
    comment = f"{COMMENT_PREFIX[fmt]}{note}\n" if note and fmt in COMMENT_PREFIX else ""
    if fmt == "tex":
        return (comment + latex_page(latex)).encode("utf-8")
    source = typst_page(typst)
    return (comment + source).encode("utf-8") if fmt == "typ" else compile_typst(source)


def table_response(
    results: SharedTaskResults,
    which: str,
    fmt: str,
    figures: Sequence[Snapshotted] = (),
) -> HttpResponse:
    """The file; ``figures``: how current the pairs' figures in it are (older ones are said
    in its headers, its name and, in a text source, its first line)."""
    data = table_document(results, which, fmt, older_note(figures))
    stem = f"{slugify(results.shared_task.name) or 'shared-task'}-{which}"
    response = HttpResponse(data, content_type=TABLE_FORMATS[fmt][0])
    response["Content-Disposition"] = f'attachment; filename="{file_name(stem, fmt, figures)}"'
    for header, value in file_headers(figures).items():
        response[header] = value
    return response


def tables_download(
    results: SharedTaskResults,
    reads: Sequence[Snapshotted],
    which: str,
    fmt: str,
    *,
    computing: Callable[[list[Snapshotted]], HttpResponse],
) -> HttpResponse:
    """The tables ``which`` as ``fmt`` from the pairs' stored figures (``reads``: how current
    each pair's are, in the order of ``results.pairs``); while a pair they need has none yet,
    ``computing`` answers (a file cannot leave a pair out silently). One pair's table is of
    that pair's figures only; the other sets of every pair's."""
    if which.startswith("pair-"):
        reads = [read for read in reads if read.value.download_key == which]
    pending = [read for read in reads if read.pending]
    known = fmt in TABLE_FORMATS and (which in TABLE_SETS or which.startswith("pair-"))
    if pending and known:  # (unknown ones are refused by table_document)
        return computing(pending)
    return table_response(results, which, fmt, reads)
