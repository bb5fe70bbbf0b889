"""A stand-in neural scorer for the tests: a "model" directory holding one JSON file of
weights, scored without any package beyond the standard library (never a download)."""

from __future__ import annotations

import json
from pathlib import Path

MODEL_FILE = "weights.json"


def write_model(folder: Path, *, bias: float, per_shared_word: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MODEL_FILE).write_text(json.dumps({"bias": bias, "w": per_shared_word}))
    return folder


def overlap(hypothesis: str, reference: str) -> int:
    return len(set(hypothesis.split()) & set(reference.split()))


class SharedWordsScorer:
    """bias + w × (words the hypothesis shares with its best reference)."""

    name = "SharedWords"
    higher_is_better = True

    def __init__(self, model_path: str) -> None:
        weights = json.loads((Path(model_path) / MODEL_FILE).read_text())
        self.bias, self.weight = weights["bias"], weights["w"]
        self.version = f"stub:{Path(model_path).name}"

    def score(self, sources, hypotheses, references):
        return [
            self.bias + self.weight * max(overlap(h, stream[i]) for stream in references)
            for i, h in enumerate(hypotheses)
        ]
