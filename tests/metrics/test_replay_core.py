"""The simulator's one replay core (``metrics.adaptive.simulate.replay_draws``), which the
one-output draws and the contrastive screens share, and the one cold start of the policies.

The tables of bench/simulate.md were made before the two kinds of draw shared a core; a
change to the core, a draw or a policy's random numbers would move every replay, so the
exact results of a few small replays are pinned here (recorded on the code before they
shared it, commit a5904b1)."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.adaptive.policies import POLICIES, SCREEN_POLICIES
from metrics.adaptive.screens import replay_screens
from metrics.adaptive.simulate import Settings, build_campaign, replay
from metrics.adaptive.status import adjacent_pairs
from tests.metrics.test_adaptive import synthetic

# policy -> judgments at stop of 6 replays (seed 3, delta 0.5), one output a draw, unpaired
# and paired: settled at different counts, or at the budget (1000).
ONE_OUTPUT = {
    "adaptive": [659, 652, 558, 641, 489, 558],
    "finishing": [602, 611, 618, 670, 678, 553],
    "pearmut": [873, 770, 821, 818, 827, 727],
    "racing": [535, 625, 541, 559, 689, 597],
    "uniform": [999, 998, 984, 1000, 1000, 960],
}
PAIRED = {
    "adaptive": [554, 453, 482, 605, 514, 541],
    "finishing": [447, 563, 478, 437, 583, 477],
    "pearmut": [817, 860, 730, 777, 890, 675],
    "racing": [463, 555, 558, 499, 577, 495],
    "uniform": [800, 603, 670, 898, 715, 772],
}
# policy -> (outputs at stop, screens at stop) of 6 replays (seed 3, delta 0.5), screens of 3.
SCREENS = {
    "adaptive": (
        [669, 681, 1000, 627, 735, 672],
        [223, 227, 267, 209, 245, 224],
    ),
    "pearmut": (
        [813, 807, 771, 813, 768, 885],
        [271, 269, 257, 271, 256, 295],
    ),
    "racing": (
        [753, 630, 1000, 705, 639, 1000],
        [251, 210, 249, 235, 213, 271],
    ),
    "uniform": (
        [1000, 1000, 1000, 837, 1000, 813],
        [334, 334, 334, 279, 334, 271],
    ),
}


def _campaign():
    return build_campaign(*synthetic([0.0, 0.6, 1.2, 1.25, 2.4], segments=200, seed=41))


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_one_output_replays_keep_their_numbers(policy: str) -> None:
    result = replay(_campaign(), policy, replays=6, settings=Settings(delta=0.5), seed=3)
    assert result.judgments_at_stop.tolist() == ONE_OUTPUT[policy]
    assert result.screens_at_stop is None


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_paired_replays_keep_their_numbers(policy: str) -> None:
    settings = Settings(delta=0.5, paired=True)
    result = replay(_campaign(), policy, replays=6, settings=settings, seed=3)
    assert result.judgments_at_stop.tolist() == PAIRED[policy]


@pytest.mark.parametrize("policy", sorted(SCREEN_POLICIES))
def test_screen_replays_keep_their_numbers(policy: str) -> None:
    result = replay_screens(
        _campaign(), policy, size=3, replays=6, settings=Settings(delta=0.5), seed=3
    )
    assert result.screens_at_stop is not None
    outputs, screens = SCREENS[policy]
    assert result.judgments_at_stop.tolist() == outputs
    assert result.screens_at_stop.tolist() == screens


def test_every_policy_starts_with_the_same_cold_start() -> None:
    """Systems 1 and 3 still need their cold start (10 judgments): one output a draw shows
    the less judged of them, a screen of three shows both and fills up with the least judged
    other (system 2), whatever the policy would do afterwards."""
    count = np.array([[50.0, 2.0, 40.0, 5.0, 60.0]] * 20)
    means = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    pairs = adjacent_pairs(count, count * means, count * (means**2 + 1.0), tuned_for=50)
    cap = np.full(5, 1e9)
    for name, policy in POLICIES.items():
        choice = policy(count, cap, pairs, 10, np.random.default_rng(0), 1)
        assert choice.shape == (20, 1) and (choice == 1).all(), name
    for name, policy in SCREEN_POLICIES.items():
        choice = policy(count, cap, pairs, 10, np.random.default_rng(0), 3)
        assert choice.shape == (20, 3), name
        assert (choice[:, :2] == [1, 3]).all() and (choice[:, 2] == 2).all(), name
