"""`python -m metrics meta`, run in-process on small TSV files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from metrics.cli import main

GOLD = [1, 2, 2, 3, 4]
METRIC = [2, 1, 1.5, 5, 3]


def write(path: Path, rows: list[tuple[str, str, float]], header: bool = True) -> Path:
    lines = ["system\tsegment\tscore"] if header else []
    lines += [f"{system}\t{segment}\t{score}" for system, segment, score in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["meta", *argv, "--json", "--bootstrap", "200"]) == 0
    return json.loads(capsys.readouterr().out)


def test_one_item_reproduces_mt_metrics_eval_vectors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    systems = [f"sys{i}" for i in range(5)]
    human = write(tmp_path / "da.tsv", [(s, "1", g) for s, g in zip(systems, GOLD, strict=True)])
    metric = write(
        tmp_path / "m.tsv", [(s, "1", m) for s, m in zip(systems, METRIC, strict=True)], False
    )
    document = run_json(capsys, "--human", str(human), "--metric", str(metric))
    assert (document["systems"], document["segments"]) == (5, 1)
    result = document["metrics"]["m"]
    segment, system = result["segment"], result["system"]
    assert segment["acc23"]["value"] == pytest.approx(0.6)
    assert segment["acc23_tie_optimised"]["value"] == pytest.approx(0.7)
    assert system["pairwise_accuracy"]["value"] == pytest.approx(0.6)
    assert system["pearson"] == pytest.approx(stats.pearsonr(GOLD, METRIC).statistic)
    assert system["kendall_tau_b"] == pytest.approx(0.316227766)
    # WMT's threshold of 25 leaves no pair among scores 1-4: tau is undefined.
    assert segment["kendall_like"]["value"] is None


def test_lower_is_better_sides_and_named_metrics(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rng = np.random.default_rng(0)
    quality = rng.normal(size=(4, 30)) * 30
    rows = lambda matrix: [  # noqa: E731
        (f"s{i}", f"seg{j}", float(matrix[i, j])) for i in range(4) for j in range(30)
    ]
    mqm = write(tmp_path / "mqm.tsv", rows(-quality))  # error points: lower is better
    good = write(tmp_path / "good.tsv", rows(quality + rng.normal(size=quality.shape)))
    ter = write(tmp_path / "ter.tsv", rows(-quality + rng.normal(size=quality.shape)))
    document = run_json(
        capsys,
        "--human", str(mqm), "--human-lower-better",
        "--metric", f"comet={good}", "--metric", str(ter), "--lower-better", "ter",
    )  # fmt: skip
    for name in ("comet", "ter"):
        result = document["metrics"][name]
        assert result["system"]["pairwise_accuracy"]["value"] == pytest.approx(1.0)
        assert result["segment"]["kendall_like"]["value"] > 0.9
        assert result["segment"]["items"] == 30


def test_table_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    systems = [f"sys{i}" for i in range(5)]
    human = write(tmp_path / "da.tsv", [(s, "1", g) for s, g in zip(systems, GOLD, strict=True)])
    metric = write(tmp_path / "m.tsv", [(s, "1", m) for s, m in zip(systems, METRIC, strict=True)])
    assert main(["meta", "--human", str(human), "--metric", str(metric), "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert "5 systems, 1 segments" in out
    assert " 0.700 " in out  # tie-optimised acc23


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("a\t1\n", "line 1: expected 3 tab-separated fields"),
        ("a\t1\tx\n", "line 1: score 'x' is not a number"),
        ("a\t1\t2\na\t1\t3\n", "line 2: system 'a', segment '1' appears twice"),
        ("a\t1\tnan\n", "is not finite"),
        ("# nothing\n", "no scores"),
    ],
)
def test_bad_files_are_refused_with_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text(content, encoding="utf-8")
    good = write(tmp_path / "good.tsv", [("a", "1", 1.0), ("b", "1", 2.0)])
    assert main(["meta", "--human", str(good), "--metric", str(bad)]) == 2
    assert message in capsys.readouterr().err


def test_refusals(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = write(tmp_path / "good.tsv", [("a", "1", 1.0), ("b", "1", 2.0)])
    other = write(tmp_path / "other.tsv", [("a", "9", 1.0), ("b", "9", 2.0)])
    missing = str(tmp_path / "missing.tsv")
    cases = [
        (["--metric", missing], "missing.tsv"),
        (["--metric", str(good), "--lower-better", "ter"], "--lower-better names no metric"),
        (["--metric", str(good), "--metric", str(good)], "two metrics have one name"),
        (["--metric", str(other)], "scores none of the human file's segments"),
    ]
    for extra, message in cases:
        assert main(["meta", "--human", str(good), *extra]) == 2
        assert message in capsys.readouterr().err
    latin = tmp_path / "latin.tsv"
    latin.write_bytes("é\t1\t2\n".encode("latin-1"))
    assert main(["meta", "--human", str(latin), "--metric", str(good)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
