"""Database ids typed by a client: what PostgreSQL's ``bigint`` holds, or refused.

``int()`` reads "²"-free digit strings of any length, and an id of 2^63 or more then fails in
the database (a 500); ``str.isdigit`` also passes "²", which ``int()`` cannot read.
"""

from __future__ import annotations

BIGINT_MAX = 2**63 - 1  # PostgreSQL's bigint, every table's id


def database_id(text: str | None) -> int:
    """The id ``text`` spells in ASCII digits, from 1 to ``BIGINT_MAX``; ``ValueError`` else."""
    text = (text or "").strip()
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(BIGINT_MAX)):
        raise ValueError(f"{text[:30]!r} is not an id")
    value = int(text)
    if not 1 <= value <= BIGINT_MAX:
        raise ValueError(f"{text!r} is not an id")
    return value
