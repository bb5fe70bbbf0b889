"""`python -m metrics human`, run in-process on judgment files written by the tests."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from metrics.cli import main

SYSTEMS = {"strong": 80.0, "middle": 60.0, "weak": 30.0}


def write_judgments(path: Path, seed: int = 0) -> list[dict[str, str]]:
    """Five careful annotators and one careless one who scores bad references like originals."""
    rng = np.random.default_rng(seed)
    rows = []
    for annotator in ["ann1", "ann2", "ann3", "ann4", "ann5", "careless"]:
        for system, quality in SYSTEMS.items():
            for segment in range(30):
                score = float(np.clip(round(quality + rng.normal(0, 12)), 0, 100))
                rows.append((annotator, system, segment, "TGT", score))
                if segment % 5 == 0:
                    bad = (
                        score
                        if annotator == "careless"
                        else max(0.0, score - 35 + rng.normal(0, 5))
                    )
                    rows.append((annotator, system, segment, "BAD", round(bad)))
                if segment % 7 == 0:
                    rows.append((annotator, system, segment, "REPEAT", score))
        rows.append((annotator, "REF", 0, "CHK", 100.0))
    written = []
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["annotator", "language_pair", "system", "segment_id", "item_type",
                         "score", "comment"])  # fmt: skip
        for annotator, system, segment, kind, score in rows:
            writer.writerow([annotator, "en-de", system, f"seg{segment}", kind, score, "x"])
            written.append(
                {"annotator": annotator, "system": system, "segment": str(segment),
                 "kind": kind, "score": str(score)}
            )  # fmt: skip
    return written


def test_synthetic_judgments_verdicts_and_ranking(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "judgments.csv"
    rows = write_judgments(path)
    assert main(["human", "--judgments", str(path), "--json", "--bootstrap", "100"]) == 0
    section = json.loads(capsys.readouterr().out)["language_pairs"]["en-de"]

    systems = section["systems"]
    assert [s["system"] for s in systems] == ["strong", "middle", "weak"]
    assert [s["cluster"] for s in systems] == [1, 2, 3]
    assert [s["rank_range"] for s in systems] == [[1, 1], [2, 2], [3, 3]]
    for s in systems:
        raw = [float(r["score"]) for r in rows if r["system"] == s["system"] and r["kind"] == "TGT"]
        # Every segment is judged by all six annotators: the mean of segment means is the mean.
        assert s["raw"] == pytest.approx(np.mean(raw))
        assert s["segments"] == 30

    verdicts = {a["annotator"]: a for a in section["annotators"]}
    assert verdicts["careless"]["passed"] is False
    assert verdicts["careless"]["verdict"] == "failed"
    for name in ("ann1", "ann2", "ann3", "ann4", "ann5"):
        tgt = {(r["system"], r["segment"]): float(r["score"])
               for r in rows if r["annotator"] == name and r["kind"] == "TGT"}  # fmt: skip
        bad = [(tgt[(r["system"], r["segment"])], float(r["score"]))
               for r in rows if r["annotator"] == name and r["kind"] == "BAD"]  # fmt: skip
        expected = stats.ttest_rel(*zip(*bad, strict=True), alternative="greater").pvalue
        assert verdicts[name]["bad_reference_p"] == pytest.approx(expected)
        assert verdicts[name]["passed"] is True
        assert verdicts[name]["judgments"] == sum(r["annotator"] == name for r in rows)
        assert verdicts[name]["repeat_exact_share"] == 1.0


def test_table_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "judgments.csv"
    write_judgments(path)
    assert main(["human", "--judgments", str(path), "--bootstrap", "20"]) == 0
    out = capsys.readouterr().out
    assert "en-de" in out and "strong" in out and "careless" in out and "failed" in out


def test_appraise_export(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Headerless Appraise rows, direct (9 columns) and document (11 columns) layouts."""
    rng = np.random.default_rng(1)
    path = tmp_path / "scores.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        for user in ("u1", "u2", "u3"):
            for system, quality in SYSTEMS.items():
                for item in range(20):
                    score = round(quality + rng.normal(0, 10))
                    start = 1_700_000_000 + item * 60
                    if user == "u3":
                        writer.writerow([user, system, item, "TGT", "eng", "deu", score,
                                         "doc1", "False", start, start + 12])  # fmt: skip
                    else:
                        writer.writerow([user, system, item, "TGT", "eng", "deu", score,
                                         start, start + 20])  # fmt: skip
    assert main(["human", "--judgments", str(path), "--format", "appraise", "--json",
                 "--bootstrap", "20"]) == 0  # fmt: skip
    section = json.loads(capsys.readouterr().out)["language_pairs"]["eng-deu"]
    assert [s["system"] for s in section["systems"]] == ["strong", "middle", "weak"]
    times = {a["annotator"]: a["median_seconds"] for a in section["annotators"]}
    assert times == {"u1": 20.0, "u2": 20.0, "u3": 12.0}
    assert all(a["verdict"] == "not enough data" for a in section["annotators"])


def test_reference_can_be_ranked_as_a_system(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "judgments.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["annotator", "language_pair", "system", "segment_id", "item_type", "score"]
        )
        for annotator in ("a", "b"):
            for segment in range(10):
                writer.writerow([annotator, "en-de", "sys", segment, "TGT", 50 + segment])
                writer.writerow([annotator, "en-de", "reference", segment, "REF", 90 + segment])
    assert main(["human", "--judgments", str(path), "--json", "--bootstrap", "10",
                 "--reference-as", "Human"]) == 0  # fmt: skip
    systems = json.loads(capsys.readouterr().out)["language_pairs"]["en-de"]["systems"]
    assert [s["system"] for s in systems] == ["Human", "sys"]
    assert main(["human", "--judgments", str(path), "--json", "--bootstrap", "10"]) == 0
    systems = json.loads(capsys.readouterr().out)["language_pairs"]["en-de"]["systems"]
    assert [s["system"] for s in systems] == ["sys"]


@pytest.mark.parametrize(
    ("content", "fmt", "message"),
    [
        ("annotator,system\nx,y\n", "evalsite", "line 1: header lacks column(s) language_pair"),
        (
            "annotator,language_pair,system,segment_id,item_type,score\na,en-de,s,1,TGT,high\n",
            "evalsite",
            "line 2: score is 'high'",
        ),
        (
            "annotator,language_pair,system,segment_id,item_type,score\na,en-de,s,1,XYZ,5\n",
            "evalsite",
            "line 2: item type 'XYZ'",
        ),
        ("u1,sys,1,TGT,eng\n", "appraise", "line 1: expected 9 or 11 fields, found 5"),
    ],
)
def test_bad_input_exits_2_with_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, fmt: str, message: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert main(["human", "--judgments", str(path), "--format", fmt]) == 2
    captured = capsys.readouterr()
    assert f"{path}, {message}" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""
