"""How the demo's simulated raters answer (``Protocol.simulate``, read by ``annotation.demo``
and the reliability demo): a rater is told what it thinks of a screen (each output's quality,
the errors it marks) and answers in the protocol's shape, so that a new protocol's demo is its
``simulate`` and nothing else. The draws are made in a fixed order from the demo's ``rng``:
the demo's judgments depend on it."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from annotation.lib.scales import scale_range

# The category a simulated MQM rater gives every error it marks.
SIMULATED_CATEGORY = "Accuracy/Mistranslation"


@dataclass(frozen=True)
class SimulatedRater:
    """One simulated rater before one screen."""

    rng: random.Random
    scale: str  # the task's
    qualities: Sequence[float]  # each output's quality on 1-5 (made up by the demo)
    # The errors it marks on each output ({start, end, severity}); none where left out.
    errors: Sequence[Sequence[Mapping[str, Any]]] = ()
    texts: Sequence[str] = ()  # each output's text (a post-edit starts from it)
    careless: bool = False  # answers at random
    straight_line: int | None = None  # this 0-100 score for every output (a straight-liner)

    def marked(self, output: int = 0) -> list[dict[str, Any]]:
        if self.careless or not self.errors:
            return []
        return [dict(span) for span in self.errors[output]]

    def of_output(self, output: int) -> SimulatedRater:
        """The same rater before one of the outputs alone (a contrastive screen's)."""
        return replace(
            self,
            qualities=[self.qualities[output]],
            errors=[self.errors[output]] if self.errors else (),
            texts=[self.texts[output]] if self.texts else (),
        )


Simulate = Callable[[SimulatedRater], dict[str, Any]]


def likert_point(rater: SimulatedRater) -> int:
    """A point of the task's scale: the first output's quality with some noise, or (careless)
    any point."""
    low, high = scale_range(rater.scale)
    if rater.careless:
        return rater.rng.randint(low, high)
    value = rater.qualities[0] + rater.rng.gauss(0, 0.5)
    # Scale 1-5 onto the task's range, then round and clip.
    scaled = low + (value - 1) * (high - low) / 4
    return int(min(high, max(low, round(scaled))))


def likert_simulated(*questions: str) -> Simulate:
    """A point for each question (its answer key), drawn in order."""

    def simulate(rater: SimulatedRater) -> dict[str, Any]:
        return {question: likert_point(rater) for question in questions}

    return simulate


def ranks_simulated(rater: SimulatedRater) -> dict[str, Any]:
    """Ranks from 1 (best) by each output's quality with some noise; careless: by chance."""
    quality = [rater.rng.random() if rater.careless else q for q in rater.qualities]
    noisy = [q + rater.rng.gauss(0, 0.4) for q in quality]
    order = sorted(range(len(noisy)), key=lambda i: -noisy[i])
    ranks = [0] * len(noisy)
    for rank, index in enumerate(order, start=1):
        ranks[index] = rank
    return {"ranks": ranks}


def score_0_100(rater: SimulatedRater) -> int:
    """A 0-100 score of the first output by its quality with some noise (a straight-liner's
    score; careless: any score)."""
    if rater.careless:
        return rater.rng.randint(0, 100)
    if rater.straight_line is not None:
        return rater.straight_line
    noisy = (rater.qualities[0] - 1) * 25 + rater.rng.gauss(0, 5)
    return round(min(100, max(0, noisy)))


def score_simulated(rater: SimulatedRater) -> dict[str, Any]:
    return {"score": score_0_100(rater)}


def esa_simulated(rater: SimulatedRater) -> dict[str, Any]:
    """The errors it marks (none, careless), and a 0-100 score (``score_0_100``)."""
    return {"score": score_0_100(rater), "spans": rater.marked()}


def mqm_simulated(rater: SimulatedRater) -> dict[str, Any]:
    """The errors it marks, each in ``SIMULATED_CATEGORY``."""
    return {"spans": [{**span, "category": SIMULATED_CATEGORY} for span in rater.marked()]}


def post_edit_simulated(rater: SimulatedRater) -> dict[str, Any]:
    """The output kept as it is (no simulated rater edits text)."""
    return {"post_edit": rater.texts[0]}


def each_output(simulate: Simulate) -> Simulate:
    """A contrastive screen's answer: each output answered by ``simulate`` alone, in order."""

    def simulate_screen(rater: SimulatedRater) -> dict[str, Any]:
        outputs = range(len(rater.qualities))
        return {"candidates": [simulate(rater.of_output(output)) for output in outputs]}

    return simulate_screen
