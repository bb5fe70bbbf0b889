"""ESA rankings as WMT24: domain means, Wilcoxon + Stouffer, clusters, and the `esa` command."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy import stats

from metrics.cli import main
from metrics.spans import rank_esa

ESA_EXPORT = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "esa-appraise-export"
    / ("240521rc6ESA.scores.csv")
)
TUTORIALS = ["--exclude-system", "ende-tutorial1", "--exclude-system", "ende-tutorial2"]


def test_system_score_is_the_mean_over_domains_of_segment_means():
    # System A: news segments 80 and (70, 90 by two annotators -> 80), speech segment 40.
    # Per domain: news 80, speech 40 -> 60. B: news 50, speech 90 and 70 -> 80 -> 65.
    judgments = [
        ("A", "n1", "news", 80),
        ("A", "n2", "news", 70),
        ("A", "n2", "news", 90),
        ("A", "s1", "speech", 40),
        ("B", "n1", "news", 50),
        ("B", "s1", "speech", 90),
        ("B", "s2", "speech", 70),
    ]
    systems, segments, domains, scores = zip(*judgments, strict=True)
    ranking = rank_esa(scores, systems, segments, domains=domains, n_boot=0)
    assert [(s.system, s.score) for s in ranking.systems] == [("B", 65.0), ("A", 60.0)]
    assert [(s.segments, s.judgments) for s in ranking.systems] == [(3, 3), (3, 4)]
    assert ranking.domains == ["news", "speech"]
    plain = rank_esa(scores, systems, segments, n_boot=0)
    # Without domains: the mean of segment means, A (80 + 80 + 40) / 3, B (50 + 90 + 70) / 3.
    assert {s.system: s.score for s in plain.systems} == pytest.approx({"A": 200 / 3, "B": 70.0})


def test_p_values_are_one_sided_wilcoxon_per_domain_combined_with_stouffer():
    rng = np.random.default_rng(11)
    table = {}
    rows = []
    for domain, shift in (("news", 6.0), ("social", 2.0), ("speech", -1.0)):
        for segment in range(25):
            base = rng.uniform(40, 95)
            for system, offset in (("A", shift), ("B", 0.0)):
                score = float(np.clip(round(base + offset + rng.normal(0, 6)), 0, 100))
                key = f"{domain}-{segment}"
                if system == "B" and segment == 0:
                    continue  # not shared: must be left out of the paired test
                table[(system, key)] = score
                rows.append((system, key, domain, score))
    systems, segments, domains, scores = zip(*rows, strict=True)
    ranking = rank_esa(scores, systems, segments, domains=domains, n_boot=0)
    forward, backward = [], []
    for domain in ("news", "social", "speech"):
        shared = [f"{domain}-{i}" for i in range(1, 25)]
        a = [table[("A", k)] for k in shared]
        b = [table[("B", k)] for k in shared]
        forward.append(stats.wilcoxon(a, b, alternative="greater").pvalue)
        backward.append(stats.wilcoxon(b, a, alternative="greater").pvalue)
    expected = stats.combine_pvalues(forward, method="stouffer").pvalue
    assert ranking.p_values["A"]["B"] == pytest.approx(expected, rel=1e-12)
    assert ranking.p_values["B"]["A"] == pytest.approx(
        stats.combine_pvalues(backward, method="stouffer").pvalue, rel=1e-12
    )


def test_clusters_and_rank_ranges_follow_significance():
    rng = np.random.default_rng(2)
    rows = []
    # "top" and "also-top" are indistinguishable; "bottom" is far below both.
    for segment in range(40):
        base = rng.uniform(50, 90)
        for system, offset in (("top", 5.0), ("also-top", 5.0), ("bottom", -25.0)):
            rows.append((system, str(segment), base + offset + rng.normal(0, 3)))
    systems, segments, scores = zip(*rows, strict=True)
    ranking = rank_esa(scores, systems, segments, n_boot=200)
    by_name = {s.system: s for s in ranking.systems}
    assert by_name["bottom"].cluster == 2 and by_name["bottom"].rank_range == (3, 3)
    assert by_name["top"].cluster == by_name["also-top"].cluster == 1
    assert by_name["top"].rank_range == by_name["also-top"].rank_range == (1, 2)
    low, high = by_name["bottom"].interval
    assert low < by_name["bottom"].score < high


def test_inconsistent_domains_are_refused():
    with pytest.raises(ValueError, match="different domains"):
        rank_esa([1, 2], ["A", "B"], ["s1", "s1"], domains=["news", "speech"])
    with pytest.raises(ValueError, match="one entry per judgment"):
        rank_esa([1, 2], ["A"], ["s1", "s1"])


def _independent_segment_means() -> dict[str, list[float]]:
    """Per system, the TGT rows' segment means, computed with the csv module alone."""
    with open(ESA_EXPORT, encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.reader(handle) if r[3] == "TGT" and "tutorial" not in r[1]]
    by_task: dict[tuple[str, str], list[list[str]]] = defaultdict(list)
    for row in rows:
        by_task[(row[0], row[7])].append(row)
    per_segment: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (_, document), task_rows in by_task.items():
        task_rows.sort(key=lambda r: int(r[2]))
        for position, row in enumerate(task_rows):
            per_segment[(row[1], f"{document.rsplit('#', 1)[0]}#{position}")].append(float(row[6]))
    means: dict[str, list[float]] = defaultdict(list)
    for (system, _), values in per_segment.items():
        means[system].append(sum(values) / len(values))
    return means


