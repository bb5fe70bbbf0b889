"""Degraded "bad reference" quality-control items, built the way the WMT DA campaigns build them.

A phrase inside a segment is replaced by a phrase of the same length taken from another segment
(a donor), so the result still looks fluent locally but no longer means what the source says. An
annotator who scores it about as high as the intact translation is not paying attention (Graham
et al., "Can machine translation systems be evaluated by the crowd alone?", 2017, and the WMT
findings papers since).

Units and phrase lengths:

* Most languages count whitespace-separated words. Chinese, Japanese, Korean and Thai count
  characters (the rule is ``annotation.lib.text_units.counts_characters``, shared by every
  check); whitespace is never a unit, so a run of characters may span a space in the text.
* The phrase length depends on the segment length in units: up to 5 → 2, 6–8 → 3, 9–15 → 4,
  16–20 → 5, over 20 → 6; doubled for the character languages (4, 6, 8, 10, 12).

Decisions on the edges:

* The replaced phrase never touches the segment's first or last unit, so a segment needs at least
  phrase length + 2 units. A shorter segment raises :class:`SegmentTooShortError` (a
  ``ValueError``) rather than being degraded with a shorter phrase, so every BAD item follows the
  same rule; :func:`can_degrade` tells beforehand.
* The donor phrase may come from anywhere in the donor, its start and end included.
* Donors with fewer units than the phrase length, and donors equal to the segment itself (after
  collapsing whitespace), are skipped; none left raises :class:`NoDonorError` (a ``ValueError``).
* A donor phrase equal to the phrase it would replace (ignoring case and whitespace) is never
  used: other donor positions, segment positions and donors are tried, so the result always
  differs from the original. If no combination differs, :class:`NoDonorError` is raised.
* Everything outside the replaced phrase is kept character for character. Inside it, the donor's
  text is copied with each whitespace run collapsed to one space (a tab or newline in a donor
  would otherwise leak into the item).

The output depends only on the arguments and the state of ``rng``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from annotation.lib.text_units import CHARACTER_LANGUAGES, counts_characters, unit_pattern

__all__ = ["CHARACTER_LANGUAGES", "BadReference", "bad_reference", "counts_characters", "degrade"]

# (largest segment length in units, phrase length) for word languages, checked in order.
_WORD_PHRASE_LENGTHS: Final = ((5, 2), (8, 3), (15, 4), (20, 5))
_LONGEST_WORD_PHRASE: Final = 6

# Uniform draws tried before shuffling the whole donor list: callers pass every output of a
# system as donors, and shuffling thousands of them for each BAD item would dominate the cost.
_QUICK_DRAWS: Final = 16

_SPACES = re.compile(r"\s+")


class BadReferenceError(ValueError):
    """The segment cannot be turned into a bad reference."""


class SegmentTooShortError(BadReferenceError):
    """The segment has no inner phrase of the required length."""


class NoDonorError(BadReferenceError):
    """No donor gives a phrase of the required length that differs from the replaced one."""


@dataclass(frozen=True)
class BadReference:
    """A degraded segment and where its phrase came from.

    ``start`` and ``length`` are unit offsets, the same in ``original`` and ``text`` because the
    phrase keeps its length; ``donor_start`` is the phrase's unit offset in ``donors[donor]``.
    ``damage`` is the replaced phrase's character span in ``text`` (end exclusive): where an
    error span must be marked (ESA, MQM).
    """

    text: str
    original: str
    start: int
    length: int
    donor: int
    donor_start: int
    phrase: str
    damage: tuple[int, int] = (0, 0)


def units(text: str, language: str) -> list[str]:
    """The units ``text`` is measured in: words, or characters (``counts_characters``)."""
    return _pattern(language).findall(text)


def phrase_length(n_units: int, language: str) -> int:
    """Length in units of the phrase replaced in a segment of ``n_units`` units."""
    length = _LONGEST_WORD_PHRASE
    for longest, phrase in _WORD_PHRASE_LENGTHS:
        if n_units <= longest:
            length = phrase
            break
    return 2 * length if counts_characters(language) else length


def can_degrade(text: str, language: str) -> bool:
    """Whether ``text`` is long enough to have an inner phrase (first and last units kept)."""
    n_units = len(units(text, language))
    return n_units >= phrase_length(n_units, language) + 2


def degrade(text: str, donors: Sequence[str], *, rng: random.Random, language: str) -> str:
    """``text`` with one inner phrase replaced by a same-length phrase from a random donor.

    Raises :class:`SegmentTooShortError` or :class:`NoDonorError` (both ``ValueError``).
    """
    return bad_reference(text, donors, rng=rng, language=language).text


def bad_reference(
    text: str, donors: Sequence[str], *, rng: random.Random, language: str
) -> BadReference:
    """Like :func:`degrade`, also saying which phrase was replaced and where it came from."""
    pattern = _pattern(language)
    spans = [match.span() for match in pattern.finditer(text)]
    length = phrase_length(len(spans), language)
    if len(spans) < length + 2:
        unit = "characters" if counts_characters(language) else "words"
        raise SegmentTooShortError(
            f"a segment of {len(spans)} {unit} has no inner phrase of {length} {unit}: "
            f"it needs at least {length + 2}, so that its first and last stay"
        )

    # Inner starts only: the phrase never covers the first or the last unit.
    starts = list(range(1, len(spans) - length))
    rng.shuffle(starts)
    originals = {i: _phrase(text, spans, i, length) for i in starts}
    itself = _collapse(text)
    seen: set[int] = set()
    for index in _donor_order(len(donors), rng):
        if index in seen:
            continue
        seen.add(index)
        donor = donors[index]
        donor_spans = [match.span() for match in pattern.finditer(donor)]
        if len(donor_spans) < length or _collapse(donor) == itself:
            continue
        donor_starts = list(range(len(donor_spans) - length + 1))
        rng.shuffle(donor_starts)
        for start in starts:
            replaced = originals[start].casefold()
            for donor_start in donor_starts:
                phrase = _phrase(donor, donor_spans, donor_start, length)
                if phrase.casefold() == replaced:
                    continue
                begin, end = spans[start][0], spans[start + length - 1][1]
                return BadReference(
                    text=text[:begin] + phrase + text[end:],
                    original=text,
                    start=start,
                    length=length,
                    donor=index,
                    donor_start=donor_start,
                    phrase=phrase,
                    damage=(begin, begin + len(phrase)),
                )
    unit = "characters" if counts_characters(language) else "words"
    raise NoDonorError(
        f"none of {len(donors)} donors has a phrase of {length} {unit} that differs from the "
        "segment's (donors equal to the segment itself are skipped)"
    )


def _pattern(language: str) -> re.Pattern[str]:
    return unit_pattern(characters=counts_characters(language))


def _phrase(text: str, spans: list[tuple[int, int]], start: int, length: int) -> str:
    return _collapse(text[spans[start][0] : spans[start + length - 1][1]])


def _collapse(text: str) -> str:
    return _SPACES.sub(" ", text.strip())


def _donor_order(n_donors: int, rng: random.Random) -> Iterator[int]:
    """Donor indices: a few uniform draws, then every index once in random order.

    The first eligible donor met is uniform among the eligible ones either way; the full shuffle
    only happens when the quick draws keep hitting unusable donors.
    """
    if n_donors == 0:
        return
    for _ in range(_QUICK_DRAWS):
        yield rng.randrange(n_donors)
    order = list(range(n_donors))
    rng.shuffle(order)
    yield from order
