"""What an allocation that knew the full data's means and variances would need, against
uniform, under the stopping rule of metrics.adaptive (the yardstick for the simulator's
adaptive/uniform ratio; see bench/simulate.md).

    python -P bench/simulate_oracle.py FILE.csv DELTA [--lower-is-better]

Each adjacent pair of the full data's order needs n judgments of each of its systems (equal
n, the full data's variances) for its interval to fall below max(D, delta - D); uniform
judges every system as often as the neediest pair needs, the oracle each system as often as
its neediest pair needs. Neither is capped by the campaign's size.
"""

from __future__ import annotations

import sys
from itertools import pairwise

import numpy as np

from metrics.adaptive.confidence import mixture_half_width, mixture_rho
from metrics.adaptive.status import pair_alpha
from metrics.wmt_csv import read_judgments


def main(path: str, delta: float, lower_is_better: bool) -> None:
    judgments = read_judgments(path)
    tgt = np.asarray(judgments.item_type) == "TGT"
    systems = np.asarray(judgments.system)[tgt]
    scores = np.asarray(judgments.score, dtype=np.float64)[tgt] * (-1 if lower_is_better else 1)
    names = sorted(set(systems))
    means = np.array([scores[systems == n].mean() for n in names])
    variances = np.array([scores[systems == n].var(ddof=1) for n in names])
    order = np.argsort(-means)
    level = pair_alpha(0.05, len(names))
    tuned_for = len(scores) / len(names) / 2
    rho = float(mixture_rho(tuned_for, variances.mean(), level))
    counts = np.arange(1, 200_001, dtype=np.float64)
    needs = []
    for upper, lower in pairwise(order):
        difference = means[upper] - means[lower]
        target = max(difference, delta - difference)
        half = mixture_half_width(counts / (variances[upper] + variances[lower]), rho, level)
        needs.append(float(counts[np.argmax(half < target)]) if (half < target).any() else np.inf)
    need = np.array(needs)
    per_system = np.maximum(np.r_[need, 0.0], np.r_[0.0, need])
    uniform = len(names) * need.max()
    oracle = per_system.sum()
    print(f"uniform {uniform:.0f}  oracle {oracle:.0f}  oracle/uniform {oracle / uniform:.2f}")


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), "--lower-is-better" in sys.argv[3:])
