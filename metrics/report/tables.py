"""Paper-ready ranking tables: Typst and LaTeX (booktabs) source of per-pair system rankings.

A table lists systems in ranked order with their rank range, cluster and score (with its
interval); a rule separates clusters, human translations are marked (italic name and a dagger,
and a grey row in Typst), system names are escaped for the target language and scores are
printed to the precision the protocol publishes (``PROTOCOLS``). Pure string building: no
Django, no typst import (``metrics.report.pdf`` compiles the Typst source).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Protocol:
    """How a human protocol's score is published: its label and decimals, and an optional
    second score printed beside it (DA's raw mean beside its z-score)."""

    name: str
    score_label: str
    digits: int
    secondary_label: str | None = None
    secondary_digits: int = 1
    lower_is_better: bool = False


# WMT prints DA as the mean z-score to 3 decimals beside the raw mean to 1 (WMT20-22 tables);
# ESA as the mean 0-100 score to 1 decimal (WMT24); MQM as mean weighted errors to 2
# (Freitag et al. 2021), lower being better.
PROTOCOLS = {
    "da": Protocol("DA", "z", 3, secondary_label="raw", secondary_digits=1),
    "esa": Protocol("ESA", "ESA", 1),
    "mqm": Protocol("MQM", "MQM", 2, lower_is_better=True),
    # Contrastive DA: the raw 0-100 mean, as ESA prints it (no z-scores are computed).
    "cda": Protocol("contrastive DA", "DA", 1),
}

HUMAN_NOTE = "human translation"


@dataclass(frozen=True)
class Row:
    system: str
    rank_range: tuple[int, int]
    cluster: int
    score: float
    interval: tuple[float, float] | None = None
    secondary: float | None = None
    human: bool = False
    domain_scores: tuple[float | None, ...] = ()  # in the order of the table's ``domains``


@dataclass(frozen=True)
class RankingTable:
    """One language pair's ranking; ``rows`` in ranked order (best first)."""

    title: str
    protocol: Protocol
    rows: Sequence[Row] = field(default_factory=tuple)
    domains: tuple[str, ...] = ()  # a score column per domain, at the protocol's precision
    procedure: str = ""  # how the ranks and clusters were decided, e.g. "WMT25 (...)"

    def __post_init__(self) -> None:
        clusters = [row.cluster for row in self.rows]
        if clusters != sorted(clusters):
            raise ValueError(f"{self.title}: rows must be in ranked order (clusters ascending)")

    @property
    def has_interval(self) -> bool:
        return any(row.interval is not None for row in self.rows)

    @property
    def has_human(self) -> bool:
        return any(row.human for row in self.rows)

    def columns(self) -> list[str]:
        names = ["Rank", "Cluster", "System", self.protocol.score_label]
        if self.has_interval:
            names.append("95% CI")
        if self.protocol.secondary_label:
            names.append(self.protocol.secondary_label)
        return names + list(self.domains)

    def domain_score(self, row: Row, index: int) -> float | None:
        return row.domain_scores[index] if index < len(row.domain_scores) else None

    def description(self) -> str:
        direction = "lower" if self.protocol.lower_is_better else "higher"
        how = f", ranked as {self.procedure}" if self.procedure else ""
        return f"{self.protocol.name} ranking ({direction} is better{how}); rules separate clusters"

    def caption(self) -> str:
        text = f"{self.title}: {self.description()}"
        return text + (f"; † {HUMAN_NOTE}." if self.has_human else ".")


def number(value: float | None, digits: int, minus: str = "-") -> str:
    """``value`` to ``digits`` decimals, a dash when missing; negative zero prints as zero."""
    if value is None or not math.isfinite(value):
        return "–"
    text = f"{value:.{digits}f}"
    if text.startswith("-"):
        text = text[1:] if float(text) == 0 else minus + text[1:]
    return text


def rank_text(rank_range: tuple[int, int], dash: str) -> str:
    low, high = rank_range
    return str(low) if low == high else f"{low}{dash}{high}"


def cluster_starts(rows: Sequence[Row]) -> set[int]:
    """Indices of rows that open a new cluster (the first row excluded)."""
    return {i for i in range(1, len(rows)) if rows[i].cluster != rows[i - 1].cluster}


# --- LaTeX -----------------------------------------------------------------------------------

_LATEX_ESCAPES = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}


def latex_escape(text: str) -> str:
    """Text safe in LaTeX's text mode (one pass, so an inserted backslash is not re-escaped)."""
    return "".join(_LATEX_ESCAPES.get(char, char) for char in text)


def _latex_number(value: float | None, digits: int) -> str:
    return number(value, digits, minus="$-$")


def _latex_cells(table: RankingTable, row: Row) -> list[str]:
    name = latex_escape(row.system)
    if row.human:
        name = rf"\textit{{{name}}}\textsuperscript{{\dag}}"
    cells = [
        rank_text(row.rank_range, "--"),
        str(row.cluster),
        name,
        _latex_number(row.score, table.protocol.digits),
    ]
    if table.has_interval:
        low, high = row.interval or (None, None)
        digits = table.protocol.digits
        cells.append(f"[{_latex_number(low, digits)}, {_latex_number(high, digits)}]")
    if table.protocol.secondary_label:
        cells.append(_latex_number(row.secondary, table.protocol.secondary_digits))
    for index in range(len(table.domains)):
        cells.append(_latex_number(table.domain_score(row, index), table.protocol.digits))
    return cells


