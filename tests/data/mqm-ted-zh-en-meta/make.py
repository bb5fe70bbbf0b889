"""Rebuild mqm.tsv and chrf.tsv from the shared MQM file (not run by the tests).

Usage: make.py PATH/TO/mqm_ted_zhen.tsv (the shared data folder mqm-ted-zh-en/).
"""

import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

from sacrebleu.metrics import CHRF

HERE = Path(__file__).parent
REFERENCE = "refB"  # ref.B, the better reference, is the reference of chrF
LEFT_OUT = {"refB", "ref"}  # neither reference is a system here


def weight(category: str, severity: str) -> float:
    """Freitag et al. 2021 weights (the repository's README)."""
    if category.startswith("Non-translation"):
        return 25.0
    if severity == "Major":
        return 5.0
    if severity == "Minor":
        return 0.1 if category == "Fluency/Punctuation" else 1.0
    return 0.0


def main(path: str) -> None:
    points: dict[tuple[str, str, str], float] = defaultdict(float)
    target: dict[tuple[str, str], str] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)
        for system, _doc, _doc_id, segment, rater, _source, text, category, severity in rows:
            points[(system, segment, rater)] += weight(category, severity)
            target[(system, segment)] = re.sub(r"</?v>", "", text)
    per_segment: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (system, segment, _rater), value in points.items():
        per_segment[(system, segment)].append(value)
    references = {seg: text for (system, seg), text in target.items() if system == REFERENCE}
    chrf = CHRF()
    with (
        open(HERE / "mqm.tsv", "w", encoding="utf-8") as mqm,
        open(HERE / "chrf.tsv", "w", encoding="utf-8") as metric,
    ):
        for (system, segment), values in sorted(per_segment.items()):
            if system in LEFT_OUT or segment not in references:
                continue
            score = chrf.sentence_score(target[(system, segment)], [references[segment]]).score
            mqm.write(f"{system}\t{segment}\t{sum(values) / len(values)!r}\n")
            metric.write(f"{system}\t{segment}\t{score!r}\n")


if __name__ == "__main__":
    main(sys.argv[1])
