"""metrics.automatic against sacrebleu's own API and the official WMT21 scores."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from metrics import automatic, signatures

WMT21 = Path(__file__).resolve().parents[1] / "data" / "wmt21-en-de"


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


@pytest.fixture(scope="module")
def refs() -> dict[str, list[str]]:
    return {r: read_lines(WMT21 / f"newstest2021.en-de.ref.{r}.de") for r in "ACD"}


@pytest.fixture(scope="module")
def systems() -> dict[str, list[str]]:
    paths = sorted((WMT21 / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))
    return {
        p.name.removeprefix("newstest2021.en-de.hyp.").removesuffix(".de"): read_lines(p)
        for p in paths
    }


@pytest.fixture(scope="module")
def stats_a(refs, systems) -> dict[str, dict[str, np.ndarray]]:
    """Our statistics against reference A, once per metric (chrF and TER in two processes)."""
    out = {}
    for metric, jobs in (("bleu", 1), ("chrf", 2), ("ter", 2)):
        arrays = automatic.extract_statistics_many(
            metric, list(systems.values()), [refs["A"]], jobs=jobs
        )
        out[metric] = dict(zip(systems, arrays, strict=True))
    return out


@pytest.fixture(scope="module")
def official() -> dict[tuple[str, str], float]:
    with (WMT21 / "automatic-scores.en-de.tsv").open(encoding="utf-8") as handle:
        return {
            (row["system"], row["metric"]): float(row["score"])
            for row in csv.DictReader(handle, delimiter="\t")
        }


def test_data_has_twenty_systems(systems, refs):
    assert len(systems) == 20
    assert all(len(lines) == 1002 for lines in [*systems.values(), *refs.values()])


def test_corpus_bleu_equals_sacrebleu_for_all_systems(stats_a, systems, refs):
    bleu = BLEU(references=[refs["A"]])
    for name, hyps in systems.items():
        expected = bleu.corpus_score(hyps, None).score
        assert automatic.corpus_score("bleu", stats_a["bleu"][name]) == pytest.approx(
            expected, abs=1e-9
        )


def test_corpus_chrf_equals_sacrebleu_for_all_systems(stats_a, systems, refs):
    chrf = CHRF(references=[refs["A"]])  # caches the reference n-grams, as sacrebleu's CLI
    for name, hyps in systems.items():
        expected = chrf.corpus_score(hyps, None).score
        assert automatic.corpus_score("chrf", stats_a["chrf"][name]) == pytest.approx(
            expected, abs=1e-9
        )


def test_corpus_ter_equals_sacrebleu_for_all_systems(stats_a, systems, refs):
    # sacrebleu's TER takes seconds per system: its own score function is applied to the
    # statistics extracted once, and its corpus_score runs end to end on part of one system.
    ter = TER()
    for stats in stats_a["ter"].values():
        expected = ter._aggregate_and_compute(stats.tolist()).score
        assert automatic.corpus_score("ter", stats) == pytest.approx(expected, abs=1e-9)
    n = 250
    expected = ter.corpus_score(systems["HuaweiTSC"][:n], [refs["A"][:n]]).score
    ours = automatic.corpus_score("ter", stats_a["ter"]["HuaweiTSC"][:n])
    assert ours == pytest.approx(expected, abs=1e-9)


def test_official_wmt21_bleu_and_chrf(stats_a, official):
    # The file holds full double precision (sacrebleu's defaults against reference A).
    for name in stats_a["bleu"]:
        for metric in ("bleu", "chrf"):
            ours = automatic.corpus_score(metric, stats_a[metric][name])
            assert ours == pytest.approx(official[(name, f"{metric}-A")], abs=1e-9)


def test_multi_reference_bleu_equals_sacrebleu(systems, refs):
    streams = [refs["A"], refs["C"], refs["D"]]
    arrays = automatic.extract_statistics_many("bleu", list(systems.values()), streams)
    bleu = BLEU(references=streams)
    for hyps, stats in zip(systems.values(), arrays, strict=True):
        expected = bleu.corpus_score(hyps, None).score
        assert automatic.corpus_score("bleu", stats) == pytest.approx(expected, abs=1e-9)


def test_chrf_plus_plus_equals_sacrebleu(systems, refs):
    streams = [refs["A"][:400], refs["C"][:400]]
    for hyps in [lines[:400] for lines in list(systems.values())[:2]]:
        stats = automatic.extract_statistics("chrf++", hyps, streams)
        expected = CHRF(word_order=2).corpus_score(hyps, streams).score
        assert stats.shape == (400, automatic.n_statistics("chrf++"))
        assert automatic.corpus_score("chrf++", stats) == pytest.approx(expected, abs=1e-9)


def test_statistics_are_sacrebleus(stats_a, systems, refs):
    name = "Facebook-AI"
    for metric, sacre in (
        ("bleu", BLEU()),
        ("chrf", CHRF()),
        ("ter", TER()),
    ):
        rows = sacre._extract_corpus_statistics(systems[name][:60], [refs["A"][:60]])
        ours = stats_a[metric][name]
        assert ours.dtype == np.float64
        assert ours.shape == (1002, automatic.n_statistics(metric))
        assert np.array_equal(ours[:60], np.array(rows, dtype=np.float64))


@pytest.mark.parametrize(
    ("metric", "options", "sacre"),
    [
        ("bleu", {"tokenize": "intl", "lowercase": True}, BLEU(tokenize="intl", lowercase=True)),
        ("bleu", {"tokenize": "char"}, BLEU(tokenize="char")),
        ("chrf", {"lowercase": True}, CHRF(lowercase=True)),
        ("chrf++", {"lowercase": True}, CHRF(word_order=2, lowercase=True)),
        ("ter", {"lowercase": False}, TER(case_sensitive=True)),
        ("ter", {"lowercase": True}, TER()),
    ],
)
def test_options_and_signatures(metric, options, sacre, systems, refs):
    hyps, streams = systems["UEdin"][:40], [refs["A"][:40], refs["D"][:40]]
    expected = sacre.corpus_score(hyps, streams)
    stats = automatic.extract_statistics(metric, hyps, streams, **options)
    assert automatic.corpus_score(metric, stats) == pytest.approx(expected.score, abs=1e-9)
    assert signatures.signature(metric, n_refs=2, **options) == sacre.get_signature().format()


@pytest.mark.parametrize(
    ("metric", "sacre"),
    [("bleu", BLEU()), ("chrf", CHRF()), ("chrf++", CHRF(word_order=2)), ("ter", TER())],
)
def test_default_signatures(metric, sacre, systems, refs):
    sacre.corpus_score(systems["UF"][:20], [refs["A"][:20]])
    assert signatures.signature(metric) == sacre.get_signature().format()


def test_scores_from_sums_equal_sacrebleu_row_by_row(stats_a):
    # Single segments exercise the corner cases (no 4-gram match, short segments, empty
    # hypotheses); resample-like sums exercise the corpus case. float32 rows take sacrebleu's
    # float32 arithmetic, float64 rows its integer one.
    rng = np.random.default_rng(0)
    sacre = {"bleu": BLEU(), "chrf": CHRF(), "ter": TER()}
    for metric, metric_obj in sacre.items():
        segments = stats_a[metric]["Online-W"]
        picks = rng.integers(0, len(segments), size=(30, len(segments)))
        for rows in (segments[:300], segments[picks].sum(axis=1)):
            for dtype in (np.float32, np.float64):
                sums = rows.astype(dtype)
                ours = automatic.scores_from_sums(metric, sums)
                expected = [
                    metric_obj._compute_score_from_stats(
                        row if dtype is np.float32 else [int(x) for x in row]
                    ).score
                    for row in sums
                ]
                # chrF and TER are bit-identical; BLEU's last log/exp may differ in the last bit.
                rtol = 1e-13 if metric == "bleu" else 0.0
                np.testing.assert_allclose(ours, np.array(expected, dtype=ours.dtype), rtol=rtol)


def test_empty_and_degenerate_segments():
    hyps = ["", "a", "a b c", "Das ist gut .", ""]
    refs = [["", "b", "a b c", "Das ist gut .", "x y"]]
    for metric, sacre in (("bleu", BLEU()), ("chrf", CHRF()), ("ter", TER())):
        stats = automatic.extract_statistics(metric, hyps, refs)
        for row in stats:
            expected = sacre._compute_score_from_stats([int(x) for x in row]).score
            assert automatic.scores_from_sums(metric, row[None])[0] == pytest.approx(expected)


def test_sentence_bleu_plus_one_by_hand():
    hyp, ref = "the cat sat on the mat", "the cat is on the mat"
    # 1-grams 5/6; 2-grams 3/5 -> 4/6; 3-grams 1/4 -> 2/5; 4-grams 0/3 -> 1/4; no brevity penalty.
    expected = 100 * (5 / 6 * 4 / 6 * 2 / 5 * 1 / 4) ** 0.25
    assert automatic.sentence_bleu_plus_one([hyp], [[ref]])[0] == pytest.approx(expected)
    # Short hypothesis: BP = exp(1 - 6/3); 1-grams 2/3, 2-grams (1+1)/(2+1), 3-grams (0+1)/(1+1),
    # 4-grams (0+1)/(0+1).
    short = automatic.sentence_bleu_plus_one(["the cat sat"], [[ref]])[0]
    assert short == pytest.approx(100 * math.exp(1 - 6 / 3) * (2 / 3 * 2 / 3 * 1 / 2 * 1) ** 0.25)
    assert automatic.sentence_bleu_plus_one(["dog"], [[ref]])[0] == 0.0


def test_sentence_scores_equal_sacrebleu(systems, refs):
    hyps, streams = systems["ICL"][:40], [refs["A"][:40], refs["C"][:40]]
    plus_one = BLEU(smooth_method="add-k", smooth_value=1)
    for metric, sacre in (("bleu", plus_one), ("chrf", CHRF()), ("ter", TER())):
        stats = automatic.extract_statistics(metric, hyps, streams)
        ours = automatic.sentence_scores(metric, stats)
        expected = [
            sacre.sentence_score(h, [r1, r2]).score
            for h, r1, r2 in zip(hyps, *streams, strict=True)
        ]
        np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)


def test_serialisation_round_trip(stats_a):
    for metric in ("bleu", "chrf", "ter"):
        stats = stats_a[metric]["WeChat-AI"]
        data = automatic.stats_to_bytes(stats)
        assert len(data) == stats.size * 8
        back = automatic.stats_from_bytes(metric, data)
        assert back.dtype == np.float64 and back.flags.writeable and back.flags.c_contiguous
        assert np.array_equal(back, stats)
        assert automatic.corpus_score(metric, back) == automatic.corpus_score(metric, stats)


def test_errors(refs):
    with pytest.raises(ValueError, match="unknown metric"):
        automatic.extract_statistics("bleurt", ["a"], [["a"]])
    with pytest.raises(ValueError, match="applies to BLEU"):
        automatic.extract_statistics("chrf", ["a"], [["a"]], tokenize="13a")
    with pytest.raises(ValueError, match="unknown tokenizer"):
        automatic.make_metric("bleu", tokenize="nonsense")
    with pytest.raises(ValueError, match="2 segments but there are 1 hypotheses"):
        automatic.extract_statistics("bleu", ["a"], [["a", "b"]])
    with pytest.raises(ValueError, match="needs 10 statistics"):
        automatic.scores_from_sums("bleu", np.ones((2, 3)))
    assert automatic.SACREBLEU_METRICS == ("bleu", "chrf", "chrf++", "ter")
    assert automatic.METRICS[:4] == automatic.SACREBLEU_METRICS
    assert automatic.check_metric("chrF++") == "chrf++"
