"""Perturbations for attention checks, pure (no Django): each returns the damaged text and
where the damage is, drawn from the ``rng`` it is given.

- :func:`shuffled`: WMT26's contrastive check (``humeval/attention_checks.py`` in
  wmt-conference/wmt26-general-mt): five tokens, distinct positions drawn at random, their
  contents rotated by one, so every chosen token moves; ten characters in the languages
  written without spaces (Chinese, Japanese, Thai). Whitespace stays where it is; JSON
  brackets and code fences never move. One such candidate must be scored below two clean
  ones.
- :func:`hotw_error`: an MQM "hands on the wheel" error (Google's Anthea injects one into a
  share of the segments, ``hotw_percent``): a run of units inside the text is reversed
  (words, or characters in Chinese, Japanese, Korean and Thai); the rater must mark it.

Which languages count characters is ``annotation.lib.text_units``'s rule, shared with the
bad references.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Final

from annotation.lib.text_units import counts_characters, is_unspaced

SHUFFLED_TOKENS: Final = 5  # doubled where characters count (WMT26)
HOTW_UNITS: Final = 4  # doubled where characters count
_DRAWS: Final = 20
_STRUCTURAL: Final = re.compile(r"^(`{3,}\w*|[{}\[\]]+)$")


class PerturbationError(ValueError):
    """The text is too short (or too uniform) to be damaged this way."""


@dataclass(frozen=True)
class Perturbed:
    """The damaged text; ``spans``: the character ranges changed (end exclusive), in order."""

    text: str
    original: str
    spans: tuple[tuple[int, int], ...]

    @property
    def extent(self) -> tuple[int, int]:
        """From the first changed character to the last (end exclusive)."""
        return self.spans[0][0], self.spans[-1][1]


def shuffled_count(language: str) -> int:
    return 2 * SHUFFLED_TOKENS if is_unspaced(language) else SHUFFLED_TOKENS


def _tokens(text: str, characters: bool) -> list[tuple[int, int]]:
    pattern = re.compile(r"\S") if characters else re.compile(r"\S+")
    return [
        m.span() for m in pattern.finditer(text) if not _STRUCTURAL.match(m.group()) or characters
    ]


def can_shuffle(text: str, language: str) -> bool:
    """Whether ``text`` has more movable tokens than the check rotates (WMT26's condition)."""
    return len(_tokens(text, is_unspaced(language))) > shuffled_count(language)


def fits_shuffle_check(text: str, language: str) -> bool:
    """Whether ``text`` may be the shuffled candidate of a planned check: WMT26 picks only
    outputs with more than twice the tokens the check rotates, so the damage is a part of the
    text, not all of it."""
    return len(_tokens(text, is_unspaced(language))) > 2 * shuffled_count(language)


def shuffled(text: str, *, language: str, rng: random.Random) -> Perturbed:
    """``text`` with ``shuffled_count(language)`` tokens rotated (WMT26's contrastive
    check). Raises :class:`PerturbationError` when the text has too few tokens, or when no
    draw changes it (every token the same)."""
    tokens = _tokens(text, is_unspaced(language))
    count = shuffled_count(language)
    if len(tokens) <= count:
        unit = "characters" if is_unspaced(language) else "tokens"
        raise PerturbationError(
            f"a text of {len(tokens)} {unit} cannot have {count} of them shuffled: it needs "
            f"more than {count}"
        )
    for _ in range(_DRAWS):
        chosen = sorted(rng.sample(range(len(tokens)), count))
        values = [text[slice(*tokens[i])] for i in chosen]
        rotated = values[1:] + values[:1]
        if rotated != values:
            return _replaced(text, [tokens[i] for i in chosen], rotated)
    raise PerturbationError("every draw left the text as it was (its tokens are all alike)")


def hotw_units(language: str) -> int:
    return 2 * HOTW_UNITS if counts_characters(language) else HOTW_UNITS


def can_inject(text: str, language: str) -> bool:
    """Whether ``text`` has an inner run to reverse (its first and last units kept)."""
    return len(_tokens(text, counts_characters(language))) >= hotw_units(language) + 2


def hotw_error(text: str, *, language: str, rng: random.Random) -> Perturbed:
    """``text`` with a run of ``hotw_units(language)`` units inside it in reverse order (the
    first and last units of the text stay). Raises :class:`PerturbationError` when the text
    is too short or every run reads the same reversed."""
    tokens = _tokens(text, counts_characters(language))
    length = hotw_units(language)
    if len(tokens) < length + 2:
        raise PerturbationError(
            f"a text of {len(tokens)} units has no inner run of {length} to reverse"
        )
    starts = list(range(1, len(tokens) - length))
    rng.shuffle(starts)
    for start in starts:
        run = tokens[start : start + length]
        values = [text[slice(*span)] for span in run]
        if values[::-1] != values:
            return _replaced(text, run, values[::-1])
    raise PerturbationError("every inner run reads the same reversed")


def _replaced(text: str, spans: list[tuple[int, int]], values: list[str]) -> Perturbed:
    """``text`` with each span's content replaced by the value at its place, spaces kept."""
    pieces, changed, cursor, shift = [], [], 0, 0
    for (start, end), value in zip(spans, values, strict=True):
        pieces += [text[cursor:start], value]
        changed.append((start + shift, start + shift + len(value)))
        shift += len(value) - (end - start)
        cursor = end
    pieces.append(text[cursor:])
    return Perturbed(text="".join(pieces), original=text, spans=tuple(changed))
