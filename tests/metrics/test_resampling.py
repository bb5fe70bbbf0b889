"""metrics.resampling against sacrebleu's significance module (same seed, same sample counts)."""

from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.significance import PairedTest, _bootstrap_resample

from metrics import automatic, resampling, signatures

WMT17 = Path(__file__).resolve().parents[1] / "data" / "wmt17-en-de"
BASELINE = "LIUM-NMT"
# Close to the baseline and to each other, so that the p-values are not all at their floor.
OTHERS = ("LMU-nmt-single", "online-B", "xmu")
SACRE = {"bleu": BLEU, "chrf": CHRF, "ter": TER}


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


@pytest.fixture(autouse=True)
def _sacrebleu_default_seed(monkeypatch):
    # sacrebleu's baseline interval reads its seed from the environment.
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)


@pytest.fixture(scope="module")
def ref() -> list[str]:
    return read_lines(WMT17 / "reference.txt")


@pytest.fixture(scope="module")
def hyps() -> dict[str, list[str]]:
    names = (BASELINE, *OTHERS)
    return {n: read_lines(next(WMT17.glob(f"newstest2017.{n}.*.en-de.txt"))) for n in names}


@pytest.fixture(scope="module")
def stats(hyps, ref) -> dict[str, dict[str, np.ndarray]]:
    out = {}
    for metric in ("bleu", "chrf"):
        arrays = automatic.extract_statistics_many(metric, list(hyps.values()), [ref], jobs=2)
        out[metric] = dict(zip(hyps, arrays, strict=True))
    return out


def sacrebleu_paired(test_type, metric, names, hyps, ref, n_segments=None):
    named = [(name, hyps[name][:n_segments]) for name in names]
    sacre = SACRE[metric](references=[ref[:n_segments]])
    sigs, table = PairedTest(named, {metric: sacre}, None, test_type=test_type, n_samples=0)()
    (key,) = (k for k in table if k != "System")
    return sigs[key].format(), table[key]


@pytest.mark.parametrize(
    ("metric", "names"), [("bleu", (BASELINE, *OTHERS)), ("chrf", (BASELINE, *OTHERS[1:]))]
)
def test_paired_bootstrap_equals_sacrebleu(metric, names, stats, hyps, ref):
    signature, expected = sacrebleu_paired("bs", metric, names, hyps, ref)
    ours = resampling.paired_bootstrap(metric, {n: stats[metric][n] for n in (BASELINE, *OTHERS)})
    assert [e.name for e in ours.systems] == [BASELINE, *OTHERS]
    assert len(ours.pairs) == 6
    for name, result in zip(names, expected, strict=True):
        estimate = ours.systems[[e.name for e in ours.systems].index(name)]
        assert estimate.score == pytest.approx(result.score, abs=1e-9)
        assert estimate.mean == pytest.approx(float(result.mean), abs=1e-6)
        assert estimate.half_width == pytest.approx(float(result.ci), abs=1e-6)
    for name, result in zip(names[1:], expected[1:], strict=True):
        assert ours.pair(BASELINE, name).p_value == pytest.approx(result.p_value, abs=1e-6)
    assert {p.p_value for p in ours.pairs} != {1 / 1001}  # some are not at the floor
    assert signatures.signature(metric, bs=1000, seed=12345) == signature


def test_paired_bootstrap_any_pair_equals_sacrebleu_with_that_baseline(stats, hyps, ref):
    names = (BASELINE, *OTHERS)
    ours = resampling.paired_bootstrap("bleu", {n: stats["bleu"][n] for n in names})
    _, expected = sacrebleu_paired("bs", "bleu", ("online-B", "xmu"), hyps, ref)
    assert ours.pair("online-B", "xmu").p_value == pytest.approx(expected[1].p_value, abs=1e-6)
    assert ours.pair("xmu", "online-B").p_value == ours.pair("online-B", "xmu").p_value


@pytest.mark.parametrize(
    ("metric", "names"),
    [("bleu", (BASELINE, "LMU-nmt-single", "online-B")), ("chrf", (BASELINE, "online-B"))],
)
def test_paired_approximate_randomization_equals_sacrebleu(metric, names, stats, hyps, ref):
    # sacrebleu's randomisation takes seconds per system, hence fewer systems for chrF.
    signature, expected = sacrebleu_paired("ar", metric, names, hyps, ref)
    ours = resampling.paired_approximate_randomization(
        metric, {n: stats[metric][n] for n in (BASELINE, *OTHERS)}
    )
    assert ours.n_trials == 10000 and len(ours.pairs) == 6
    for name, result in zip(names[1:], expected[1:], strict=True):
        assert ours.pair(BASELINE, name).p_value == pytest.approx(result.p_value, abs=1e-6)
    # sacrebleu's AR reports no interval; ours adds a 1000-resample bootstrap.
    assert signatures.signature(metric, ar=10000, seed=12345) == signature


