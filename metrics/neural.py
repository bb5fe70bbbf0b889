"""Neural metrics (COMET, BERTScore, ...) behind one small interface, run only from a model
already on this machine: nothing here downloads anything.

A scorer takes the sources, the hypotheses and the reference streams of one system and
returns one sentence score per segment; the metrics job stores them as an external metric
(``metrics.external``), so they get the same intervals, paired tests and correlations as the
built-in metrics.

Configuration (``NEURAL_SCORERS`` in the settings, from the environment): comma-separated
``FACTORY=MODEL_PATH`` entries. FACTORY is ``comet`` or ``bertscore`` (below) or a dotted
``package.module:callable``; it is called with the local model path and returns a scorer.
An entry whose path does not exist, or whose package is not installed, is skipped with a
warning, so a machine without the model scores every other metric.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

logger = logging.getLogger(__name__)


@runtime_checkable
class SentenceScorer(Protocol):
    name: str  # the metric's name on the pages: letters, digits, . _ + -
    higher_is_better: bool
    version: str  # in the signature: the model and the package version

    def score(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
    ) -> list[float]:
        """One score per hypothesis; ``references`` is a list of reference streams."""
        ...


@dataclass(frozen=True)
class ScorerEntry:
    factory: str
    model_path: str


def parse_config(value: str) -> list[ScorerEntry]:
    """``comet=/models/wmt22-comet-da,pkg.mod:make=/models/x`` → entries; ``ValueError`` when an
    entry has no ``=``."""
    entries = []
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        factory, sep, path = item.partition("=")
        if not sep or not factory.strip() or not path.strip():
            raise ValueError(f"NEURAL_SCORERS entry {item!r}: expected FACTORY=MODEL_PATH")
        entries.append(ScorerEntry(factory.strip(), path.strip()))
    return entries


class CometScorer:
    """unbabel-comet from a local checkpoint (``.../checkpoints/model.ckpt``); the first
    reference stream is COMET's reference."""

    higher_is_better = True

    def __init__(self, model_path: str) -> None:
        from comet import load_from_checkpoint  # optional package

        self.model = load_from_checkpoint(model_path)
        self.name = "COMET"
        self.version = f"comet:{Path(model_path).parent.parent.name}"

    def score(self, sources, hypotheses, references) -> list[float]:
        data = [
            {"src": s, "mt": h, "ref": r}
            for s, h, r in zip(sources, hypotheses, references[0], strict=True)
        ]
        output = self.model.predict(data, batch_size=16, gpus=0, progress_bar=False)
        return [float(x) for x in output.scores]


class BertScoreScorer:
    """bert-score F1 with a model directory on disk (its ``model_type`` is the path), the best
    over the reference streams."""

    higher_is_better = True

    def __init__(self, model_path: str) -> None:
        import bert_score  # optional package

        self.scorer = bert_score.BERTScorer(model_type=model_path, num_layers=17)
        self.name = "BERTScore"
        self.version = f"bertscore:{Path(model_path).name}"

    def score(self, sources, hypotheses, references) -> list[float]:
        per_reference = [self.scorer.score(list(hypotheses), list(r))[2] for r in references]
        return [max(float(f[i]) for f in per_reference) for i in range(len(hypotheses))]


BUILT_IN: dict[str, Callable[[str], SentenceScorer]] = {
    "comet": CometScorer,
    "bertscore": BertScoreScorer,
}


def _factory(name: str) -> Callable[[str], SentenceScorer]:
    if name in BUILT_IN:
        return BUILT_IN[name]
    module, sep, attribute = name.partition(":")
    if not sep:
        raise ValueError(f"unknown scorer {name!r}; expected comet, bertscore or module:callable")
    factory: Callable[[str], SentenceScorer] = getattr(importlib.import_module(module), attribute)
    return factory


def load_scorer(entry: ScorerEntry) -> SentenceScorer | None:
    """The scorer of one entry, or None (logged) when its model or package is missing."""
    if not Path(entry.model_path).exists():
        logger.warning("scorer %s skipped: no model at %s", entry.factory, entry.model_path)
        return None
    try:
        scorer = _factory(entry.factory)(entry.model_path)
    except ImportError as error:
        logger.warning("scorer %s skipped: %s", entry.factory, error)
        return None
    if not isinstance(scorer, SentenceScorer):
        raise TypeError(f"{entry.factory} did not return a SentenceScorer")
    return scorer


def configured_scorers(value: str) -> list[SentenceScorer]:
    """Every scorer of the ``NEURAL_SCORERS`` value whose model is on this machine."""
    return [s for s in (load_scorer(e) for e in parse_config(value)) if s is not None]


def checked_scores(scorer: SentenceScorer, scores: Sequence[float], n_segments: int) -> list[float]:
    """The scorer's output, or ``ValueError`` if it is not one number per segment."""
    values = [float(x) for x in scores]
    if len(values) != n_segments:
        raise ValueError(f"scorer {scorer.name} gave {len(values)} scores for {n_segments}")
    return values
