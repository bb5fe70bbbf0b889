"""Paper-ready ranking tables: LaTeX escaping and rules, Typst source compiled to PDF, and
`python -m metrics human --table` on real WMT23 en-de ESA judgments (tests/data)."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest

from metrics.cli import main
from metrics.report.pdf import compile_typst, tables_pdf
from metrics.report.tables import (
    PROTOCOLS,
    RankingTable,
    Row,
    latex_document,
    latex_escape,
    latex_table,
    number,
    typst_document,
    typst_string,
)

DATA = Path(__file__).parent.parent / "data"
ESA_EXPORT = DATA / "esa-appraise-export" / "240521rc6ESA.scores.csv"

AWKWARD = "A&B_C%"


def da_table() -> RankingTable:
    rows = [
        Row(AWKWARD, (1, 1), 1, 0.4237, (0.3682, 0.4741), 93.64),
        Row("Human-B", (2, 3), 2, 0.1, (0.05, 0.2), 90.0, human=True),
        Row("x$#{y}~^\\z", (2, 3), 2, -0.0004, (-0.2, 0.1), 80.05),
        Row("weak", (4, 4), 3, -1.23456, (-1.5, -1.0), 20.0),
    ]
    return RankingTable("en-de", PROTOCOLS["da"], rows)


def test_latex_escape_by_hand() -> None:
    assert latex_escape(AWKWARD) == r"A\&B\_C\%"
    assert latex_escape("x$#{y}~^\\z") == (
        r"x\$\#\{y\}\textasciitilde{}\textasciicircum{}\textbackslash{}z"
    )
    assert latex_escape("plain-name.v2") == "plain-name.v2"


def test_numbers_to_the_protocols_precision() -> None:
    assert number(0.42374, PROTOCOLS["da"].digits) == "0.424"
    assert number(93.64, PROTOCOLS["da"].secondary_digits) == "93.6"
    assert number(-0.0004, 3) == "0.000"  # no negative zero
    assert number(-1.23456, 3, minus="−") == "−1.235"
    assert number(math.nan, 2) == "–"
    assert PROTOCOLS["esa"].digits == 1 and PROTOCOLS["mqm"].digits == 2


def test_latex_table_structure() -> None:
    source = latex_table(da_table())
    lines = source.splitlines()
    assert lines.count(r"\toprule") == 1 and lines.count(r"\bottomrule") == 1
    # One \midrule under the header, then one at each of the two cluster boundaries.
    assert [i for i, line in enumerate(lines) if line == r"\midrule"] == [6, 8, 11]
    assert lines[5] == r"Rank & Cluster & System & z & 95\% CI & raw \\"
    assert lines[7] == r"1 & 1 & A\&B\_C\% & 0.424 & [0.368, 0.474] & 93.6 \\"
    assert lines[9] == (
        r"2--3 & 2 & \textit{Human-B}\textsuperscript{\dag} & 0.100 & [0.050, 0.200] & 90.0 \\"
    )
    assert lines[10].startswith(
        r"2--3 & 2 & x\$\#\{y\}\textasciitilde{}\textasciicircum{}\textbackslash{}z & 0.000 & "
        r"[$-$0.200, 0.100]"
    )
    assert lines[12] == r"4 & 3 & weak & $-$1.235 & [$-$1.500, $-$1.000] & 20.0 \\"
    assert r"\begin{tabular}{rrlrrr}" in source
    assert r"\dag{} human translation" in source


def test_latex_document_is_complete() -> None:
    source = latex_document([da_table(), da_table()])
    assert source.startswith(r"\documentclass{article}")
    assert r"\usepackage{booktabs}" in source
    assert source.count(r"\begin{table}") == 2
    assert source.rstrip().endswith(r"\end{document}")


def test_typst_strings_keep_markup_characters() -> None:
    assert typst_string('a "b" \\ #c *d* _e_ $f$ [g] <h> @i') == (
        '"a \\"b\\" \\\\ #c *d* _e_ $f$ [g] <h> @i"'
    )


@pytest.fixture(scope="module")
def awkward_pdf() -> bytes:
    return tables_pdf([da_table()])


def test_typst_compiles_to_pdf(awkward_pdf: bytes) -> None:
    assert awkward_pdf.startswith(b"%PDF")
    source = typst_document([da_table()])
    assert source.count("table.hline(stroke: 0.05em)") == 3  # header + two cluster rules
    assert "fill: (x, y) => if y in (2,) { luma(232) }," in source
    assert '"x$#{y}~^\\\\z"' in source


def _page_text(pdf: bytes, tmp_path: Path) -> str:
    path = tmp_path / "table.pdf"
    path.write_bytes(pdf)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")
def test_pdf_shows_escaped_names_as_written(awkward_pdf: bytes, tmp_path: Path) -> None:
    text = _page_text(awkward_pdf, tmp_path)
    assert AWKWARD in text
    assert "x$#{y}~^\\z" in text
    assert "−1.235" in text and "[−1.500, −1.000]" in text


def test_broken_source_is_a_compile_error() -> None:
    from metrics.report.pdf import CompileError

    with pytest.raises(CompileError):
        compile_typst("#table(columns: 2, [a]")


def test_rows_out_of_cluster_order_are_refused() -> None:
    with pytest.raises(ValueError, match="ranked order"):
        RankingTable("x", PROTOCOLS["mqm"], [Row("a", (1, 2), 2, 1.0), Row("b", (1, 2), 1, 2.0)])


def _cli(tmp_path: Path, table: str, *extra: str) -> Path:
    output = tmp_path / f"ranking.{table}"
    arguments = ["human", "--judgments", str(ESA_EXPORT), "--format", "appraise"]
    arguments += ["--bootstrap", "200", "--human-reference", "wmt23.refA"]
    assert main([*arguments, "--table", table, "--output", str(output), *extra]) == 0
    return output


def test_cli_latex_of_real_wmt23_judgments(tmp_path: Path) -> None:
    source = _cli(tmp_path, "latex").read_text()
    rows = [line for line in source.splitlines() if line.count(" & ") == 5 and "Rank" not in line]
    # 15 systems (13 WMT23 en-de outputs and refA ranked as one, plus two tutorial systems).
    assert len(rows) == 15
    assert rows[0].startswith(r"1--4 & 1 & wmt23.ONLINE-W & 0.424 & ")
    assert r"\textit{wmt23.refA}\textsuperscript{\dag}" in rows[1]
    assert r"wmt23.NLLB\_MBR\_BLEU" in source
    # Two clusters: the rule under the header and one between them.
    assert source.count(r"\midrule") == 2
    boundary = source.splitlines().index(r"\midrule", source.splitlines().index(rows[0]))
    assert "ende-tutorial1" in source.splitlines()[boundary + 1]


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils not installed")
def test_cli_pdf_renders(tmp_path: Path) -> None:
    pdf = _cli(tmp_path, "pdf")
    assert pdf.read_bytes().startswith(b"%PDF")
    subprocess.run(
        ["pdftoppm", "-r", "100", "-png", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "page")],
        check=True,
    )
    png = next(tmp_path.glob("page*.png"))
    assert png.read_bytes().startswith(b"\x89PNG")
    text = _page_text(pdf.read_bytes(), tmp_path)
    assert "wmt23.NLLB_MBR_BLEU" in text and "eng-deu" in text


def test_cli_typst_goes_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["human", "--judgments", str(ESA_EXPORT), "--format", "appraise"]
    assert main([*arguments, "--bootstrap", "50", "--table", "typst"]) == 0
    source = capsys.readouterr().out
    assert source.startswith("#set page") and source.count("#figure(") == 1
    assert compile_typst(source).startswith(b"%PDF")


def test_cli_output_needs_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    arguments = ["human", "--judgments", str(ESA_EXPORT), "--format", "appraise"]
    assert main([*arguments, "--output", str(tmp_path / "x")]) == 2
    assert "--output goes with --table" in capsys.readouterr().err


MQM_TSV = DATA / "mqm-ted-zh-en" / "mqm_ted_zhen.tsv"


def test_mqm_table_prints_the_published_figures(tmp_path: Path) -> None:
    """MQM to two decimals, lower first: Freitag et al.'s TED zh-en system scores."""
    output = tmp_path / "mqm.tex"
    arguments = ["mqm", "--tsv", str(MQM_TSV), "--bootstrap", "0", "--table", "latex"]
    arguments += ["--human-reference", "ref", "--human-reference", "refB"]
    assert main([*arguments, "--output", str(output)]) == 0
    rows = [line.split(" & ") for line in output.read_text().splitlines() if "&" in line]
    header, rows = rows[0], rows[1:]
    assert header == ["Rank", "Cluster", "System", "MQM", r"95\% CI \\"]
    printed = {row[2]: row[3] for row in rows}
    assert printed[r"\textit{refB}\textsuperscript{\dag}"] == "0.42"
    assert printed["DIDI-NLP"] == "1.65" and printed["metricsystem3"] == "2.99"
    assert printed[r"\textit{ref}\textsuperscript{\dag}"] == "5.52"
    scores = [float(row[3]) for row in rows]
    assert scores == sorted(scores)  # lower is better, best first
    assert "lower is better" in output.read_text()


