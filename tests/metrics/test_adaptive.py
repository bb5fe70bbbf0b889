"""metrics.adaptive: the stopping rule, the budget planner and the simulator on campaigns
with a known answer (issue 23, sections 2 and 3)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import mannwhitneyu
from statsmodels.stats.power import NormalIndPower

from metrics.adaptive import detectable_difference, judgments_needed, ranking_status
from metrics.adaptive.simulate import Settings, build_campaign, full_ranking, replay
from metrics.cli import main

POLICIES = ("uniform", "adaptive", "pearmut", "racing")


def synthetic(means: list[float], segments: int, seed: int, sd: float = 1.0):
    """One judgment per (system, segment): the segment's difficulty plus the system's mean
    plus noise."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 0.5 * sd, segments)
    systems, segment_ids, scores = [], [], []
    for i, mean in enumerate(means):
        noise = rng.normal(0.0, sd, segments)
        systems += [f"sys{i}"] * segments
        segment_ids += [str(s) for s in range(segments)]
        scores += list(mean + difficulty + noise)
    return systems, segment_ids, np.asarray(scores)


# -- the budget planner ---------------------------------------------------------------------


def test_fixed_design_is_the_textbook_formula_and_statsmodels() -> None:
    # By hand: 2 (1.95996 + 0.84162)^2 / 0.5^2 = 62.79 -> 63 per system.
    budget = judgments_needed(sd=1.0, min_difference=0.5, systems=4, design="fixed")
    assert budget.per_system == 63
    assert budget.total == 4 * 63
    for sd, diff, alpha, power in [(1.0, 0.5, 0.05, 0.8), (20.0, 3.0, 0.01, 0.9)]:
        ours = judgments_needed(
            sd=sd, min_difference=diff, systems=2, alpha=alpha, power=power, design="fixed"
        ).per_system
        theirs = NormalIndPower().solve_power(
            effect_size=diff / sd, alpha=alpha, power=power, ratio=1.0
        )
        assert ours == int(np.ceil(theirs))


def test_the_esa_convention_mann_whitney_reaches_the_planned_power() -> None:
    """ErrorSpanAnnotation's power analysis simulates a one-sided Mann-Whitney test at alpha
    0.05; our fixed design at two-sided 0.10 (the same z) divided by its efficiency 0.955
    should give that test about 0.8 power on normal scores."""
    per_system = judgments_needed(
        sd=10.0, min_difference=4.0, systems=2, alpha=0.10, design="fixed"
    ).per_system
    n = int(np.ceil(per_system / 0.955))
    rng = np.random.default_rng(7)
    better = rng.normal(4.0, 10.0, (4000, n))
    worse = rng.normal(0.0, 10.0, (4000, n))
    p = mannwhitneyu(better, worse, alternative="greater", axis=1).pvalue
    assert abs(float((p < 0.05).mean()) - 0.8) < 0.03


def test_sequential_design_has_its_power_under_the_stopping_rule() -> None:
    budget = judgments_needed(sd=1.0, min_difference=0.3, systems=2)
    fixed = judgments_needed(sd=1.0, min_difference=0.3, systems=2, design="fixed")
    assert budget.per_system > fixed.per_system  # the price of looking after every judgment
    n = budget.per_system
    rng = np.random.default_rng(3)
    runs = 2000
    a, b = rng.normal(0.3, 1.0, (runs, n)), rng.normal(0.0, 1.0, (runs, n))
    # Did the rule resolve the pair by n (at any look)? Check it at 20 looks up to n.
    resolved = np.zeros(runs, dtype=bool)
    for m in np.linspace(n / 20, n, 20).astype(int):
        count = np.full((runs, 2), float(m))
        total = np.stack([a[:, :m].sum(1), b[:, :m].sum(1)], axis=1)
        squares = np.stack([(a[:, :m] ** 2).sum(1), (b[:, :m] ** 2).sum(1)], axis=1)
        from metrics.adaptive.status import RESOLVED, adjacent_pairs

        pairs = adjacent_pairs(count, total, squares, tuned_for=n)
        resolved |= (pairs.status[:, 0] == RESOLVED) & (pairs.order[:, 0] == 0)
    assert 0.8 <= resolved.mean() <= 0.95  # at least the power asked for, not far above