def test_paired_tests_on_ter_equal_sacrebleu(hyps, ref):
    names, n = (BASELINE, "online-B", "xmu"), 150
    arrays = automatic.extract_statistics_many("ter", [hyps[x][:n] for x in names], [ref[:n]])
    systems = dict(zip(names, arrays, strict=True))
    for test_type, run in (
        ("bs", resampling.paired_bootstrap),
        ("ar", resampling.paired_approximate_randomization),
    ):
        _, expected = sacrebleu_paired(test_type, "ter", names, hyps, ref, n)
        ours = run("ter", systems)
        for name, result in zip(names[1:], expected[1:], strict=True):
            assert ours.pair(BASELINE, name).p_value == pytest.approx(result.p_value, abs=1e-6)
            if test_type == "bs":
                estimate = ours.systems[names.index(name)]
                assert estimate.mean == pytest.approx(float(result.mean), abs=1e-6)
                assert estimate.half_width == pytest.approx(float(result.ci), abs=1e-6)


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_bootstrap_ci_equals_sacrebleu_confidence(metric, stats, hyps, ref):
    # sacrebleu --confidence is corpus_score(n_bootstrap=1000) with the seed 12345.
    sacre = SACRE[metric](references=[ref])
    expected = sacre.corpus_score(hyps["xmu"], None, n_bootstrap=1000)
    ours = resampling.bootstrap_ci(metric, stats[metric]["xmu"], name="xmu")
    assert ours.score == pytest.approx(expected.score, abs=1e-9)
    assert ours.mean == pytest.approx(float(expected._mean), abs=1e-6)
    assert ours.half_width == pytest.approx(float(expected._ci), abs=1e-6)
    _, resampled = _bootstrap_resample(stats[metric]["xmu"].tolist(), sacre, 1000)
    ordered = sorted(float(s.score) for s in resampled)
    assert (ours.low, ours.high) == pytest.approx((ordered[25], ordered[974]), abs=1e-6)
    assert ours.low <= ours.mean <= ours.high
    assert signatures.signature(metric, bs=1000, seed=12345) == sacre.get_signature().format()


def test_same_seed_same_numbers(stats):
    systems = {n: stats["chrf"][n] for n in (BASELINE, *OTHERS)}
    assert resampling.paired_bootstrap("chrf", systems, seed=7) == resampling.paired_bootstrap(
        "chrf", systems, seed=7
    )
    ar = resampling.paired_approximate_randomization
    assert ar("chrf", systems, n_trials=500, seed=7) == ar("chrf", systems, n_trials=500, seed=7)
    once = resampling.bootstrap_ci("bleu", stats["bleu"]["xmu"], seed=3, half=True)
    assert once == resampling.bootstrap_ci("bleu", stats["bleu"]["xmu"], seed=3, half=True)
    other = resampling.bootstrap_ci("bleu", stats["bleu"]["xmu"], seed=4, half=True)
    assert (once.low, once.high) != (other.low, other.high)


def test_win_shares_equal_sacrebleu_scored_resamples(stats):
    # Independent: sacrebleu's score function on sacrebleu's index draw.
    a, b = stats["bleu"]["online-B"], stats["bleu"]["xmu"]
    idx = np.random.default_rng(12345).choice(len(a), size=(1000, len(a)), replace=True)
    score = BLEU()._compute_score_from_stats
    sa = np.array([score(a[i].sum(0).astype(np.float32)).score for i in idx])
    sb = np.array([score(b[i].sum(0).astype(np.float32)).score for i in idx])
    pair = resampling.paired_bootstrap("bleu", {"B": a, "X": b}).pair("B", "X")
    assert pair.win_a == np.mean(sa > sb)
    assert pair.win_b == np.mean(sa < sb)
    assert pair.win_a + pair.win_b + pair.tie == pytest.approx(1.0)
    assert pair.delta == pytest.approx(score(a.sum(0)).score - score(b.sum(0)).score)


def test_ter_wins_mean_lower_is_better():
    # System "good" has fewer edits everywhere: it must win every resample.
    rng = np.random.default_rng(1)
    ref_len = rng.integers(5, 30, size=200).astype(float)
    good = np.stack([np.floor(ref_len * 0.2), ref_len], axis=1)
    bad = np.stack([np.floor(ref_len * 0.6), ref_len], axis=1)
    result = resampling.paired_bootstrap("ter", {"good": good, "bad": bad})
    assert result.pair("good", "bad").win_a == 1.0
    assert result.pair("bad", "good").win_a == 0.0


