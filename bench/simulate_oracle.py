"""What an allocation that knew the full data's means and variances would need, against
uniform, under the stopping rule of metrics.adaptive (the yardstick for the simulator's
adaptive/uniform ratio; see bench/simulate.md).

    python -P bench/simulate_oracle.py FILE.csv DELTA [--lower-is-better] [--paired]

Each adjacent pair of the full data's order needs n judgments of each of its systems (equal
n, the full data's variances) for its interval to fall below max(D, delta - D); uniform
judges every system as often as the neediest pair needs, the oracle each system as often as
its neediest pair needs. Neither is capped by the campaign's size. ``--paired``: each pair's
interval is the paired one (simulate --pairing paired), with the variance of its
per-segment differences (segment means where a cell has several judgments).
"""

from __future__ import annotations

import sys
from itertools import pairwise

import numpy as np
from scipy.optimize import minimize

from metrics.adaptive.confidence import _best_ratio, mixture_half_width, mixture_rho
from metrics.adaptive.status import pair_alpha
from metrics.wmt_csv import read_judgments


def _difference_variances(
    systems: np.ndarray, segments: np.ndarray, scores: np.ndarray, names: list[str]
) -> np.ndarray:
    """Variance of the per-segment differences of every pair (segment means per cell)."""
    cells = {}
    for name in names:
        mine = systems == name
        keys, codes = np.unique(segments[mine], return_inverse=True)
        means = np.bincount(codes, weights=scores[mine]) / np.bincount(codes)
        cells[name] = dict(zip(keys.tolist(), means.tolist(), strict=True))
    k = len(names)
    result = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if i != j:
                common = cells[names[i]].keys() & cells[names[j]].keys()
                d = [cells[names[i]][s] - cells[names[j]][s] for s in common]
                result[i, j] = np.var(d, ddof=1)
    return result


def main(path: str, delta: float, lower_is_better: bool, paired: bool = False) -> None:
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
    if paired:
        segments = np.asarray(judgments.segment)[tgt]
        spread = _difference_variances(systems, segments, scores, names)
        rho = tuned_for / float(spread[~np.eye(len(names), dtype=bool)].mean()) * _best_ratio(level)
    else:
        spread = variances[:, None] + variances[None, :]
    counts = np.arange(1, 200_001, dtype=np.float64)
    needs = []
    for upper, lower in pairwise(order):
        difference = means[upper] - means[lower]
        target = max(difference, delta - difference)
        half = mixture_half_width(counts / spread[upper, lower], rho, level)
        needs.append(float(counts[np.argmax(half < target)]) if (half < target).any() else np.inf)
    need = np.array(needs)
    per_system = np.maximum(np.r_[need, 0.0], np.r_[0.0, need])
    uniform = len(names) * need.max()
    oracle = per_system.sum()
    print(f"uniform {uniform:.0f}  oracle {oracle:.0f}  oracle/uniform {oracle / uniform:.2f}")
    if not paired and np.isfinite(need).all():
        best = _unbalanced(order, variances, need / spread[order[:-1], order[1:]], per_system)
        print(f"  unbalanced optimum {best:.0f}  /uniform {best / uniform:.2f}")


def _unbalanced(
    order: np.ndarray, variances: np.ndarray, information: np.ndarray, start: np.ndarray
) -> float:
    """min sum n subject to v_u / n_u + v_l / n_l <= 1 / I* for each adjacent pair (the two
    sides of a pair and the systems shared by two pairs judged unequally), from the
    balanced allocation (feasible)."""
    v = variances[order]
    constraints = [
        {
            "type": "ineq",
            "fun": lambda n, k=k: 1.0 / information[k] - v[k] / n[k] - v[k + 1] / n[k + 1],
        }
        for k in range(len(information))
    ]
    result = minimize(
        lambda n: n.sum(),
        start.astype(np.float64),
        jac=lambda n: np.ones_like(n),
        constraints=constraints,
        bounds=[(1.0, None)] * len(start),
        method="SLSQP",
        options={"maxiter": 500, "ftol": 1e-6},
    )
    return float(result.fun)


if __name__ == "__main__":
    main(
        sys.argv[1],
        float(sys.argv[2]),
        "--lower-is-better" in sys.argv[3:],
        paired="--paired" in sys.argv[3:],
    )
