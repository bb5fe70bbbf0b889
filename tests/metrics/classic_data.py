"""WMT21 en-de segments for the classic-metric tests (tests/data/wmt21-en-de, see PROVENANCE)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

WMT21 = Path(__file__).resolve().parents[1] / "data" / "wmt21-en-de"
REFERENCES = ("A", "C", "D")


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


@cache
def references(n: int) -> list[list[str]]:
    """The first ``n`` segments of references A, C and D (three streams)."""
    return [read_lines(WMT21 / f"newstest2021.en-de.ref.{r}.de")[:n] for r in REFERENCES]


@cache
def system(name: str, n: int) -> list[str]:
    return read_lines(WMT21 / "system-outputs" / f"newstest2021.en-de.hyp.{name}.de")[:n]