def test_detectable_difference_inverts_the_planner() -> None:
    budget = judgments_needed(sd=15.0, min_difference=5.0, systems=6)
    smallest = detectable_difference(sd=15.0, per_system=budget.per_system, systems=6)
    assert 4.9 < smallest <= 5.0


def test_planner_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="SD"):
        judgments_needed(sd=0.0, min_difference=1.0, systems=3)
    with pytest.raises(ValueError, match="two systems"):
        judgments_needed(sd=1.0, min_difference=1.0, systems=1)
    with pytest.raises(ValueError, match="design"):
        judgments_needed(sd=1.0, min_difference=1.0, systems=3, design="bayes")


# -- the stopping rule -------------------------------------------------------------------


def test_ranking_status_orders_resolves_and_declares_equivalence() -> None:
    rng = np.random.default_rng(1)
    scores = {
        "good": list(rng.normal(80, 10, 300)),
        "twin": list(rng.normal(80, 10, 300)),
        "bad": list(rng.normal(50, 10, 300)),
    }
    strict = ranking_status(scores)
    assert strict.order[-1] == "bad"
    assert [p.status for p in strict.pairs] == ["open", "resolved"]
    assert not strict.settled
    lenient = ranking_status(scores, delta=10.0)
    assert [p.status for p in lenient.pairs] == ["equivalent", "resolved"]
    assert lenient.settled
    low, high = lenient.pairs[1].interval
    assert 0 < low < lenient.pairs[1].difference < high
    # Ordered and also within a wide margin: reported ordered (the clusters follow it).
    wide = ranking_status(scores, delta=100.0)
    assert [p.status for p in wide.pairs] == ["equivalent", "resolved"]


def test_ranking_status_lower_is_better() -> None:
    status = ranking_status(
        {"clean": [0.0, 1.0] * 50, "sloppy": [5.0, 9.0] * 50}, lower_is_better=True
    )
    assert status.order == ["clean", "sloppy"]
    assert status.pairs[0].status == "resolved"
    assert status.pairs[0].difference < 0


# -- the simulator on campaigns with a known answer -----------------------------------------


def test_well_separated_systems_stop_early_and_right() -> None:
    campaign = build_campaign(*synthetic([0.0, 1.5, 3.0, 4.5], segments=300, seed=11))
    for policy in POLICIES:
        result = replay(campaign, policy, replays=40, seed=5)
        assert result.resolved.all(), policy
        assert np.median(result.judgments_at_stop) < 0.2 * campaign.budget, policy
        assert not result.wrong.any(), policy
        assert (result.ordered == 3).all(), policy


def test_identical_systems_are_declared_equivalent_never_ordered() -> None:
    campaign = build_campaign(*synthetic([1.0, 1.0, 1.0], segments=400, seed=12))
    settings = Settings(delta=0.6)
    for policy in POLICIES:
        result = replay(campaign, policy, replays=40, settings=settings, seed=6)
        assert result.resolved.all(), policy
        assert (result.ordered == 0).all(), policy
    # Without a margin they can only run out of budget, still unordered.
    strict = replay(campaign, "adaptive", replays=20, seed=6)
    assert not strict.resolved.any()
    assert (strict.ordered == 0).all()


def test_wrong_order_rate_near_the_null_stays_below_alpha() -> None:
    campaign = build_campaign(*synthetic([0.0, 0.05, 0.1, 0.15, 0.2], segments=400, seed=13))
    for policy in ("uniform", "adaptive"):
        result = replay(campaign, policy, replays=200, seed=8)
        assert result.wrong.mean() <= 0.05, policy


def test_adaptive_spends_less_than_uniform_on_a_mixed_campaign() -> None:
    # Two close systems among well-separated ones: uniform keeps judging the separated ones.
    campaign = build_campaign(*synthetic([0.0, 2.0, 2.4, 4.5, 6.5], segments=600, seed=14))
    uniform = replay(campaign, "uniform", replays=40, seed=9)
    adaptive = replay(campaign, "adaptive", replays=40, seed=9)
    pearmut = replay(campaign, "pearmut", replays=40, seed=9)
    assert np.median(adaptive.judgments_at_stop) <= 0.6 * np.median(uniform.judgments_at_stop)
    assert np.median(adaptive.judgments_at_stop) < np.median(pearmut.judgments_at_stop)
    assert not adaptive.wrong.any()


