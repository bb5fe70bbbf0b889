"""Tutorial items: the manager's JSON Lines read and checked, Pearmut's ``validation`` read as
expected answers, and an answer graded against them (pure: no database).

An expected answer names, per candidate, any of: a score range ``[low, high]`` (inclusive),
spans that must be found and ``above``: a candidate this one must be scored above (strictly,
as Pearmut's ``score_greaterthan``). A span is found when some span of the answer starts and
ends inside the expected ranges (character offsets into the translation, ``end`` exclusive)
and has the expected severity and category, if given; ``{"missing": true}`` is found by the
missing-content marker. Spans the answer marks beyond those expected are not counted against
it (as in Pearmut).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from metrics.spans import Span

# An expected span given by single offsets (or by its text) may start and end this many
# characters either side; the manager may set ``tolerance`` per span.
DEFAULT_SPAN_TOLERANCE = 2
MAX_TUTORIAL_ITEMS = 200
MAX_TEXT = 5000
SINGLE = "translation"  # the candidate's name when a line gives one ``target``
LINE_KEYS = {
    "id",
    "language",
    "instructions",
    "source",
    "reference",
    "target",
    "candidates",
    "expected",
    "explanation",
    "prefilled",
    "skippable",
}
RULE_KEYS = {"score", "spans", "above"}
SPAN_KEYS = {"start", "end", "text", "tolerance", "severity", "category", "missing"}
SETTINGS_KEYS = {"task_instructions", "language"}


class TutorialFormatError(ValueError):
    """A tutorial file or answer evalsite cannot use, with where and why."""


@dataclass
class TutorialDraft:
    """One tutorial item as read, before it is stored."""

    language: str
    external_id: str
    instructions: str
    source: str
    reference: str
    candidates: list[dict[str, Any]]
    expected: dict[str, dict[str, Any]]
    explanation: str
    skippable: bool = False  # may be skipped, not counted (Pearmut's allow_skip)


@dataclass
class TutorialFile:
    """A whole upload: items by language, and instructions per target language."""

    items: list[TutorialDraft] = field(default_factory=list)
    instructions: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CandidateAnswer:
    score: float | None
    spans: tuple[Span, ...] = ()


def _text(value: Any, where: str, *, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise TutorialFormatError(f"{where} must be {'non-empty ' if required else ''}text")
    if len(value) > MAX_TEXT:
        raise TutorialFormatError(f"{where} is longer than {MAX_TEXT} characters")
    return value


def _language(value: Any, where: str) -> str:
    language = _text(value, f"{where}: language").strip().lower()
    if len(language) > 16:
        raise TutorialFormatError(f"{where}: language must be a language code such as 'de'")
    return language


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TutorialFormatError(f"{where} must be a number")
    return float(value)


def _range(value: Any, where: str, tolerance: int = 0) -> list[int]:
    """``[low, high]`` from a pair, or from one offset and the tolerance."""
    if isinstance(value, list):
        if len(value) != 2 or not all(type(v) is int and v >= 0 for v in value):
            raise TutorialFormatError(f"{where} must be [low, high] character offsets")
        if value[0] > value[1]:
            raise TutorialFormatError(f"{where}: low is above high")
        return [value[0], value[1]]
    if type(value) is not int or value < 0:
        raise TutorialFormatError(f"{where} must be a character offset or [low, high]")
    return [max(0, value - tolerance), value + tolerance]


def _expected_span(raw: Any, target: str, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise TutorialFormatError(f"{where} must be an object")
    unknown = set(raw) - SPAN_KEYS
    if unknown:
        raise TutorialFormatError(f"{where}: unknown key {', '.join(sorted(unknown))}")
    span: dict[str, Any] = {}
    for key in ("severity", "category"):
        if raw.get(key) is not None:
            span[key] = _text(raw[key], f"{where}: {key}", required=True).strip().lower()
    if raw.get("missing"):
        return {"missing": True, **span}
    tolerance = raw.get("tolerance", DEFAULT_SPAN_TOLERANCE)
    if type(tolerance) is not int or not 0 <= tolerance <= 50:
        raise TutorialFormatError(f"{where}: tolerance must be 0 to 50 characters")
    if "text" in raw:
        text = _text(raw["text"], f"{where}: text", required=True)
        at = target.find(text)
        if at < 0:
            raise TutorialFormatError(f"{where}: text {text!r} is not in the translation")
        start, end = at, at + len(text)
    elif "start" in raw and "end" in raw:
        start, end = raw["start"], raw["end"]
    else:
        raise TutorialFormatError(f"{where}: give start and end, text, or missing")
    starts = _range(start, f"{where}: start", tolerance)
    ends = _range(end, f"{where}: end", tolerance)
    if starts[0] > len(target) or ends[0] > len(target) or ends[1] < starts[0]:
        raise TutorialFormatError(f"{where}: the span is not within the translation")
    # What the manager meant to mark (a range's middle), to name it in the feedback.
    first, last = _nominal(start), _nominal(end)
    shown = target[first : max(first, last)]
    return {"start": starts, "end": [ends[0], min(ends[1], len(target))], "text": shown, **span}


def _nominal(value: int | list[int]) -> int:
    return value if isinstance(value, int) else (value[0] + value[1]) // 2


def expected_rules(
    raw: Any, candidates: Sequence[dict[str, Any]], where: str
) -> dict[str, dict[str, Any]]:
    """Checked expected answers by candidate name; one candidate may give its rule directly."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise TutorialFormatError(f"{where}: expected must be an object")
    names = [c["name"] for c in candidates]
    if len(candidates) == 1 and set(raw) <= RULE_KEYS:
        raw = {names[0]: raw} if raw else {}
    rules: dict[str, dict[str, Any]] = {}
    for name, rule in raw.items():
        at = f"{where}: expected of {name!r}"
        if name not in names:
            raise TutorialFormatError(f"{at}: no such candidate")
        if not isinstance(rule, dict):
            raise TutorialFormatError(f"{at} must be an object")
        unknown = set(rule) - RULE_KEYS
        if unknown:
            raise TutorialFormatError(f"{at}: unknown key {', '.join(sorted(unknown))}")
        target = candidates[names.index(name)]["text"]
        checked: dict[str, Any] = {}
        if "score" in rule:
            score = rule["score"]
            if not isinstance(score, list) or len(score) != 2:
                raise TutorialFormatError(f"{at}: score must be [low, high]")
            low, high = (_number(v, f"{at}: score") for v in score)
            if low > high:
                raise TutorialFormatError(f"{at}: score low is above high")
            checked["score"] = [low, high]
        if "spans" in rule:
            if not isinstance(rule["spans"], list):
                raise TutorialFormatError(f"{at}: spans must be a list")
            checked["spans"] = [
                _expected_span(span, target, f"{at}: span {i + 1}")
                for i, span in enumerate(rule["spans"])
            ]
        if "above" in rule:
            if rule["above"] not in names or rule["above"] == name:
                raise TutorialFormatError(f"{at}: above must name another candidate")
            checked["above"] = rule["above"]
        if checked:
            rules[name] = checked
    return rules