def latex_table(table: RankingTable) -> str:
    """One ``table`` environment with a booktabs ``tabular``; ``\\midrule`` under the header
    and between clusters."""
    columns = table.columns()
    align = "".join("l" if name == "System" else "r" for name in columns)
    starts = cluster_starts(table.rows)
    caption = latex_escape(table.caption()).replace("†", r"\dag{}")
    lines = [
        r"\begin{table}[ht]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(latex_escape(name) for name in columns) + r" \\",
        r"\midrule",
    ]
    for index, row in enumerate(table.rows):
        if index in starts:
            lines.append(r"\midrule")
        lines.append(" & ".join(_latex_cells(table, row)) + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{caption}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def latex_document(tables: Sequence[RankingTable]) -> str:
    """A document that compiles as is (article, booktabs), one table per language pair."""
    return latex_page([latex_table(table) for table in tables])


def latex_page(parts: Sequence[str]) -> str:
    """A document that compiles as is (article, booktabs) around ``table`` environments."""
    head = [
        r"\documentclass{article}",
        r"\usepackage[T1]{fontenc}",
        r"\usepackage[utf8]{inputenc}",
        r"\usepackage{booktabs}",
        r"\begin{document}",
        "",
    ]
    return "\n".join(head) + "\n".join(parts) + "\n" + r"\end{document}" + "\n"


# --- Typst -----------------------------------------------------------------------------------

_TYPST_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def typst_string(text: str) -> str:
    """A Typst string literal of ``text``: in code mode nothing but ``\\`` and ``"`` (and
    control characters) is special, so markup characters in system names print as they are."""
    return '"' + "".join(_TYPST_ESCAPES.get(char, char) for char in text) + '"'


def _typst_cells(table: RankingTable, row: Row) -> list[str]:
    digits = table.protocol.digits
    name = typst_string(row.system)
    if row.human:
        name = f'emph({name}) + super("†")'
    cells = [
        typst_string(rank_text(row.rank_range, "–")),
        typst_string(str(row.cluster)),
        name,
        typst_string(number(row.score, digits, minus="−")),
    ]
    if table.has_interval:
        low, high = row.interval or (None, None)
        bounds = f"[{number(low, digits, '−')}, {number(high, digits, '−')}]"
        cells.append(typst_string(bounds))
    if table.protocol.secondary_label:
        cells.append(
            typst_string(number(row.secondary, table.protocol.secondary_digits, minus="−"))
        )
    for index in range(len(table.domains)):
        cells.append(typst_string(number(table.domain_score(row, index), digits, minus="−")))
    return cells


def typst_table(table: RankingTable) -> str:
    """A ``figure`` holding a rule-only table in the booktabs style: heavy rules at the top
    and bottom, light ones under the header and between clusters; human rows shaded."""
    columns = table.columns()
    align = ", ".join("left" if name == "System" else "right" for name in columns)
    human_rows = [index + 1 for index, row in enumerate(table.rows) if row.human]  # 0: header
    fill = (
        f"fill: (x, y) => if y in ({', '.join(map(str, human_rows))},) {{ luma(232) }},"
        if human_rows
        else ""
    )
    header = ", ".join(f"strong({typst_string(name)})" for name in columns)
    starts = cluster_starts(table.rows)
    lines = [
        "#figure(",
        "  table(",
        f"    columns: {len(columns)},",
        f"    align: ({align}),",
        "    stroke: none,",
        "    inset: (x: 0.5em, y: 0.3em),",
    ]
    if fill:
        lines.append(f"    {fill}")
    lines += [
        "    table.hline(stroke: 0.08em),",
        f"    table.header({header}),",
        "    table.hline(stroke: 0.05em),",
    ]
    for index, row in enumerate(table.rows):
        if index in starts:
            lines.append("    table.hline(stroke: 0.05em),")
        lines.append("    " + ", ".join(_typst_cells(table, row)) + ",")
    lines += [
        "    table.hline(stroke: 0.08em),",
        "  ),",
        f"  caption: {typst_string(table.caption())},",
        ")",
    ]
    return "\n".join(lines) + "\n"


def typst_document(tables: Sequence[RankingTable]) -> str:
    """A Typst document, one figure per language pair, that compiles as is."""
    return typst_page([typst_table(table) for table in tables])


def typst_page(parts: Sequence[str]) -> str:
    """A Typst document around figures, that compiles as is."""
    head = [
        '#set page(paper: "a4", margin: 2cm)',
        "#set text(size: 9pt)",
        "#show figure: set block(breakable: true)",
        "#show figure.caption: set text(size: 8.5pt)",
        "",
    ]
    return "\n".join(head) + "\n".join(parts)
