"""The server-drawn charts: every tick label says the value at its position, legends and
labels stay inside the picture, and labels say each thing once (issue 21 §3)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from annotation.plots.human import progress_plot, scatter_plot
from annotation.plots.intervals import interval_plot
from annotation.plots.spans import error_bar_plot
from annotation.selectors.human.correlation import ScatterPoint
from annotation.selectors.human.progress import Series
from metrics.spans import error_breakdown

SVG = "{http://www.w3.org/2000/svg}"
# A generous width per character (the site's sans-serif at 12px is about 6.5px on average).
CHARACTER = 0.6


def parse(svg: str) -> ET.Element:
    return ET.fromstring(str(svg))  # noqa: S314 (our own SVG)


def view_width(root: ET.Element) -> float:
    return float(root.get("viewBox").split()[2])


def tick_labels(root: ET.Element, cls: str) -> list[tuple[float, float]]:
    """(label value, position) of the axis labels of class ``cls``: y for "label", x for
    "tick" (numeric texts only)."""
    found = []
    for text in root.iter(f"{SVG}text"):
        if (text.get("class") or "").split()[:1] == [cls] and re.fullmatch(
            r"-?\d+(\.\d+)?", text.text or ""
        ):
            position = float(text.get("y")) - 4 if cls == "label" else float(text.get("x"))
            found.append((float(text.text), position))
    return found


def linear(labels: list[tuple[float, float]]):
    """The value → position map the labels imply (from the first and last)."""
    (v0, p0), (v1, p1) = labels[0], labels[-1]
    return lambda value: p0 + (value - v0) / (v1 - v0) * (p1 - p0)


def assert_labels_say_their_positions(labels: list[tuple[float, float]]) -> None:
    assert len(labels) >= 3
    at = linear(labels)
    for value, position in labels:
        assert abs(at(value) - position) < 0.15, (value, position, labels)


def assert_texts_inside(root: ET.Element, font_size: float = 12) -> None:
    width = view_width(root)
    for text in root.iter(f"{SVG}text"):
        if text.get("transform"):
            continue
        size = float(text.get("font-size") or font_size)
        length = len(text.text or "") * size * CHARACTER
        x = float(text.get("x"))
        classes = (text.get("class") or "").split()
        anchor = text.get("text-anchor") or (
            "end"
            if "end" in classes or "label" in classes
            else "start"
            if "start" in classes
            else "middle"
            if "tick" in classes
            else "start"
        )
        left = x - length if anchor == "end" else x - length / 2 if anchor == "middle" else x
        right = x if anchor == "end" else x + length / 2 if anchor == "middle" else x + length
        assert left >= -0.5 and right <= width + 0.5, (text.text, left, right, width)


def test_progress_ticks_are_where_their_counts_are_and_the_legend_fits():
    start = datetime(2026, 1, 1, tzinfo=UTC)
    series = [
        Series("Adequacy (task 12)", [(start, 2), (start + timedelta(hours=1), 7)]),
        Series(
            "a-very-long-annotator-name-from-a-crowd-platform-0123456789abcdef",
            [(start, 1), (start + timedelta(hours=1), 5)],
        ),
    ]
    root = parse(progress_plot(series, title="Judgments per annotator"))
    labels = tick_labels(root, "label")
    assert_labels_say_their_positions(labels)
    at = linear(labels)
    for circle in root.iter(f"{SVG}circle"):
        title = None
        assert circle.get("cy") is not None and title is None
    # Each point drawn at its count on the labelled axis: 7 at the top line's last point.
    ys = sorted(float(c.get("cy")) for c in root.iter(f"{SVG}circle"))
    assert abs(ys[0] - at(7)) < 0.15
    assert_texts_inside(root)


def test_scatter_and_interval_ticks_say_their_values():
    points = [
        ScatterPoint("A", 0.13, 31.27),
        ScatterPoint("B", 0.52, 44.9),
        ScatterPoint("a-system-with-a-long-name-that-goes-on-and-on", -0.41, 27.0),
    ]
    root = parse(scatter_plot(points, title="t", x_label="BLEU (higher)", y_label="z"))
    y_labels, x_labels = tick_labels(root, "label"), tick_labels(root, "tick")
    assert_labels_say_their_positions(y_labels)
    assert_labels_say_their_positions(x_labels)
    at_y, at_x = linear(y_labels), linear(x_labels)
    circles = list(root.iter(f"{SVG}circle"))
    for point, circle in zip(points, circles, strict=True):
        assert abs(float(circle.get("cy")) - at_y(point.human)) < 0.15
        assert abs(float(circle.get("cx")) - at_x(point.metric)) < 0.15
    assert_texts_inside(root)

    rows = [
        ("Online-B", 0.8123, 0.80, 0.83),
        ("a-system-with-a-very-long-name-indeed", 0.79, 0.77, 0.8),
    ]
    root = parse(interval_plot(rows, title="COMET"))
    assert_labels_say_their_positions(tick_labels(root, "tick"))
    assert_texts_inside(root)


def test_error_legend_names_severity_alone_without_categories():
    esa = error_breakdown([("A", "major", None), ("A", "minor", None), ("B", "major", None)])
    texts = [t.text for t in parse(error_bar_plot(esa, title="ESA")).iter(f"{SVG}text")]
    assert "major" in texts and "minor" in texts
    assert not any("(none)" in (t or "") for t in texts)

    mqm = error_breakdown(
        [("A", "major", "Accuracy/Mistranslation"), ("A", "major", None), ("B", "minor", None)]
        + [("C", "minor", "Fluency/Grammar")] * 123  # a total of three digits after its bar
    )
    root = parse(error_bar_plot(mqm, title="MQM"))
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "uncategorised · major" in texts and "Accuracy/Mistranslation · major" in texts
    assert not any("(none)" in (t or "") for t in texts)
    titles = [t.text for t in root.iter(f"{SVG}title")]
    assert not any("(none)" in (t or "") for t in titles)
    assert_texts_inside(root)


def time_labels(root: ET.Element) -> list[tuple[str, float]]:
    return [
        (text.text or "", float(text.get("x")))
        for text in root.iter(f"{SVG}text")
        if (text.get("class") or "").split()[:1] == ["tick"]
    ]


def test_progress_time_labels_never_say_the_same_moment_twice_or_leave_the_picture():
    start = datetime(2026, 1, 1, 9, 30, 5, tzinfo=UTC)
    # Everything at one moment (the demo's judgments are stored in one go): one label.
    same = start + timedelta(milliseconds=300)
    one = parse(progress_plot([Series("A", [(start, 1), (same, 3)])], title="t"))
    assert [label for label, _ in time_labels(one)] == ["2026-01-01 09:30"]
    assert_texts_inside(one)
    # Within one minute: the seconds tell the ends apart.
    minute = [Series("A", [(start, 1), (start + timedelta(seconds=40), 3)])]
    labels = [label for label, _ in time_labels(parse(progress_plot(minute, title="t")))]
    assert labels == ["2026-01-01 09:30:05", "09:30:45"]
    # Over days: the end names its day.
    days = [Series("A", [(start, 1), (start + timedelta(days=2, hours=1), 3)])]
    labels = [label for label, _ in time_labels(parse(progress_plot(days, title="t")))]
    assert labels == ["2026-01-01 09:30", "2026-01-03 10:30"]