def test_esa_table_to_one_decimal(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["esa", "--appraise", str(ESA_EXPORT), "--bootstrap", "0", "--table", "typst"]
    arguments += ["--exclude-system", "ende-tutorial1", "--exclude-system", "ende-tutorial2"]
    assert main([*arguments, "--human-reference", "wmt23.refA"]) == 0
    source = capsys.readouterr().out
    assert 'emph("wmt23.refA") + super("†"), "93.9",' in source
    assert source.count('"wmt23.') == 13 and '"ESA"' in source
    assert compile_typst(source).startswith(b"%PDF")


def test_cli_one_table_per_language_pair_in_ranked_order(tmp_path: Path) -> None:
    """Two pairs in one evalsite judgment file: a table each, pairs sorted, rows by rank."""
    import csv

    import numpy as np

    rng = np.random.default_rng(3)
    quality = {"en-de": {"good": 85, "mid": 60, "Human_A": 90}, "cs-en": {"x&y": 40, "z": 70}}
    path = tmp_path / "judgments.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["annotator", "language_pair", "system", "segment_id", "item_type", "score"]
        )
        for pair, systems in quality.items():
            for annotator in ("a1", "a2", "a3"):
                for system, mean in systems.items():
                    for segment in range(40):
                        score = float(np.clip(round(mean + rng.normal(0, 10)), 0, 100))
                        writer.writerow([annotator, pair, system, f"s{segment}", "TGT", score])
    output = tmp_path / "tables.tex"
    arguments = ["human", "--judgments", str(path), "--bootstrap", "100"]
    arguments += ["--human-reference", "Human_A", "--table", "latex", "--output", str(output)]
    assert main(arguments) == 0
    source = output.read_text()
    assert source.count(r"\begin{table}") == 2
    assert source.index(r"\caption{cs-en") < source.index(r"\caption{en-de")
    names = [line.split(" & ")[2] for line in source.splitlines() if line.count(" & ") == 5]
    assert names == [
        "System", "z", r"x\&y",  # cs-en: header, then z first
        "System", r"\textit{Human\_A}\textsuperscript{\dag}", "good", "mid",
    ]  # fmt: skip
    # Each pair's systems are separated into clusters (they differ by 15 points or more).
    assert source.count(r"\midrule") == 2 + 1 + 2