def test_esa_command_ranks_the_shared_export(capsys):
    code = main(["esa", "--appraise", str(ESA_EXPORT), "--json", "--bootstrap", "100", *TUTORIALS])
    out, _ = capsys.readouterr()
    assert code == 0
    report = json.loads(out)
    expected = _independent_segment_means()
    assert {s["system"] for s in report["systems"]} == set(expected)
    for system in report["systems"]:
        values = expected[system["system"]]
        assert system["score"] == pytest.approx(sum(values) / len(values))
        assert system["segments"] == len(values)
    scores = [s["score"] for s in report["systems"]]
    assert scores == sorted(scores, reverse=True)
    spans = {s["system"]: s for s in report["spans"]}
    # Independent span count for one system from the raw JSON column.
    with open(ESA_EXPORT, encoding="utf-8", newline="") as handle:
        airc = [
            json.loads(r[9]) for r in csv.reader(handle) if r[1] == "wmt23.AIRC" and r[3] == "TGT"
        ]
    assert spans["wmt23.AIRC"]["spans"] == sum(len(s) for s in airc)
    assert spans["wmt23.AIRC"]["missing"] == sum(e["start_i"] == "missing" for s in airc for e in s)
    assert spans["wmt23.AIRC"]["judgments"] == len(airc)
    assert report["errors"]["systems"] == [s["system"] for s in report["systems"]]


def test_esa_command_with_domains_and_as_a_table(tmp_path, capsys):
    with open(ESA_EXPORT, encoding="utf-8", newline="") as handle:
        documents = sorted({r[7].rsplit("#", 1)[0] for r in csv.reader(handle)})
    domains = tmp_path / "domains.tsv"
    domains.write_text(
        "".join(f"{d}\t{'social' if '.1103' in d else 'news'}\n" for d in documents),
        encoding="utf-8",
    )
    code = main(
        [
            "esa",
            "--appraise",
            str(ESA_EXPORT),
            "--domains",
            str(domains),
            "--json",
            "--bootstrap",
            "0",
            *TUTORIALS,
        ]
    )
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["domains"] == ["news", "social"]
    code = main(["esa", "--appraise", str(ESA_EXPORT), "--bootstrap", "20", *TUTORIALS])
    out, _ = capsys.readouterr()
    assert code == 0 and "wmt23.refA" in out and "missing" in out


def test_esa_command_refuses_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,1\n", encoding="utf-8")
    assert main(["esa", "--appraise", str(bad)]) == 2
    _, err = capsys.readouterr()
    assert "line 1: expected 12 fields" in err
    only_bad = tmp_path / "bad-items.csv"
    only_bad.write_text("a,b,1,BAD,eng,deu,50,d#b,False,[],1,2\n", encoding="utf-8")
    assert main(["esa", "--appraise", str(only_bad)]) == 2
    _, err = capsys.readouterr()
    assert "no judgments" in err


def test_esa_command_agreement_matches_krippendorff_on_the_export(capsys):
    code = main(["esa", "--appraise", str(ESA_EXPORT), "--json", "--bootstrap", "0"])
    out, _ = capsys.readouterr()
    assert code == 0
    agreement = json.loads(out)["agreement"]
    # Independently: a reliability matrix annotator x (system, document, position) of TGT rows.
    with open(ESA_EXPORT, encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.reader(handle) if r[3] == "TGT"]
    by_task: dict[tuple[str, str], list[list[str]]] = defaultdict(list)
    for row in rows:
        by_task[(row[0], row[7])].append(row)
    cells: dict[tuple[str, str], float] = {}
    for (login, document), task_rows in by_task.items():
        for position, row in enumerate(sorted(task_rows, key=lambda r: int(r[2]))):
            cells.setdefault(
                (login, f"{row[1]}|{document.rsplit('#', 1)[0]}#{position}"), float(row[6])
            )
    logins = sorted({k[0] for k in cells})
    units = sorted({k[1] for k in cells})
    matrix = np.full((len(logins), len(units)), np.nan)
    for (login, unit), value in cells.items():
        matrix[logins.index(login), units.index(unit)] = value
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    assert agreement["krippendorff_alpha"] == pytest.approx(expected, rel=1e-9)
    assert agreement["annotator_pairs"] > 0
    assert 0 < agreement["span_f1_with_severity"] <= agreement["span_f1"] < 1


def test_every_pair_is_tested_on_its_own_shared_segments():
    # Four systems over 30 segments with gaps: the pairs share different sets of segments,
    # two share all of theirs, and C equals D on every segment they share (no test: NaN).
    rng = np.random.default_rng(8)
    scores = {}
    for system, gaps in (("A", ()), ("B", range(0, 30, 4)), ("C", range(1, 30, 5)), ("D", ())):
        for segment in range(30):
            if segment not in gaps:
                scores[(system, segment)] = float(rng.integers(30, 100))
    for segment in range(30):
        if ("C", segment) in scores:
            scores[("D", segment)] = scores[("C", segment)]
    keys = sorted(scores)
    ranking = rank_esa(
        [scores[k] for k in keys], [k[0] for k in keys], [str(k[1]) for k in keys], n_boot=0
    )
    for first in "ABCD":
        for second in "ABCD":
            if first == second:
                continue
            shared = [s for s in range(30) if (first, s) in scores and (second, s) in scores]
            x = [scores[(first, s)] for s in shared]
            y = [scores[(second, s)] for s in shared]
            if x == y:
                assert np.isnan(ranking.p_values[first][second])
                continue
            expected = stats.wilcoxon(x, y, alternative="greater").pvalue
            assert ranking.p_values[first][second] == pytest.approx(expected, rel=1e-12)


def test_non_finite_scores_are_refused():
    with pytest.raises(ValueError, match="finite"):
        rank_esa([50.0, float("nan")], ["A", "B"], ["s1", "s1"])
    with pytest.raises(ValueError, match="no judgments"):
        rank_esa([], [], [])
