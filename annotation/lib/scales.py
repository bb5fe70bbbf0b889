"""Likert scales: the points and the label of every point, per scale and question."""

from __future__ import annotations

SCALES: dict[str, dict[str, list[tuple[int, str]]]] = {
    "likert5": {
        "adequacy": [
            (5, "All meaning"),
            (4, "Most meaning"),
            (3, "Much meaning"),
            (2, "Little meaning"),
            (1, "None"),
        ],
        "fluency": [
            (5, "Flawless"),
            (4, "Good"),
            (3, "Non-native"),
            (2, "Disfluent"),
            (1, "Incomprehensible"),
        ],
    },
    "taus4": {
        "adequacy": [(4, "Everything"), (3, "Most"), (2, "Little"), (1, "None")],
        "fluency": [(4, "Flawless"), (3, "Good"), (2, "Dis-fluent"), (1, "Incomprehensible")],
    },
    "nist7": {
        "adequacy": [
            (7, "All meaning"),
            (6, "Nearly all"),
            (5, "Most"),
            (4, "Half"),
            (3, "Some"),
            (2, "Little"),
            (1, "None"),
        ],
        "fluency": [
            (7, "Flawless"),
            (6, "Near-native"),
            (5, "Good"),
            (4, "Acceptable"),
            (3, "Non-native"),
            (2, "Disfluent"),
            (1, "Incomprehensible"),
        ],
    },
    # Direct Assessment: a 0-100 slider with labelled ends (Graham et al.).
    "da100": {
        "adequacy": [(0, "No meaning preserved"), (100, "Perfect meaning")],
        "fluency": [(0, "Incomprehensible"), (100, "Perfect fluency")],
    },
}
CONTINUOUS = {"da100"}


def scale_points(scale: str, question: str) -> list[tuple[int, str]]:
    """Points from worst to best, as they are laid out left to right on the page."""
    return sorted(SCALES[scale][question])


def scale_range(scale: str) -> tuple[int, int]:
    values = [value for value, _ in SCALES[scale]["adequacy"]]
    return min(values), max(values)