def test_half_size_subsampling(stats):
    a = stats["bleu"]["xmu"]
    indices = resampling.resample_indices(len(a), 1000, 12345, half=True)
    assert indices.shape == (1000, len(a) // 2)
    assert all(len(set(row)) == len(a) // 2 for row in indices[:50])
    ours = resampling.bootstrap_ci("bleu", a, half=True)
    score = BLEU()._compute_score_from_stats
    expected = sorted(score(a[row].sum(0).astype(np.float32)).score for row in indices)
    assert (ours.low, ours.high) == pytest.approx((expected[25], expected[974]), abs=1e-9)
    # Half-samples without replacement have the variance of the full-size bootstrap.
    full = resampling.bootstrap_ci("bleu", a)
    assert 0.8 < ours.half_width / full.half_width < 1.25


def test_single_run_stack_equals_single_run(stats):
    base, other = stats["bleu"][BASELINE], stats["bleu"]["xmu"]
    flat = {"a": base, "b": other}
    stacked = {"a": base[None], "b": other[None]}
    assert resampling.paired_bootstrap("bleu", flat) == resampling.paired_bootstrap("bleu", stacked)
    ar = resampling.paired_approximate_randomization
    assert ar("bleu", flat, n_trials=2000) == ar("bleu", stacked, n_trials=2000)
    assert resampling.bootstrap_ci("bleu", base) == resampling.bootstrap_ci("bleu", base[None])
    assert resampling.bootstrap_ci("bleu", base).run_std is None


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_runs_pooled_like_multeval(metric, stats, hyps, ref):
    n = 1000  # segments, to keep sacrebleu's share of the test short
    run_names = OTHERS  # stand-ins for three training runs of one system
    runs = np.stack([stats[metric][name][:n] for name in run_names])
    result = resampling.paired_bootstrap(
        metric, {"runs": runs, "base": stats[metric][BASELINE][:n]}
    )
    estimate = result.systems[0]
    sacre = SACRE[metric]()
    # Pooled score = score of all runs concatenated against the repeated reference.
    concatenated = [line for name in run_names for line in hyps[name][:n]]
    pooled = sacre.corpus_score(concatenated, [ref[:n] * len(run_names)]).score
    assert estimate.score == pytest.approx(pooled, abs=1e-9)
    # Per-run scores, their mean and sample standard deviation (Clark et al. 2011).
    cached = SACRE[metric](references=[ref[:n]])
    per_run = [cached.corpus_score(hyps[name][:n], None).score for name in run_names]
    assert estimate.run_scores == pytest.approx(per_run, abs=1e-9)
    assert estimate.run_mean == pytest.approx(statistics.mean(per_run), abs=1e-9)
    assert estimate.run_std == pytest.approx(statistics.stdev(per_run), abs=1e-9)
    # A resample draws a segment with all its runs.
    indices = resampling.resample_indices(n, 5, 12345)
    resampled = resampling.resampled_scores(metric, [resampling.pool_runs(runs)], indices)[0]
    for row, value in zip(indices, resampled, strict=True):
        expected = sacre._compute_score_from_stats(runs[:, row].sum(axis=(0, 1))).score
        assert value == pytest.approx(expected, abs=1e-9)


def test_run_order_does_not_matter(stats):
    runs = np.stack([stats["chrf"][n] for n in OTHERS])
    other = stats["chrf"][BASELINE]
    first = resampling.paired_approximate_randomization(
        "chrf", {"r": runs, "x": other}, n_trials=2000
    )
    second = resampling.paired_approximate_randomization(
        "chrf", {"r": runs[::-1], "x": other}, n_trials=2000
    )
    assert first.pairs == second.pairs
    a, b = first.systems[0], second.systems[0]
    assert (a.score, a.mean, a.low, a.high) == (b.score, b.mean, b.low, b.high)
    assert a.run_std == pytest.approx(b.run_std)
    assert sorted(a.run_scores) == sorted(b.run_scores)


def test_pairs_cover_every_pair_in_order(stats):
    names = (BASELINE, *OTHERS)
    result = resampling.paired_bootstrap("bleu", {n: stats["bleu"][n] for n in names})
    assert [(p.a, p.b) for p in result.pairs] == [
        (names[i], names[j]) for i in range(4) for j in range(i + 1, 4)
    ]
    reverse = resampling.paired_bootstrap("bleu", {n: stats["bleu"][n] for n in names[::-1]})
    for pair in result.pairs:
        swapped = reverse.pair(pair.a, pair.b)
        assert swapped.p_value == pair.p_value
        assert (swapped.win_a, swapped.win_b, swapped.delta) == (
            pair.win_a,
            pair.win_b,
            pytest.approx(pair.delta),
        )
    with pytest.raises(KeyError):
        result.pair(BASELINE, "nobody")


def test_errors(stats):
    a = stats["bleu"]["xmu"]
    with pytest.raises(ValueError, match="at least two"):
        resampling.paired_bootstrap("bleu", {"a": a})
    with pytest.raises(ValueError, match="share segments"):
        resampling.paired_bootstrap("bleu", {"a": a, "b": a[:-1]})
    with pytest.raises(ValueError, match="expected"):
        resampling.bootstrap_ci("bleu", a[None, None])
