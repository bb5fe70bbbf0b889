"""Paper-ready tables that are not one pair's ranking (the shared task's global, per-domain
and AutoRank tables): rows of already formatted cells, in the booktabs style of
``metrics.report.tables`` (rules at the top, under the header, between groups, at the bottom;
the system column escaped; human translations marked)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from metrics.report.tables import (
    HUMAN_NOTE,
    RankingTable,
    latex_escape,
    number,
    rank_text,
    typst_string,
)


@dataclass(frozen=True)
class GridRow:
    cells: Sequence[str]  # plain text; escaped when written
    human: bool = False
    rule_before: bool = False  # a light rule above the row (a new group, as a cluster)


@dataclass(frozen=True)
class Grid:
    title: str
    caption: str
    columns: Sequence[str]
    rows: Sequence[GridRow] = field(default_factory=tuple)
    name_column: int = 0  # the system column: left-aligned, human names marked

    def full_caption(self) -> str:
        text = f"{self.title}: {self.caption}"
        return text + (f"; † {HUMAN_NOTE}." if any(r.human for r in self.rows) else ".")


def latex_grid(grid: Grid) -> str:
    align = "".join("l" if i == grid.name_column else "r" for i in range(len(grid.columns)))
    lines = [
        r"\begin{table}[ht]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(latex_escape(name) for name in grid.columns) + r" \\",
        r"\midrule",
    ]
    for index, row in enumerate(grid.rows):
        if row.rule_before and index > 0:
            lines.append(r"\midrule")
        cells = [_latex_cell(cell) for cell in row.cells]
        if row.human:
            name = cells[grid.name_column]
            cells[grid.name_column] = rf"\textit{{{name}}}\textsuperscript{{\dag}}"
        lines.append(" & ".join(cells) + r" \\")
    caption = latex_escape(grid.full_caption()).replace("†", r"\dag{}")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{caption}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def _latex_cell(text: str) -> str:
    # Minus signs and range dashes as LaTeX writes them; everything else escaped.
    escaped = latex_escape(text)
    return escaped.replace("−", "$-$").replace("–", "--")


def typst_grid(grid: Grid) -> str:
    columns = len(grid.columns)
    align = ", ".join("left" if i == grid.name_column else "right" for i in range(columns))
    human_rows = [index + 1 for index, row in enumerate(grid.rows) if row.human]
    header = ", ".join(f"strong({typst_string(name)})" for name in grid.columns)
    lines = [
        "#figure(",
        "  table(",
        f"    columns: {columns},",
        f"    align: ({align}),",
        "    stroke: none,",
        "    inset: (x: 0.5em, y: 0.3em),",
    ]
    if human_rows:
        shaded = ", ".join(map(str, human_rows))
        lines.append(f"    fill: (x, y) => if y in ({shaded},) {{ luma(232) }},")
    lines += [
        "    table.hline(stroke: 0.08em),",
        f"    table.header({header}),",
        "    table.hline(stroke: 0.05em),",
    ]
    for index, row in enumerate(grid.rows):
        if row.rule_before and index > 0:
            lines.append("    table.hline(stroke: 0.05em),")
        cells = [typst_string(cell) for cell in row.cells]
        if row.human:
            cells[grid.name_column] = f'emph({cells[grid.name_column]}) + super("†")'
        lines.append("    " + ", ".join(cells) + ",")
    lines += [
        "    table.hline(stroke: 0.08em),",
        "  ),",
        f"  caption: {typst_string(grid.full_caption())},",
        ")",
    ]
    return "\n".join(lines) + "\n"


def ranking_grid(table: RankingTable) -> Grid:
    """A pair's ranking table as the page shows it: the cells the paper tables print."""
    digits = table.protocol.digits
    rows = []
    previous = None
    for row in table.rows:
        cells = [
            rank_text(row.rank_range, "–"),
            str(row.cluster),
            row.system,
            number(row.score, digits, minus="−"),
        ]
        if table.has_interval:
            low, high = row.interval or (None, None)
            cells.append(f"[{number(low, digits, '−')}, {number(high, digits, '−')}]")
        if table.protocol.secondary_label:
            cells.append(number(row.secondary, table.protocol.secondary_digits, minus="−"))
        cells += [
            number(table.domain_score(row, i), digits, minus="−") for i in range(len(table.domains))
        ]
        rows.append(
            GridRow(cells, human=row.human, rule_before=previous not in (None, row.cluster))
        )
        previous = row.cluster
    return Grid(table.title, table.description(), table.columns(), rows, name_column=2)
