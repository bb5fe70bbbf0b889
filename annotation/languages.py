"""Writing direction of a language, from its BCP 47 tag: the one place that knows which
languages are written right to left.

Segments get ``dir`` from here (never ``dir="auto"``, which guesses from the first strong
character: an Arabic translation starting with a Latin brand name would be laid out left to
right) and ``lang`` from the campaign's language codes.
"""

from __future__ import annotations

import re

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