def _candidates(line: dict[str, Any], where: str) -> list[dict[str, Any]]:
    if ("target" in line) == ("candidates" in line):
        raise TutorialFormatError(f"{where}: give target or candidates (one of them)")
    if "target" in line:
        return [{"name": SINGLE, "text": _text(line["target"], f"{where}: target", required=True)}]
    raw = line["candidates"]
    if not isinstance(raw, list) or not raw:
        raise TutorialFormatError(f"{where}: candidates must be a non-empty list")
    candidates = []
    for i, entry in enumerate(raw):
        at = f"{where}: candidate {i + 1}"
        if not isinstance(entry, dict) or set(entry) - {"name", "text"}:
            raise TutorialFormatError(f"{at} must be {{name, text}}")
        name = _text(entry.get("name", chr(ord("A") + i)), f"{at}: name", required=True)
        candidates.append({"name": name, "text": _text(entry.get("text"), at, required=True)})
    if len({c["name"] for c in candidates}) != len(candidates):
        raise TutorialFormatError(f"{where}: candidate names must differ")
    return candidates


def tutorial_lines_parse(lines: Sequence[str], *, name: str = "tutorial") -> TutorialFile:
    """The manager's JSON Lines, checked whole: one tutorial item per line, or a line
    ``{"task_instructions", "language"}`` giving the task's instructions for one target
    language ("" or no language: the default)."""
    import json

    parsed = TutorialFile()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}, line {number}"
        try:
            data = json.loads(line)
        except ValueError as error:
            raise TutorialFormatError(f"{where}: not JSON ({error})") from None
        if not isinstance(data, dict):
            raise TutorialFormatError(f"{where}: expected a JSON object")
        if "task_instructions" in data:
            unknown = set(data) - SETTINGS_KEYS
            if unknown:
                raise TutorialFormatError(f"{where}: unknown key {', '.join(sorted(unknown))}")
            language = _language(data.get("language"), where)
            text = _text(data["task_instructions"], f"{where}: task_instructions", required=True)
            parsed.instructions[language] = text
            continue
        unknown = set(data) - LINE_KEYS
        if unknown:
            raise TutorialFormatError(f"{where}: unknown key {', '.join(sorted(unknown))}")
        candidates = _candidates(data, where)
        prefilled = data.get("prefilled")
        if prefilled is not None:
            if len(candidates) != 1 or not isinstance(prefilled, list):
                raise TutorialFormatError(f"{where}: prefilled is a list of spans (one target)")
            candidates[0]["prefilled"] = prefilled
        skippable = data.get("skippable", False)
        if not isinstance(skippable, bool):
            raise TutorialFormatError(f"{where}: skippable must be true or false")
        parsed.items.append(
            TutorialDraft(
                language=_language(data.get("language"), where),
                external_id=_text(data.get("id"), f"{where}: id")[:200],
                instructions=_text(data.get("instructions"), f"{where}: instructions"),
                source=_text(data.get("source"), f"{where}: source"),
                reference=_text(data.get("reference"), f"{where}: reference"),
                candidates=candidates,
                expected=expected_rules(data.get("expected"), candidates, where),
                explanation=_text(data.get("explanation"), f"{where}: explanation"),
                skippable=skippable,
            )
        )
    check_size(parsed, name)
    return parsed


