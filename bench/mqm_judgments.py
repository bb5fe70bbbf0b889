"""Google's MQM TSV as the judgment CSV that `python -m metrics human` and `simulate` read.

    python bench/mqm_judgments.py /work/shared/data/mqm-ted-zh-en/mqm_ted_zhen.tsv zh-en > FILE.csv

One row per rating (system, segment, rater) with its MQM score (Major 5, Minor 1, Minor
Fluency/Punctuation 0.1, Non-translation 25; lower is better), item type TGT; the segment is
``doc:seg_id``.
"""

from __future__ import annotations

import csv
import sys

from metrics.cli.spans_common import open_text
from metrics.spans import rating_scores, read_mqm_tsv


def main(path: str, language_pair: str) -> None:
    with open_text(path) as handle:
        rows = list(read_mqm_tsv(handle, name=path))
    errors = (
        (row.system, f"{row.doc}:{row.seg_id}", row.rater, row.severity, row.category)
        for row in rows
    )
    ratings = rating_scores(errors)
    writer = csv.writer(sys.stdout)
    writer.writerow(["annotator", "language_pair", "system", "segment_id", "item_type", "score"])
    for system, segment, rater, score in zip(
        ratings.system, ratings.segment, ratings.rater, ratings.score, strict=True
    ):
        writer.writerow([rater, language_pair, system, segment, "TGT", f"{score:g}"])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
