"""PDF of ranking tables, compiled from their Typst source by the ``typst`` package (PyPI:
the Typst compiler with its fonts built in; no TeX installation)."""

from __future__ import annotations

from collections.abc import Sequence

from metrics.report.tables import RankingTable, typst_document


class CompileError(Exception):
    """The Typst compiler refused the source (a bug here: the source is generated)."""


def compile_typst(source: str) -> bytes:
    """The PDF of a Typst document."""
    import typst  # imported here: the compiler is a large extension module

    try:
        return bytes(typst.compile(source.encode("utf-8"), format="pdf"))
    except typst.TypstError as error:
        raise CompileError(str(error)) from error


def tables_pdf(tables: Sequence[RankingTable]) -> bytes:
    return compile_typst(typst_document(tables))
