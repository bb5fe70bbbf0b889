"""WMT relative rankings as the judgment CSV that `python -m metrics simulate` reads.

    python -P bench/wmt_rankings_judgments.py wmt16.collapsed.ron-eng.csv > FILE.csv

Each pairwise comparison (the WMT15/16 collapsed format, or the 5-way format expanded into
its pairs) gives each of its two systems one judgment: 1 if it was ranked better, 0.5 for a
tie, 0 if worse (rank -1, unranked, is skipped). A system's mean is then its share of wins
with ties counted half (WMT13's "ratio of wins"; higher is better). A collapsed id
``a+b`` (identical outputs) gives the judgment to each of a and b. The segment is srcIndex.
The two judgments of one comparison are not independent; the simulator draws them
separately, which is the approximation this conversion makes.
"""

from __future__ import annotations

import csv
import sys
from itertools import combinations

from metrics.wmt_csv import read_wmt_rankings

SCORE = {True: 1.0, False: 0.0}


def main(path: str) -> None:
    writer = csv.writer(sys.stdout)
    writer.writerow(["annotator", "language_pair", "system", "segment_id", "item_type", "score"])
    for pair, rankings in read_wmt_rankings(path).items():
        for ranking in rankings:
            ranked = [
                (output[0], rank)
                for output, rank in zip(ranking.outputs, ranking.ranks, strict=True)
                if rank > 0
            ]
            for (first, first_rank), (second, second_rank) in combinations(ranked, 2):
                for system, mine, theirs in (
                    (first, first_rank, second_rank),
                    (second, second_rank, first_rank),
                ):
                    score = 0.5 if mine == theirs else SCORE[mine < theirs]
                    for name in system.split("+"):
                        writer.writerow([ranking.judge, pair, name, ranking.segment, "TGT", score])


if __name__ == "__main__":
    main(sys.argv[1])
