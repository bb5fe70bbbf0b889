"""The simulator's contrastive screens (``python -m metrics simulate --screen-size N``):
each draw shows N systems on one segment, all scored; on synthetic campaigns with a known
answer, as the one-output replays are checked (tests/metrics/test_adaptive.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from metrics.adaptive.policies import SCREEN_POLICIES, adaptive_screen, pearmut_screen
from metrics.adaptive.screens import replay_screens
from metrics.adaptive.simulate import Settings, build_campaign, replay
from metrics.adaptive.status import adjacent_pairs
from tests.metrics.test_adaptive import _run, _write_csv, synthetic

POLICIES = tuple(SCREEN_POLICIES)


def test_well_separated_systems_stop_early_and_right() -> None:
    campaign = build_campaign(*synthetic([0.0, 1.5, 3.0, 4.5], segments=300, seed=11))
    for policy in POLICIES:
        result = replay_screens(campaign, policy, size=3, replays=40, seed=5)
        assert result.resolved.all(), policy
        assert np.median(result.judgments_at_stop) < 0.2 * campaign.budget, policy
        assert not result.wrong.any(), policy
        assert (result.ordered == 3).all(), policy
        # Outputs are counted: three a screen while three systems can be shown.
        assert result.screens_at_stop is not None
        assert (result.judgments_at_stop == 3 * result.screens_at_stop).all(), policy


def test_identical_systems_are_declared_equivalent_never_ordered() -> None:
    campaign = build_campaign(*synthetic([1.0, 1.0, 1.0, 1.0], segments=400, seed=12))
    for policy in POLICIES:
        result = replay_screens(
            campaign, policy, size=3, replays=40, settings=Settings(delta=0.6), seed=6
        )
        assert result.resolved.all(), policy
        assert (result.ordered == 0).all(), policy
    # Without a margin they can only spend the budget (in outputs), still unordered.
    strict = replay_screens(campaign, "adaptive", size=3, replays=10, seed=6)
    assert not strict.resolved.any()
    assert (strict.ordered == 0).all()
    assert (strict.judgments_at_stop == campaign.budget).all()
    assert strict.screens_at_stop is not None
    assert (strict.screens_at_stop >= campaign.budget / 3).all()


def test_wrong_order_rate_near_the_null_stays_below_alpha() -> None:
    campaign = build_campaign(*synthetic([0.0, 0.05, 0.1, 0.15, 0.2], segments=300, seed=13))
    for policy in ("uniform", "adaptive"):
        result = replay_screens(campaign, policy, size=3, replays=100, seed=8)
        assert result.wrong.mean() <= 0.05, policy


def test_a_screen_of_one_is_the_one_output_replay_in_outcome() -> None:
    """Size 1 draws one system a screen: the same stopping rule, so well-separated systems
    settle at the one-output replay's cost."""
    campaign = build_campaign(*synthetic([0.0, 1.0, 2.0], segments=200, seed=16))
    one = replay_screens(campaign, "uniform", size=1, replays=40, seed=3)
    classic = replay(campaign, "uniform", replays=40, seed=3)
    assert one.resolved.all() and classic.resolved.all()
    ratio = np.median(one.judgments_at_stop) / np.median(classic.judgments_at_stop)
    assert 0.8 < ratio < 1.25


@pytest.mark.parametrize("systems", [5, 12])  # sets (10 of 3) and pairs (220 sets of 3)
def test_adaptive_screens_spend_less_than_uniform_and_pearmut(systems: int) -> None:
    # Two close systems among well-separated ones: uniform keeps showing the separated ones.
    means = [2.2 * i for i in range(systems)]
    means[2] = means[1] + 0.4
    campaign = build_campaign(*synthetic(means, segments=600, seed=14))
    spent = {
        policy: np.median(
            replay_screens(campaign, policy, size=3, replays=30, seed=9).judgments_at_stop
        )
        for policy in ("uniform", "adaptive", "pearmut")
    }
    assert spent["adaptive"] <= 0.75 * spent["uniform"], spent
    assert spent["adaptive"] < spent["pearmut"], spent


def _pairs(means: list[float], judged: float = 200.0, rows: int = 1):
    values = np.array(means)
    count = np.full((rows, values.size), judged)
    return count, adjacent_pairs(count, count * values, count * (values**2 + 1.0), tuned_for=judged)


def test_adaptive_screen_shows_the_open_pair() -> None:
    # Systems 2 and 3 are close (open), every other neighbour far apart (resolved).
    count, pairs = _pairs([0.0, 5.0, 10.0, 10.05, 15.0])
    cap = np.full(5, 1e9)
    choice = adaptive_screen(count, cap, pairs, 10, np.random.default_rng(0), 3)
    assert choice.shape == (1, 3) and len(set(choice[0])) == 3
    assert {2, 3} <= set(choice[0])
    # Many systems: strata are pairs, the open pair filled up at random with others.
    means = [5.0 * i for i in range(12)]
    means[7] = means[6] + 0.05
    count, pairs = _pairs(means, rows=400)
    choice = adaptive_screen(count, np.full(12, 1e9), pairs, 10, np.random.default_rng(1), 3)
    assert all({6, 7} <= set(row) for row in choice)
    fillers = np.delete(np.bincount(choice.ravel(), minlength=12), [6, 7])
    assert fillers.sum() == 400 and fillers.min() > 0.5 * 400 / 10  # over the other ten


def test_pearmut_screens_draw_without_replacement_by_one_over_rank() -> None:
    rows = 20_000
    count, pairs = _pairs([0.0, 5.0, 2.0, 1.0], judged=50.0, rows=rows)
    choice = pearmut_screen(count, np.full(4, 1e9), pairs, 10, np.random.default_rng(0), 2)
    assert (choice[:, 0] != choice[:, 1]).all()
    shown = np.bincount(choice.ravel(), minlength=4) / rows
    # The best system (rank 1) is shown most, the worst least; every one sometimes.
    assert shown[1] > shown[2] > shown[3] > shown[0] > 0.1
    # The first place alone is the one-output rule: P proportional to 1 / rank.
    first = np.bincount(choice[:, 0], minlength=4) / rows
    weights = np.array([1 / 4, 1.0, 1 / 2, 1 / 3])
    assert np.allclose(first, weights / weights.sum(), atol=0.015)


def test_cli_screen_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write_csv(tmp_path / "j.csv", [0.0, 1.0, 3.0, 4.0], segments=150, seed=21)
    arguments = ["--judgments", str(data), "--replays", "20", "--seed", "4", "--json"]
    code, out, err = _run(capsys, *arguments, "--screen-size", "3")
    assert code == 0, err
    pair = json.loads(out)["language_pairs"]["en-de"]
    assert pair["full"]["judgments"] == 600
    for result in pair["policies"].values():
        assert set(result) == {
            "judgments_at_stop",
            "screens_at_stop",
            "stopped",
            "wrong_order_rate",
        }
        outputs, screens = result["judgments_at_stop"], result["screens_at_stop"]
        assert screens["median"] <= outputs["median"] <= 3 * screens["median"]
    code, _, err = _run(capsys, *arguments, "--screen-size", "0")
    assert code == 2 and "--screen-size" in err
    code, _, err = _run(capsys, *arguments, "--screen-size", "2", "--pairing", "paired")
    assert code == 2 and "--pairing paired" in err
    # A policy built for one output a draw only is refused, not a traceback.
    code, _, err = _run(capsys, *arguments, "--screen-size", "3", "--policies", "finishing")
    assert code == 2 and "unknown policy finishing for --screen-size 3" in err
