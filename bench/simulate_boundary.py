"""Does a tighter boundary, or another tuning, move adaptive's judgments against uniform's?
(bench/simulate.md, "The 60% target".)

    python -P bench/simulate_boundary.py FILE.csv DELTA [--lower-is-better] [--replays N]
        [--variants mixture,low,high,grid,fixed]

Runs uniform and adaptive on one campaign under:

- ``mixture``: the stopping rule as it is (normal mixture tuned for half each system's share
  of the budget, ``confidence.budget_tuning``);
- ``mixture, tuned /4`` and ``x4``: the same, tuned for a quarter / four times that;
- ``three tunings``: the intersection of three mixtures tuned for 1/9, 1/3 and 1 times the
  tuning, each at level alpha' / 3 (valid: a union bound over the three sequences), which
  narrows the intervals of pairs that settle far below the tuning (at a cost near it);
- ``fixed z``: every interval replaced by the fixed-sample one, z_{1 - alpha'/2} / sqrt(I),
  at the same Bonferroni level alpha'. NOT valid under continuous monitoring (its
  wrong-order rate shows it): no always-valid sequence is narrower than it at any count,
  so it bounds what any tighter sequence (betting, stitched, ...) could do to the ratio.

The experiment swaps the width function the stopping rule calls (``status.mixture_half_width``)
for the run of that row only; nothing else changes.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable, Iterator
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike, NDArray

import metrics.adaptive.status as status_module
from metrics.adaptive.confidence import budget_tuning
from metrics.adaptive.simulate import Settings, build_campaign, replay
from metrics.wmt_csv import read_judgments

Width = Callable[[ArrayLike, ArrayLike, float], NDArray[np.float64]]
MIXTURE: Width = status_module.mixture_half_width


def fixed_half_width(information: ArrayLike, rho: ArrayLike, alpha: float) -> NDArray[np.float64]:
    info = np.asarray(information, dtype=np.float64)
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    with np.errstate(divide="ignore"):
        return np.where(info > 0, z / np.sqrt(info), np.inf)


GRID = (1.0 / 9.0, 1.0 / 3.0, 1.0)


def grid_half_width(information: ArrayLike, rho: ArrayLike, alpha: float) -> NDArray[np.float64]:
    widths = [MIXTURE(information, np.asarray(rho) * g, alpha / len(GRID)) for g in GRID]
    return np.minimum.reduce(widths)


@contextlib.contextmanager
def boundary(width: Width) -> Iterator[None]:
    kept = status_module.mixture_half_width
    status_module.mixture_half_width = width  # type: ignore[assignment]  # the experiment
    try:
        yield
    finally:
        status_module.mixture_half_width = kept


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("judgments")
    parser.add_argument("delta", type=float)
    parser.add_argument("--lower-is-better", action="store_true")
    parser.add_argument("--replays", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default="mixture,low,high,grid,fixed")
    args = parser.parse_args()
    data = read_judgments(args.judgments)
    rows = np.flatnonzero(np.asarray(data.item_type) == "TGT")
    scores = np.asarray(data.score, dtype=np.float64)[rows]
    campaign = build_campaign(
        np.asarray(data.system)[rows],
        np.asarray(data.segment)[rows],
        -scores if args.lower_is_better else scores,
    )
    tuned = budget_tuning(campaign.budget, len(campaign.systems))
    every = {
        "mixture": ("mixture", tuned, MIXTURE),
        "low": ("mixture, tuned /4", tuned / 4, MIXTURE),
        "high": ("mixture, tuned x4", tuned * 4, MIXTURE),
        "grid": ("three tunings", tuned, grid_half_width),
        "fixed": ("fixed z (not valid)", tuned, fixed_half_width),
    }
    variants = [every[key] for key in args.variants.split(",")]
    print(f"{args.judgments}, delta {args.delta}, {args.replays} replays, seed {args.seed}")
    print("| boundary | tuned for | uniform | adaptive | adaptive / uniform | wrong (u / a) |")
    print("|---|---:|---:|---:|---:|---|")
    for name, tuned_for, width in variants:
        settings = Settings(delta=args.delta, tuned_for=tuned_for)
        medians, wrong = [], []
        clock = time.perf_counter()
        with boundary(width):
            for policy in ("uniform", "adaptive"):
                result = replay(
                    campaign, policy, replays=args.replays, settings=settings, seed=args.seed
                )
                medians.append(float(np.median(result.judgments_at_stop)))
                wrong.append(float(result.wrong.mean()))
        print(
            f"| {name} | {tuned_for:.0f} | {medians[0]:.0f} | {medians[1]:.0f}"
            f" | {medians[1] / medians[0]:.2f} | {wrong[0]:.3f} / {wrong[1]:.3f} |",
            flush=True,
        )
        print(f"<!-- {time.perf_counter() - clock:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
