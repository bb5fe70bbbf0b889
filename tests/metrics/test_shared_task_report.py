"""Shared-task tables: normalised ranks, the global ranking and AutoRank against hand
computations; the grid tables and per-domain columns compiled by Typst and read back."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from metrics.report.grid import Grid, GridRow, latex_grid, typst_grid
from metrics.report.pdf import compile_typst
from metrics.report.shared_task import autorank, domain_means, global_ranking, normalised_ranks
from metrics.report.tables import (
    PROTOCOLS,
    RankingTable,
    Row,
    latex_page,
    latex_table,
    typst_page,
    typst_table,
)


def test_normalised_ranks_by_hand() -> None:
    # Five systems: positions 1..5 -> (p-1)/4.
    assert normalised_ranks(["a", "b", "c", "d", "e"]) == {
        "a": 0.0,
        "b": 0.25,
        "c": 0.5,
        "d": 0.75,
        "e": 1.0,
    }
    assert normalised_ranks(["only"]) == {"only": 0.0}
    with pytest.raises(ValueError, match="twice"):
        normalised_ranks(["a", "a"])


def test_global_ranking_by_hand() -> None:
    # en-de (5 systems): X 1st (0), Y 3rd (0.5), Z 5th (1). cs-uk (3): Y 1st (0), X 3rd (1).
    # ja-zh (2): Z 1st (0), W 2nd (1). Averages: X (0+1)/2 = 0.5, Y (0.5+0)/2 = 0.25,
    # Z (1+0)/2 = 0.5, P 0.25 (one pair), Q 0.75, W 1. Y and P tie at 0.25: Y has two pairs,
    # so first; X and Z tie at 0.5 over two pairs each (by name), before R (0.5, one pair).
    rows = global_ranking(
        {
            "en-de": ["X", "P", "Y", "Q", "Z"],
            "cs-uk": ["Y", "R", "X"],
            "ja-zh": ["Z", "W"],
        }
    )
    got = [(r.system, r.average_normalised_rank, r.pairs) for r in rows]
    assert got == [
        ("Y", 0.25, 2),
        ("P", 0.25, 1),
        ("X", 0.5, 2),
        ("Z", 0.5, 2),
        ("R", 0.5, 1),
        ("Q", 0.75, 1),
        ("W", 1.0, 1),
    ]


def test_autorank_by_hand() -> None:
    # N = 4. BLEU (higher better, best 40, worst 20): A 1, B 1 + 3*(40-30)/20 = 2.5,
    # C 1 + 3*(40-25)/20 = 3.25, D 4. TER (lower better, best 50, worst 80): A 1 + 3*10/30 = 2,
    # B 1, C 4, D 1 + 3*20/30 = 3. AutoRank: A 1.5, B 1.75, C 3.625, D 3.5.
    # E has no TER score: no AutoRank, and it does not count in N.
    scores = {
        "BLEU": {"A": 40.0, "B": 30.0, "C": 25.0, "D": 20.0, "E": 35.0},
        "TER": {"A": 60.0, "B": 50.0, "C": 80.0, "D": 70.0},
    }
    ranks = autorank(scores, {"BLEU": True, "TER": False})
    assert ranks == pytest.approx({"A": 1.5, "B": 1.75, "C": 3.625, "D": 3.5})
    assert autorank({"m": {"a": 1.0, "b": 1.0}}, {"m": True}) == {"a": 1.0, "b": 1.0}
    assert autorank({}, {}) == {}


def test_domain_means_average_segments_first() -> None:
    # Segment s1 has two judgments (10, 30 -> 20), s2 one (50): news mean (20+50)/2 = 35, not
    # the judgment mean 30.
    means = domain_means(
        [10, 30, 50, 70],
        ["A", "A", "A", "A"],
        ["s1", "s1", "s2", "s3"],
        ["news", "news", "news", "social"],
    )
    assert means == {"A": {"news": 35.0, "social": 70.0}}


def _grid() -> Grid:
    rows = [
        GridRow(["1", "Top_&_#1 {x}", "0.125", "−1.5"]),
        GridRow(["2", "Human-A", "0.250", "–"], human=True),
        GridRow(["3", "low$end\\", "0.900", "12.3"], rule_before=True),
    ]
    return Grid("All pairs", "test table", ["#", "System", "Avg. norm. rank", "en-de"], rows, 1)


def _domain_table() -> RankingTable:
    rows = [
        Row("sys<A>", (1, 1), 1, 71.25, (70.0, 72.5), domain_scores=(80.04, 62.46)),
        Row("Human", (2, 3), 2, 60.0, (58.0, 62.0), human=True, domain_scores=(60.0, None)),
        Row("B", (2, 3), 2, 59.95, (57.0, 61.0), domain_scores=(59.9, 60.0)),
    ]
    return RankingTable("en-de", PROTOCOLS["esa"], rows, domains=("news", "social"))


def test_latex_grid_and_domain_columns() -> None:
    grid = latex_grid(_grid())
    assert r"Top\_\&\_\#1 \{x\}" in grid
    assert r"\textit{Human-A}\textsuperscript{\dag}" in grid
    assert r"low\$end\textbackslash{}" in grid
    assert "$-$1.5" in grid and " -- " in grid  # minus sign, and the dash of a missing value
    lines = grid.splitlines()
    assert lines.count(r"\midrule") == 2  # under the header, and the one group rule
    assert r"\dag{} human translation" in grid
    table = latex_table(_domain_table())
    assert "news & social" in table
    assert "80.0 & 62.5" in table  # ESA's one decimal in the domain columns too
    assert latex_page([grid, table]).startswith(r"\documentclass{article}")


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler's pdftotext missing")
def test_grid_and_domain_tables_compile_and_read_back(tmp_path: Path) -> None:
    source = typst_page([typst_grid(_grid()), typst_table(_domain_table())])
    pdf = compile_typst(source)
    assert pdf.startswith(b"%PDF")
    path = tmp_path / "t.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    assert "Top_&_#1 {x}" in text and "low$end\\" in text and "sys<A>" in text
    assert "Human-A†" in text.replace(" ", "")
    assert "80.0" in text and "62.5" in text and "news" in text and "social" in text
    assert "All pairs: test table; † human translation." in text
