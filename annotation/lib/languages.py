"""Language codes: their validation (BCP 47 tags with a known ISO 639 language, at campaign
creation) and the writing direction of a language, from its BCP 47 tag: the one place that
knows which languages are written right to left.

Segments get ``dir`` from here (never ``dir="auto"``, which guesses from the first strong
character: an Arabic translation starting with a Latin brand name would be laid out left to
right) and ``lang`` from the campaign's language codes.
"""

from __future__ import annotations

import re

from annotation.errors import ApplicationError

# Languages whose default script runs right to left (ISO 639 codes as used in BCP 47 tags).
RTL_LANGUAGES = frozenset(
    {
        "ar",  # Arabic
        "arc",  # Aramaic
        "arz",  # Egyptian Arabic
        "apc",  # Levantine Arabic
        "ary",  # Moroccan Arabic
        "azb",  # South Azerbaijani
        "bal",  # Baluchi
        "bgn",  # Western Balochi
        "bqi",  # Bakhtiari
        "brh",  # Brahui
        "ckb",  # Central Kurdish (Sorani)
        "dv",  # Dhivehi
        "fa",  # Persian
        "glk",  # Gilaki
        "he",  # Hebrew
        "iw",  # Hebrew (deprecated code, still found in data)
        "ji",  # Yiddish (deprecated code)
        "ks",  # Kashmiri
        "lrc",  # Northern Luri
        "mzn",  # Mazanderani
        "nqo",  # N'Ko
        "pnb",  # Western Punjabi
        "prs",  # Dari
        "ps",  # Pashto
        "rhg",  # Rohingya
        "sd",  # Sindhi
        "sdh",  # Southern Kurdish
        "skr",  # Saraiki
        "syr",  # Syriac
        "trw",  # Torwali
        "ug",  # Uyghur
        "ur",  # Urdu
        "yi",  # Yiddish
    }
)
# Script subtags (ISO 15924) written right to left; a script subtag decides over the language.
RTL_SCRIPTS = frozenset(
    {"adlm", "arab", "aran", "hebr", "mand", "mend", "nkoo", "rohg", "samr", "syrc", "thaa"}
)
# A well-formed enough tag for the lang attribute: letters, digits and hyphens, 2–8 a subtag.
_TAG = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")


def language_tag(code: str) -> str:
    """The campaign's code as a BCP 47 tag for ``lang`` ("" when it is not one)."""
    tag = (code or "").strip().replace("_", "-")
    return tag if _TAG.match(tag) else ""


def text_direction(code: str) -> str:
    """``"rtl"`` or ``"ltr"`` for a language code such as ``ar``, ``fa-IR`` or ``pa-Arab``."""
    subtags = language_tag(code).lower().split("-")
    script = next((subtag for subtag in subtags[1:] if len(subtag) == 4), None)
    if script is not None:
        return "rtl" if script in RTL_SCRIPTS else "ltr"
    return "rtl" if subtags[0] in RTL_LANGUAGES else "ltr"


# language[-extlang][-script][-region](-variant)*, the common part of BCP 47 (RFC 5646);
# extensions and private use subtags are not needed to name a test set's language.
_BCP47 = re.compile(
    r"(?P<language>[A-Za-z]{2,3})"
    r"(?:-[A-Za-z]{3}){0,3}"
    r"(?:-(?P<script>[A-Za-z]{4}))?"
    r"(?:-(?P<region>[A-Za-z]{2}|[0-9]{3}))?"
    r"(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"
)
EXAMPLES = "'en', 'de', 'pt-BR', 'zh-Hant' or 'ckb'"


class LanguageCodeError(ApplicationError):
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
    match = _BCP47.fullmatch(code)
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
