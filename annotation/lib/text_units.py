"""Which languages the attention checks count in characters rather than words: one rule for
every check that damages a text (bad references, HOTW errors, WMT26's shuffled candidate).

Only the primary subtag of a BCP 47 / ISO 639 code decides (``zh-Hant``, ``ja_JP`` and
WMT's ``jpn_Jpan`` all count characters); a prefix test would also catch Javanese (``jav``).

- ``UNSPACED_LANGUAGES``: written without spaces between words (Chinese, Japanese, Thai);
  WMT26's contrastive check shuffles characters in these (``humeval/attention_checks.py``).
- ``CHARACTER_LANGUAGES``: these and Korean, whose spaced units (eojeol) are whole phrases:
  the bad-reference perturbation counts characters in Chinese, Japanese, Korean and Thai.
"""

from __future__ import annotations

import re
from typing import Final

UNSPACED_LANGUAGES: Final = frozenset({"zh", "cmn", "zho", "yue", "ja", "jpn", "th", "tha"})
CHARACTER_LANGUAGES: Final = UNSPACED_LANGUAGES | {"ko", "kor"}

WORD: Final = re.compile(r"\S+")
CHARACTER: Final = re.compile(r"\S")


def primary_subtag(language: str) -> str:
    return re.split(r"[-_]", language.strip().lower(), maxsplit=1)[0]


def counts_characters(language: str) -> bool:
    """Whether damage to a ``language`` text is measured in characters (bad references,
    HOTW errors)."""
    return primary_subtag(language) in CHARACTER_LANGUAGES


def is_unspaced(language: str) -> bool:
    """Whether ``language`` is written without spaces (WMT26's character-level languages)."""
    return primary_subtag(language) in UNSPACED_LANGUAGES


def unit_pattern(*, characters: bool) -> re.Pattern[str]:
    """Units of a text: non-space characters, or whitespace-separated words."""
    return CHARACTER if characters else WORD
