"""The classic MT metrics beyond sacrebleu's: METEOR, NIST, WER, PER, RIBES, LEPOR, hLEPOR,
ROUGE-L and GTM, on the same contract as ``metrics.automatic``.

Each metric turns a system into a per-segment statistics matrix once; corpus scores, bootstrap
resamples and paired tests then sum rows of that matrix. ``decomposes(key)`` says what the rows
are: sufficient statistics from which the corpus score is computed (METEOR, NIST, WER, PER,
GTM; as BLEU), or, for metrics defined as a mean of sentence scores (RIBES, LEPOR, hLEPOR,
ROUGE-L), each sentence's score and a count, so that resampling reuses stored sentence scores.
ULC (``metrics.ulc``) stacks its components' statistics side by side.

Scales: NIST on its own scale, everything else 0-100. Lower is better for WER and PER.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from metrics.ulc import ULC, is_ulc  # noqa: F401 (ULC: the key, for the registry's tables)

VERSION: Final = "1.0"  # of these implementations, in every signature


@dataclass(frozen=True)
class Spec:
    """What the registry knows of one metric without importing its module."""

    label: str
    higher_is_better: bool
    decomposes: bool
    lowercase: bool  # default case handling
    module: str  # whose N_STATS (sufficient statistics) and SIGNATURE (options) apply
    extract: str
    signature: str = "SIGNATURE"


SPECS: Final = {
    "meteor": Spec("METEOR", True, True, True, "meteor", "extract"),
    "nist": Spec("NIST", True, True, True, "nist", "extract"),
    "wer": Spec("WER", False, True, False, "errors", "extract_wer"),
    "per": Spec("PER", False, True, False, "errors", "extract_per"),
    "ribes": Spec("RIBES", True, False, False, "ribes", "extract"),
    "lepor": Spec("LEPOR", True, False, False, "lepor", "extract_lepor"),
    "hlepor": Spec("hLEPOR", True, False, False, "lepor", "extract_hlepor", "HLEPOR_SIGNATURE"),
    "rougel": Spec("ROUGE-L", True, False, True, "rouge", "extract"),
    "gtm": Spec("GTM", True, True, False, "gtm", "extract"),
}
CLASSIC_METRICS: Final = tuple(SPECS)
# Sentence-mean metrics score from the shared (score, count) columns.
_SENTENCE_SCORE_MODULE: Final = "sentence"


def _module(name: str) -> Any:
    import importlib

    return importlib.import_module(f"metrics.classic.{name}")


def is_classic(key: str) -> bool:
    return key in SPECS or is_ulc(key)


def _scoring_module(key: str) -> Any:
    spec = SPECS[key]
    return _module(spec.module if spec.decomposes else _SENTENCE_SCORE_MODULE)


def score_function(key: str) -> Callable[[NDArray[np.floating]], NDArray[np.floating]]:
    """Scores (NIST scale or 0-100) from column-major summed statistics."""
    return _scoring_module(key).score_columns


def n_statistics(key: str) -> int:
    return int(_scoring_module(key).N_STATS)


def extract(
    key: str, hypotheses: list[list[str]], references: list[list[list[str]]], **options: Any
) -> NDArray[np.float64]:
    """Statistics of one tokenised system; ``references[i]`` are segment i's references."""
    spec = SPECS[key]
    function = getattr(_module(spec.module), spec.extract)
    if key == "meteor":
        return function(hypotheses, references, **options)
    return function(hypotheses, references)


def signature_fields(key: str, *, lowercase: bool | None, tokenize: str | None) -> list[str]:
    """sacrebleu-style ``name:value`` fields of a classic metric (without nrefs and tests)."""
    spec = SPECS[key]
    case = spec.lowercase if lowercase is None else lowercase
    fields = [f"case:{'lc' if case else 'mixed'}", f"tok:{tokenize or '13a'}"]
    options = getattr(_module(spec.module), spec.signature)
    return [*fields, options, f"stats:{'sufficient' if spec.decomposes else 'sentence'}"]


def extract_systems(
    key: str,
    systems: list[list[str]],
    references: list[list[str]],
    *,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    language: str | None = None,
) -> list[NDArray[np.float64]]:
    """Statistics of each system (raw text) against reference streams; the references are
    tokenised once."""
    from metrics.classic._text import DEFAULT_TOKENIZER, by_segment, tokenize_all

    spec = SPECS[key]
    case = spec.lowercase if lowercase is None else lowercase
    tokenizer = tokenize or DEFAULT_TOKENIZER
    refs = by_segment(references, tokenizer=tokenizer, lowercase=case)
    options = {"language": language or "english"} if key == "meteor" else {}
    return [
        extract(key, tokenize_all(hypotheses, tokenizer=tokenizer, lowercase=case), refs, **options)
        for hypotheses in systems
    ]
