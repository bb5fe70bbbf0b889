"""Language codes of campaigns: BCP 47 tags whose primary subtag is a known ISO 639 code."""

from __future__ import annotations

import re

# language[-extlang][-script][-region](-variant)*, the common part of BCP 47 (RFC 5646);
# extensions and private use subtags are not needed to name a test set's language.
_TAG = re.compile(
    r"(?P<language>[A-Za-z]{2,3})"
    r"(?:-[A-Za-z]{3}){0,3}"
    r"(?:-(?P<script>[A-Za-z]{4}))?"
    r"(?:-(?P<region>[A-Za-z]{2}|[0-9]{3}))?"
    r"(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"
)
EXAMPLES = "'en', 'de', 'pt-BR', 'zh-Hant' or 'ckb'"


class LanguageCodeError(ValueError):
    """A code that is not a BCP 47 tag of a known language, with what to type instead."""


def _known_primary(subtag: str) -> bool:
    import pycountry  # imported here: its data loads on first use only

    subtag = subtag.lower()
    if len(subtag) == 2:
        return pycountry.languages.get(alpha_2=subtag) is not None
    # Three letters: ISO 639-3 (which includes 639-2/T) or an ISO 639-2/B code such as 'ger'.
    return (
        pycountry.languages.get(alpha_3=subtag) is not None
        or pycountry.languages.get(bibliographic=subtag) is not None
    )


def language_code_normalise(code: str) -> str:
    """The tag in its canonical letter case ('pt-br' -> 'pt-BR', 'zh-hant' -> 'zh-Hant'), or
    LanguageCodeError saying what is wrong."""
    code = code.strip()
    if not code:
        raise LanguageCodeError(f"enter a language code such as {EXAMPLES}")
    if "_" in code:
        raise LanguageCodeError(
            f"{code!r}: BCP 47 separates subtags with '-', not '_' "
            f"(e.g. {code.replace('_', '-')!r})"
        )
    match = _TAG.fullmatch(code)
    if match is None:
        raise LanguageCodeError(
            f"{code!r} is not a language code: use a BCP 47 / ISO 639 code such as {EXAMPLES}"
        )
    if not _known_primary(match["language"]):
        raise LanguageCodeError(
            f"{match['language']!r} is not an ISO 639 language code; use e.g. {EXAMPLES}"
        )
    parts = code.split("-")
    parts[0] = parts[0].lower()
    canonical = [parts[0]]
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():
            canonical.append(part.title())
        elif len(part) == 2 and part.isalpha():
            canonical.append(part.upper())
        else:
            canonical.append(part.lower())
    return "-".join(canonical)