def test_full_ranking_clusters() -> None:
    campaign = build_campaign(*synthetic([0.0, 0.02, 3.0], segments=300, seed=15))
    order, clusters = full_ranking(campaign, Settings())
    assert order == ["sys2", "sys1", "sys0"] or order == ["sys2", "sys0", "sys1"]
    assert clusters == [["sys2"], order[1:]]


# -- the command line ----------------------------------------------------------------------


def _write_csv(path: Path, means: list[float], segments: int, seed: int) -> Path:
    systems, segment_ids, scores = synthetic(means, segments, seed)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["annotator", "language_pair", "system", "segment_id", "item_type", "score"]
        )
        for k, (system, segment, score) in enumerate(
            zip(systems, segment_ids, scores, strict=True)
        ):
            writer.writerow([f"a{k % 7}", "en-de", system, segment, "TGT", f"{score:.4f}"])
        # Quality-control items are not replayed.
        writer.writerow(["a0", "en-de", "sys0", "0", "BAD", "-100"])
    return path


def _run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["simulate", *arguments])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json_shape_and_determinism(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write_csv(tmp_path / "j.csv", [0.0, 1.0, 3.0], segments=150, seed=21)
    arguments = ["--judgments", str(data), "--replays", "30", "--seed", "4", "--json"]
    code, out, _ = _run(capsys, *arguments)
    assert code == 0
    report = json.loads(out)
    assert list(report) == ["language_pairs"]
    pair = report["language_pairs"]["en-de"]
    assert set(pair) == {"full", "policies"}
    assert pair["full"]["order"] == ["sys2", "sys1", "sys0"]
    assert pair["full"]["clusters"] == [["sys2"], ["sys1"], ["sys0"]]
    assert pair["full"]["judgments"] == 450
    assert list(pair["policies"]) == ["uniform", "adaptive", "pearmut"]
    for result in pair["policies"].values():
        assert set(result) == {"judgments_at_stop", "stopped", "wrong_order_rate"}
        assert set(result["judgments_at_stop"]) == {"median", "p10", "p90"}
        assert set(result["stopped"]) == {"resolved", "budget"}
        assert sum(result["stopped"].values()) == 30
        spent = result["judgments_at_stop"]
        assert spent["p10"] <= spent["median"] <= spent["p90"] <= 450
        assert 0.0 <= result["wrong_order_rate"] <= 1.0
    assert _run(capsys, *arguments)[1] == out  # the same seed, the same replays
    assert _run(capsys, *arguments[:-3], "--seed", "5", "--json")[1] != out


def test_cli_lower_is_better_flips_the_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _write_csv(tmp_path / "j.csv", [0.0, 3.0], segments=100, seed=22)
    code, out, _ = _run(
        capsys, "--judgments", str(data), "--lower-is-better", "--replays", "5", "--json"
    )
    assert code == 0
    assert json.loads(out)["language_pairs"]["en-de"]["full"]["order"] == ["sys0", "sys1"]


def test_cli_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write_csv(tmp_path / "j.csv", [0.0, 1.0], segments=20, seed=23)
    code, _, err = _run(capsys, "--judgments", str(data), "--policies", "uniform,greedy")
    assert code == 2
    assert "unknown policy greedy" in err
    code, _, err = _run(capsys, "--judgments", str(tmp_path / "missing.csv"))
    assert code == 2
    assert "cannot read file" in err
    code, _, err = _run(capsys, "--judgments", str(data), "--replays", "0")
    assert code == 2
    assert "--replays" in err


def test_still_needed_estimates_the_remaining_judgments() -> None:
    rng = np.random.default_rng(4)
    settled = ranking_status({"a": list(rng.normal(5, 1, 200)), "b": list(rng.normal(0, 1, 200))})
    assert settled.settled
    assert settled.still_needed == 0.0
    # An open pair 0.3 apart with 60 judgments each: the estimate brings the total near what
    # the planner asks for such a pair.
    a, b = rng.normal(0.0, 1.0, 60), rng.normal(0.0, 1.0, 60)
    a += 0.3 - (a.mean() - b.mean())  # exactly 0.3 apart
    status = ranking_status({"a": list(a), "b": list(b)}, tuned_for=300)
    assert not status.settled
    planned = judgments_needed(sd=1.0, min_difference=0.3, systems=2, power=0.5).total
    assert 0.6 * planned < 120 + status.still_needed < 1.6 * planned
    # Equal means and no margin: it can never settle.
    same = ranking_status({"a": [0.0, 1.0] * 30, "b": [1.0, 0.0] * 30})
    assert same.still_needed == float("inf")
    # Too few judgments: at least the minimum is still needed.
    early = ranking_status({"a": [1.0, 2.0], "b": [9.0, 8.0, 9.5]})
    assert early.still_needed >= 15


def test_system_priorities_favour_the_open_pair() -> None:
    from metrics.adaptive import system_priorities

    rng = np.random.default_rng(5)
    scores = {
        "best": list(rng.normal(90, 5, 100)),
        "close_a": list(rng.normal(60, 10, 100)),
        "close_b": list(rng.normal(59, 10, 40)),
        "new": [50.0, 52.0],
    }
    priorities = system_priorities(scores)
    assert priorities["new"] == float("inf")  # still in the cold start
    cold_done = system_priorities({k: v for k, v in scores.items() if k != "new"})
    assert cold_done["best"] == 0.0  # both its pairs are settled
    # The open pair's less-judged side gains most from one more judgment.
    assert cold_done["close_b"] > cold_done["close_a"] > 0.0


def test_pearmut_draws_systems_in_proportion_to_one_over_rank() -> None:
    from metrics.adaptive.policies import pearmut
    from metrics.adaptive.status import adjacent_pairs

    rows = 30_000
    means = np.array([0.0, 5.0, 2.0])  # ranks: system 1 first, then 2, then 0
    count = np.full((rows, 3), 50.0)
    pairs = adjacent_pairs(count, count * means, count * (means**2 + 1.0), tuned_for=50)
    choice = pearmut(count, np.full(3, 1e9), pairs, 10, np.random.default_rng(0), 1)[:, 0]
    shares = np.bincount(choice, minlength=3) / rows
    expected = np.array([1 / 3, 1.0, 1 / 2]) / (1 + 1 / 2 + 1 / 3)
    assert np.allclose(shares, expected, atol=0.01)
    # During the cold start it judges the systems that still need it, least-judged first.
    count[:, 2] = 3.0
    assert (pearmut(count, np.full(3, 1e9), pairs, 10, np.random.default_rng(0), 1) == 2).all()


# -- paired intervals (the two systems of a pair on the same segments) ----------------------


def hard_segments(means: list[float], segments: int, seed: int):
    """One judgment per (system, segment), segments differing far more than the noise: a
    paired interval removes the difficulty, an unpaired one cannot."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 2.0, segments)
    systems, segment_ids, scores = [], [], []
    for i, mean in enumerate(means):
        systems += [f"sys{i}"] * segments
        segment_ids += [str(s) for s in range(segments)]
        scores += list(mean + difficulty + rng.normal(0.0, 1.0, segments))
    return systems, segment_ids, np.asarray(scores)


def test_paired_replays_stop_sooner_and_stay_right() -> None:
    campaign = build_campaign(*hard_segments([0.0, 0.6, 1.2, 3.0], segments=500, seed=31))
    paired, unpaired = Settings(paired=True), Settings()
    spent = {}
    for policy in POLICIES:
        result = replay(campaign, policy, replays=30, settings=paired, seed=2)
        assert not result.wrong.any(), policy
        assert result.resolved.all(), policy
        spent[policy] = float(np.median(result.judgments_at_stop))
    alone = replay(campaign, "uniform", replays=30, settings=unpaired, seed=2)
    assert spent["uniform"] < 0.5 * np.median(alone.judgments_at_stop)
    assert spent["adaptive"] < spent["uniform"]


def test_paired_wrong_order_rate_near_the_null_stays_below_alpha() -> None:
    campaign = build_campaign(*hard_segments([0.0, 0.03, 0.06, 0.09], segments=400, seed=32))
    for policy in ("uniform", "adaptive", "pearmut"):
        result = replay(campaign, policy, replays=200, settings=Settings(paired=True), seed=3)
        assert result.wrong.mean() <= 0.05, policy


def test_pair_matcher_pairs_by_segment_and_pass() -> None:
    """Uneven coverage and several judgments per cell: the matcher's sums equal pairing
    each judgment with the other system's judgment of the same segment in the same pass
    over its segments, computed here by brute force."""
    from metrics.adaptive.pairing import PairMatcher

    rng = np.random.default_rng(33)
    systems, segments, scores = [], [], []
    for name, own in (("a", range(0, 6)), ("b", range(2, 9)), ("c", range(0, 9, 2))):
        for segment in own:
            for _ in range(int(rng.integers(1, 4))):
                systems.append(name)
                segments.append(f"s{segment}")
                scores.append(float(rng.normal()))
    campaign = build_campaign(systems, segments, scores)
    replays, k = 3, 3
    keys = rng.random((replays, campaign.segments))
    padding = campaign.system_cells < 0
    keys = keys[:, campaign.cell_segment[np.where(padding, 0, campaign.system_cells)]]
    keys[:, padding] = np.inf
    visit = np.argsort(keys, axis=-1)
    matcher = PairMatcher(campaign, visit)
    count = np.zeros((replays, k))
    made: list[list[list[tuple[int, int, float]]]] = [[[] for _ in range(k)] for _ in range(3)]
    for _ in range(40):
        choice = rng.integers(0, k, replays)
        rows = np.arange(replays)
        done = count[rows, choice].astype(np.intp)
        cells = campaign.cells_per_system[choice]
        cell = campaign.system_cells[choice, visit[rows, choice, done % cells]]
        segment = campaign.cell_segment[cell]
        score = rng.normal(size=replays)
        matcher.add(rows, choice, done, segment, score, count)
        count[rows, choice] += 1
        for r in range(replays):
            made[r][choice[r]].append((int(segment[r]), int(done[r] // cells[r]), score[r]))
    for r in range(replays):
        for i in range(k):
            for j in range(k):
                mine = {(s, p): x for s, p, x in made[r][i]}
                theirs = {(s, p): x for s, p, x in made[r][j]}
                d = (
                    [mine[key] - theirs[key] for key in mine.keys() & theirs.keys()]
                    if i != j
                    else []
                )
                assert matcher.count[r, i, j] == len(d)
                assert matcher.total[r, i, j] == pytest.approx(sum(d), abs=1e-9)
                assert matcher.squares[r, i, j] == pytest.approx(sum(x * x for x in d), abs=1e-9)


def test_cli_pairing_and_tuning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write_csv(tmp_path / "j.csv", [0.0, 0.4, 3.0], segments=200, seed=24)
    base = ["--judgments", str(data), "--replays", "10", "--seed", "1", "--json"]
    runs = {}
    for pairing in ("paired", "unpaired"):
        code, out, _ = _run(capsys, *base, "--pairing", pairing)
        assert code == 0
        runs[pairing] = json.loads(out)["language_pairs"]["en-de"]["policies"]
    assert runs["paired"] != runs["unpaired"]
    # Unpaired is the default.
    code, out, _ = _run(capsys, *base)
    assert json.loads(out)["language_pairs"]["en-de"]["policies"] == runs["unpaired"]
    code, _, err = _run(capsys, *base, "--tuned-for", "0")
    assert code == 2
    assert "--tuned-for" in err


def test_finishing_weights_the_pairs_nearest_to_settling() -> None:
    """The alternative tried for tr-en (bench/simulate.md): right where adaptive is right,
    and its weight is (target / half-width)^2."""
    from metrics.adaptive.policies import nearness
    from metrics.adaptive.status import adjacent_pairs

    campaign = build_campaign(*synthetic([0.0, 1.5, 3.0, 4.5], segments=300, seed=11))
    result = replay(campaign, "finishing", replays=40, seed=5)
    assert result.resolved.all() and not result.wrong.any()
    assert np.median(result.judgments_at_stop) < 0.2 * campaign.budget
    same = build_campaign(*synthetic([1.0, 1.0, 1.0], segments=400, seed=12))
    equal = replay(same, "finishing", replays=20, settings=Settings(delta=0.6), seed=6)
    assert equal.resolved.all() and (equal.ordered == 0).all()
    means = np.array([[3.0, 1.0, 0.0]])
    count = np.full((1, 3), 40.0)
    pairs = adjacent_pairs(count, count * means, count * (means**2 + 1.0), tuned_for=40)
    gaps = np.abs(pairs.difference[0])
    assert nearness(pairs)[0] == pytest.approx(np.minimum((gaps / pairs.half_width[0]) ** 2, 1))
