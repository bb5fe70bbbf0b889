"""`python -m metrics agreement`, run in-process."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from metrics.cli import main
from tests.metrics.test_agreement import (
    WMT13,
    WMT16,
    WMT16_PUBLISHED,
    reference_kappa,
    reference_labels,
)


def run_json(capsys: pytest.CaptureFixture[str], path: Path, *options: str) -> dict[str, Any]:
    command = ["agreement", "--rankings", str(path), "--json", "--bootstrap", "50", *options]
    assert main(command) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", sorted(WMT16_PUBLISHED))
def test_wmt16_published_figures_by_default(capsys: pytest.CaptureFixture[str], name: str) -> None:
    document = run_json(capsys, WMT16 / name)
    assert document["item_order"] == "listed"
    (section,) = document["language_pairs"].values()
    for kind, published in WMT16_PUBLISHED[name].items():
        shown = tuple(round(section[kind][key], 3) for key in ("kappa", "p_a", "p_e"))
        assert shown == published
        low, high = section[kind]["interval"]
        assert low < section[kind]["kappa"] < high


@pytest.mark.parametrize("name", sorted(WMT16_PUBLISHED))
def test_order_free_option(capsys: pytest.CaptureFixture[str], name: str) -> None:
    document = run_json(capsys, WMT16 / name, "--order-free")
    assert document["item_order"] == "order-free"
    (section,) = document["language_pairs"].values()
    for kind in ("inter", "intra"):
        expected = reference_kappa(reference_labels(WMT16 / name, listed=False), kind == "intra")
        shown = tuple(section[kind][key] for key in ("kappa", "p_a", "p_e"))
        assert shown == pytest.approx(expected, abs=1e-12)
    assert main(["agreement", "--rankings", str(WMT16 / name), "--order-free"]) == 0
    assert "order-free" in capsys.readouterr().out


def test_wmt13_sample_json(capsys: pytest.CaptureFixture[str]) -> None:
    document = run_json(capsys, WMT13)
    section = document["language_pairs"]["French-English"]
    for kind in ("inter", "intra"):
        kappa, p_a, p_e = reference_kappa(reference_labels(WMT13), intra=kind == "intra")
        assert section[kind]["kappa"] == pytest.approx(kappa)
        assert section[kind]["p_a"] == pytest.approx(p_a)
        assert section[kind]["p_e"] == pytest.approx(p_e)
        assert section[kind]["items"] > 0


def test_pairwise_format_gives_the_same_kappa(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The WMT13 rankings rewritten as WMT16-style pairwise rows agree with the 5-way file."""
    pairwise = tmp_path / "pairwise.csv"
    with open(WMT13, newline="") as source, open(pairwise, "w", newline="") as target:
        writer = csv.writer(target)
        writer.writerow(
            [
                "srclang",
                "trglang",
                "srcIndex",
                "segmentId",
                "judgeID",
                "system1Id",
                "system1rank",
                "system2Id",
                "system2rank",
                "rankingID",
            ]
        )
        for ranking_id, row in enumerate(csv.DictReader(source)):
            ranked = [
                (row[f"system{k}Id"], row[f"system{k}rank"])
                for k in range(1, 6)
                if row[f"system{k}rank"] != "-1"
            ]
            for i, (x, rx) in enumerate(ranked):
                for y, ry in ranked[i + 1 :]:
                    writer.writerow(
                        [row["srclang"], row["trglang"], row["srcIndex"], row["segmentId"],
                         row["judgeId"], x, rx, y, ry, ranking_id]
                    )  # fmt: skip
    five_way = run_json(capsys, WMT13)["language_pairs"]["French-English"]
    two_way = run_json(capsys, pairwise)["language_pairs"]["French-English"]
    for kind in ("inter", "intra"):
        assert two_way[kind]["kappa"] == pytest.approx(five_way[kind]["kappa"])
        assert two_way[kind]["items"] == five_way[kind]["items"]


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement", "--rankings", str(WMT13), "--bootstrap", "20"]) == 0
    out = capsys.readouterr().out
    assert "French-English" in out and "inter" in out and "intra" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("srclang,trglang\nfr,en\n", "line 1"),
        (
            "srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,"
            "system2rank,rankingID\nfr,en,1,1,j,A,first,B,2,1\n",
            "line 2",
        ),
        ("", "empty"),
    ],
)
def test_bad_input_exits_2_with_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert main(["agreement", "--rankings", str(path)]) == 2
    captured = capsys.readouterr()
    assert str(path) in captured.err and message in captured.err
    assert "Traceback" not in captured.err
