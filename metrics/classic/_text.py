"""Tokenisation shared by the classic metrics, and small helpers on token lists."""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Final

Tokens = list[str]

# sacrebleu's tokenisers by name; "none" splits on whitespace only.
DEFAULT_TOKENIZER: Final = "13a"


@lru_cache(maxsize=8)
def _tokenizer(name: str) -> Callable[[str], str]:
    # Imported here: the module is light until a metric runs.
    from sacrebleu.metrics.bleu import _TOKENIZERS

    if name not in _TOKENIZERS:
        raise ValueError(f"unknown tokenizer {name!r}; expected one of {', '.join(_TOKENIZERS)}")
    module, _, cls = _TOKENIZERS[name].rpartition(".")
    return getattr(importlib.import_module(f"sacrebleu.tokenizers.{module}"), cls)()


def tokenizer_names() -> tuple[str, ...]:
    from sacrebleu.metrics.bleu import _TOKENIZERS

    return tuple(_TOKENIZERS)


def tokenize(text: str, *, tokenizer: str = DEFAULT_TOKENIZER, lowercase: bool = False) -> Tokens:
    """Words of ``text`` after sacrebleu's tokeniser ``tokenizer`` (and lower-casing)."""
    if lowercase:
        text = text.lower()
    return _tokenizer(tokenizer)(text.rstrip()).split()


def tokenize_all(texts: Sequence[str], *, tokenizer: str, lowercase: bool) -> list[Tokens]:
    """Tokens of every text."""
    return [tokenize(text, tokenizer=tokenizer, lowercase=lowercase) for text in texts]


def by_segment(
    streams: Sequence[Sequence[str]], *, tokenizer: str, lowercase: bool
) -> list[list[Tokens]]:
    """Reference streams tokenised and regrouped per segment: ``out[i]`` lists segment i's
    references."""
    tokens = [tokenize_all(stream, tokenizer=tokenizer, lowercase=lowercase) for stream in streams]
    return [list(segment) for segment in zip(*tokens, strict=True)]


def ngram_counts(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    """Occurrences of each ``n``-gram of ``tokens``."""
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def bag_matches(hypothesis: Sequence[str], reference: Sequence[str]) -> int:
    """Words in common regardless of position (clipped counts)."""
    return sum((Counter(hypothesis) & Counter(reference)).values())