def check_size(parsed: TutorialFile, name: str) -> None:
    if not parsed.items and not parsed.instructions:
        raise TutorialFormatError(f"{name}: no tutorial item and no instructions in the file")
    if len(parsed.items) > MAX_TUTORIAL_ITEMS:
        raise TutorialFormatError(f"{name}: at most {MAX_TUTORIAL_ITEMS} tutorial items")


def _found(expected: dict[str, Any], spans: Sequence[Span]) -> bool:
    for span in spans:
        if expected.get("severity") and span.severity.lower() != expected["severity"]:
            continue
        if expected.get("category") and (span.category or "").lower() != expected["category"]:
            continue
        if expected.get("missing"):
            if span.start is None:
                return True
            continue
        if span.start is None or span.end is None:
            continue
        (start_low, start_high), (end_low, end_high) = expected["start"], expected["end"]
        if start_low <= span.start <= start_high and end_low <= span.end <= end_high:
            return True
    return False


def expected_span_said(expected: dict[str, Any]) -> str:
    """An expected span in words: its text, severity and category."""
    kind = " ".join(v for v in (expected.get("severity"), expected.get("category")) if v)
    kind = f" ({kind})" if kind else ""
    if expected.get("missing"):
        return f"missing content{kind}"
    return f"“{expected.get('text', '')}”{kind}"


def tutorial_grade(
    *,
    expected: dict[str, dict[str, Any]],
    candidates: Sequence[dict[str, Any]],
    answers: Sequence[CandidateAnswer],
) -> list[str]:
    """What the answer missed, in words (none: as expected)."""
    names = [c["name"] for c in candidates]
    by_name = dict(zip(names, answers, strict=True))
    several = len(names) > 1
    failures: list[str] = []
    for name, rule in expected.items():
        answer = by_name[name]
        who = f"Translation {_label(names, name)}: " if several else ""
        if "score" in rule:
            low, high = rule["score"]
            if answer.score is None or not low <= answer.score <= high:
                given = "no score" if answer.score is None else f"the score {answer.score:g}"
                failures.append(f"{who}{given} is outside {low:g}–{high:g}")
        for span in rule.get("spans", []):
            if not _found(span, answer.spans):
                failures.append(f"{who}the error {expected_span_said(span)} is not marked")
        if "above" in rule:
            other = by_name[rule["above"]]
            if answer.score is None or other.score is None or answer.score <= other.score:
                failures.append(
                    f"{who}should be scored above translation {_label(names, rule['above'])}"
                )
    return failures


def _label(names: Sequence[str], name: str) -> str:
    """The letter a candidate is shown under (system names are never shown)."""
    index = names.index(name)
    return chr(ord("A") + index) if index < 26 else str(index + 1)


def expected_said(
    *, expected: dict[str, dict[str, Any]], candidates: Sequence[dict[str, Any]]
) -> list[str]:
    """The expected answer in words, one line per candidate with a rule."""
    names = [c["name"] for c in candidates]
    lines = []
    for name, rule in expected.items():
        parts = []
        if "score" in rule:
            low, high = rule["score"]
            parts.append(
                f"a score of {low:g}" if low == high else f"a score from {low:g} to {high:g}"
            )
        spans = [expected_span_said(span) for span in rule.get("spans", [])]
        if spans:
            parts.append("errors marked: " + "; ".join(spans))
        if "above" in rule:
            parts.append(f"scored above translation {_label(names, rule['above'])}")
        who = f"Translation {_label(names, name)}: " if len(names) > 1 else ""
        lines.append(who + ", ".join(parts))
    return lines


def answer_said(*, answer: dict[str, Any], candidates: Sequence[dict[str, Any]]) -> list[str]:
    """The annotator's stored answer in words (beside what was expected), one line per
    candidate; its offsets were checked when it was recorded."""
    given = answer.get("candidates")
    entries = given if isinstance(given, list) else [answer]
    several = len(candidates) > 1
    lines = []
    for index, (entry, candidate) in enumerate(zip(entries, candidates, strict=False)):
        parts = []
        if entry.get("score") not in (None, ""):
            parts.append(f"score {entry['score']}")
        marked = []
        for span in entry.get("spans") or []:
            kind = " ".join(v for v in (span.get("severity"), span.get("category")) if v)
            if span.get("start") is None:
                marked.append(f"missing content ({kind})")
            else:
                marked.append(f"“{candidate['text'][span['start'] : span['end']]}” ({kind})")
        parts.append("errors marked: " + "; ".join(marked) if marked else "no error marked")
        who = f"Translation {chr(ord('A') + index)}: " if several else ""
        lines.append(who + ", ".join(parts))
    return lines
