"""The catalogue of task settings, each described once: its kind, bounds, label, help and
whether it may change after launch (``SETTINGS``), and the groups of settings protocols share.

A protocol (``annotation.protocols.base.Protocol``) names the settings it implements; the page
form (``annotation.forms``), the API serializers and so the OpenAPI schema
(``annotation.api.tasks``), the edit page and the task rules (``annotation.services.task_rules``)
are built from these two declarations.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import models

from annotation.models import Assignment, CheckFeedback, Scale, Task, Unit

MAX_SEED = 2**62
MQM_CATEGORY_CHARS = 100
MAX_MQM_CATEGORIES = 200
MAX_MQM_WEIGHTS_CHARS = 10_000
MAX_TASK_NAME_CHARS = 100
MAX_PAGE_SIZE = 100


def json_value_problem(value: Any, where: str = "") -> str | None:
    """Why a JSON value cannot be stored: a number that is not finite (``1e999``, NaN) or a
    NUL character, which PostgreSQL's jsonb refuses."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where or 'a value'} is not a finite number ({value})"
    if isinstance(value, str) and "\x00" in value:
        return f"{where or 'a value'} contains a NUL character"
    if isinstance(value, dict):
        for key, item in value.items():
            if "\x00" in str(key):
                return "a key contains a NUL character"
            if problem := json_value_problem(item, f"{where}.{key}".lstrip(".")):
                return problem
    if isinstance(value, list):
        for index, item in enumerate(value):
            if problem := json_value_problem(item, f"{where}[{index}]"):
                return problem
    return None


def _mqm_categories_problem(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        return "a list of category names"
    if any(len(c) > MQM_CATEGORY_CHARS for c in value):
        return f"a category name is at most {MQM_CATEGORY_CHARS} characters"
    if len(value) > MAX_MQM_CATEGORIES:
        return f"at most {MAX_MQM_CATEGORIES} categories"
    return json_value_problem(value, "a category")


def _mqm_weights_problem(value: Any) -> str | None:
    if not isinstance(value, dict):
        return "a JSON object"
    return json_value_problem(value)


@dataclass(frozen=True)
class Setting:
    """One task setting. ``kind``: int, number (a float within the bounds), share (a rate in
    [0, 1), bounded by the task rules' quality-control check with its own messages), bool,
    choice, line, text, url, lines (a list of strings, a line each on the page) or json (an
    object)."""

    name: str
    kind: str
    label: str
    help: str = ""
    minimum: int | float | None = None
    maximum: int | float | None = None
    max_length: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    after_launch: bool = False  # may change once the task is launched
    optional: bool = False  # blank on the page / left out: the service chooses (name, seed)
    check: Callable[[Any], str | None] | None = None  # a rule beyond the bounds

    @property
    def default(self) -> Any:
        """The database's default (a callable one, such as the seed's, is drawn later)."""
        column = Task._meta.get_field(self.name)
        assert isinstance(column, models.Field)  # a setting is a column, never a relation
        default = column.default
        return None if callable(default) and default not in (list, dict) else _fresh(default)

    def problem(self, value: Any) -> str | None:
        """Why ``value`` breaks this setting's bounds, or None (the form and the serializer
        check the same bounds first, each in its own words)."""
        if value is None:
            return None
        numeric = (int, float) if self.kind == "number" else (int,)
        if (
            self.kind in {"int", "number"}
            and not isinstance(value, bool)
            and isinstance(value, numeric)
        ):
            if self.minimum is not None and value < self.minimum:
                return f"{self.name} is at least {self.minimum}, not {value}"
            if self.maximum is not None and value > self.maximum:
                return f"{self.name} is at most {self.maximum}, not {value}"
        limit = self.max_length
        if isinstance(value, str) and limit is not None and len(value) > limit:
            return f"{self.name} is at most {self.max_length} characters"
        if self.check is not None and (problem := self.check(value)):
            return f"{self.name}: {problem}"
        return None


def _fresh(default: Any) -> Any:
    return default() if default in (list, dict) else default


# Every task setting, once. Their order is the form's.
SETTINGS: dict[str, Setting] = {
    setting.name: setting
    for setting in (
        Setting(
            "name",
            "line",
            "Name",
            "Shown to annotators; blank: the task type's name (numbered if the campaign has "
            "one of that name)",
            max_length=MAX_TASK_NAME_CHARS,
            after_launch=True,
            optional=True,
        ),
        Setting("scale", "choice", "Scale", choices=tuple(Scale.choices)),
        Setting("judgments_per_item", "int", "Judgments per item (k)", minimum=1, maximum=50),
        Setting(
            "ranking_size",
            "int",
            "Outputs per screen (N)",
            "Ranking and contrastive tasks",
            minimum=2,
            maximum=50,
        ),
        Setting(
            "monolingual",
            "bool",
            "Monolingual",
            "Adequacy against the reference, not the source",
        ),
        Setting("show_reference", "bool", "Show the reference"),
        Setting(
            "context_size",
            "int",
            "Context (segments each side)",
            "Needs document ids",
            minimum=0,
            maximum=20,
        ),
        Setting(
            "unit",
            "choice",
            "Unit of a screen",
            "Document: a document's segments in reading order on one screen, paged; needs "
            "document ids",
            choices=tuple(Unit.choices),
        ),
        Setting(
            "page_size",
            "int",
            "Segments per page",
            "Document unit: a longer document is cut into pages of at most this many",
            minimum=1,
            maximum=MAX_PAGE_SIZE,
        ),
        Setting(
            "document_score",
            "bool",
            "Score each page as a whole",
            "Document unit: one more score per page, kept apart from the segment judgments",
        ),
        Setting(
            "items_per_annotator",
            "int",
            "Items per annotator",
            "0: no limit; rounded up to whole batches",
            minimum=0,
            maximum=1_000_000,
        ),
        Setting(
            "batch_size",
            "int",
            "Items per batch",
            "An annotator takes a whole batch (WMT: 100); repeats come on top",
            minimum=1,
            maximum=10_000,
        ),
        Setting(
            "repeat_rate",
            "share",
            "Repeat rate",
            "A share below 1: 0.1 is 10%",
            minimum=0.0,
            maximum=1.0,
        ),
        Setting(
            "bad_reference_rate",
            "share",
            "Bad reference rate",
            "A share below 1",
            minimum=0.0,
            maximum=1.0,
        ),
        Setting(
            "reference_rate",
            "share",
            "Human reference rate",
            "A share below 1",
            minimum=0.0,
            maximum=1.0,
        ),
        Setting(
            "hotw_rate",
            "share",
            "HOTW error rate",
            "MQM: a share of the items comes again with an error injected (Anthea's "
            "hotw_percent / 100) that the rater must mark; never counted in the scores",
            minimum=0.0,
            maximum=1.0,
        ),
        Setting(
            "shuffle_rate",
            "share",
            "Shuffled-translation check rate",
            "Contrastive tasks: a share of the screens comes again with one translation's words "
            "shuffled (WMT26: five tokens rotated, ten characters in Chinese, Japanese and "
            "Thai), to be scored below the clean ones; never counted in the scores",
            minimum=0.0,
            maximum=1.0,
        ),
        Setting(
            "check_feedback",
            "choice",
            "Attention checks",
            "Loud: an annotator who fails a check is warned and answers again; silent: the "
            "outcome is only recorded",
            choices=tuple(CheckFeedback.choices),
            after_launch=True,
        ),
        Setting(
            "seed",
            "int",
            "Seed",
            "Draws the items' order and quality control; blank: a new random seed",
            minimum=0,
            maximum=MAX_SEED,
            optional=True,
        ),
        Setting(
            "lease_seconds",
            "int",
            "Lease (seconds)",
            "How long a claimed batch stays with an idle annotator",
            minimum=60,
            maximum=86_400,
            after_launch=True,
        ),
        Setting(
            "equivalence_margin",
            "number",
            "Equivalence margin (δ)",
            "Ranking status on the results page: neighbouring systems whose mean scores surely "
            "differ by less than this are equivalent; 0: only resolve them. In the protocol's "
            "units: z for DA (0.1 is small), points for ESA (0-100) and MQM",
            minimum=0.0,
            maximum=100.0,
            after_launch=True,
        ),
        Setting(
            "assignment",
            "choice",
            "Assignment",
            "Adaptive: after a cold start, each batch holds one system's outputs (contrastive: "
            "screens of one set of systems), given to the system (set) whose judgments most "
            "narrow the ranking's open pairs; the task stops by itself when the ranking is "
            "settled or the budget spent",
            choices=tuple(Assignment.choices),
        ),
        Setting(
            "cold_start",
            "int",
            "Cold start (items per system)",
            "Adaptive: every system is judged on this many items (pages of a document task) "
            "before priorities count",
            minimum=2,
            maximum=100_000,
        ),
        Setting(
            "judgment_budget",
            "int",
            "Judgment budget (judgments; contrastive: screens)",
            "Adaptive: the task stops once this many judgments are recorded, quality control "
            "included: one per item an annotator submits (an output; a contrastive screen, "
            "however many outputs it shows; a segment of a document page), the unit of the "
            "budget planner's total and of the results page's estimate; 0: no budget",
            minimum=0,
            maximum=100_000_000,
            after_launch=True,
        ),
        Setting(
            "mqm_categories",
            "lines",
            "MQM typology",
            "One category a line; empty: Google's MQM typology",
            max_length=MQM_CATEGORY_CHARS,
            check=_mqm_categories_problem,
        ),
        Setting(
            "mqm_weights",
            "json",
            "MQM weights (JSON)",
            'e.g. {"severity": {"major": 5, "minor": 1}, "non_translation": 25}; empty: Google\'s',
            max_length=MAX_MQM_WEIGHTS_CHARS,
            check=_mqm_weights_problem,
        ),
        Setting(
            "instructions",
            "text",
            "Instructions",
            "Blank: the default wording for the task type (WMT's)",
            max_length=20_000,
            after_launch=True,
        ),
        Setting(
            "completion_code",
            "line",
            "Completion code",
            "Crowd studies: shown at the end of a finished batch whose attention checks passed",
            max_length=64,
            after_launch=True,
        ),
        Setting(
            "completion_url",
            "url",
            "Completion URL",
            "Crowd studies: participants are sent here at the end (instead of a code)",
            max_length=500,
            after_launch=True,
        ),
        Setting(
            "failure_code",
            "line",
            "Failure code",
            "Crowd studies: shown instead of the completion code to a participant who failed "
            "the attention checks (blank: they get none)",
            max_length=64,
            after_launch=True,
        ),
        Setting(
            "failure_url",
            "url",
            "Failure URL",
            "Crowd studies: a participant who failed the attention checks is sent here",
            max_length=500,
            after_launch=True,
        ),
    )
}
# Settings every protocol has: how much is asked, of whom, in which order, and the wording.
COMMON_SETTINGS = frozenset(
    {
        "name",
        "judgments_per_item",
        "items_per_annotator",
        "batch_size",
        "seed",
        "lease_seconds",
        "instructions",
        "completion_code",
        "completion_url",
        "failure_code",
        "failure_url",
        "check_feedback",
    }
)
# Adaptive collection (annotation/services/adaptive.py): protocols whose results page has a
# ranking status to stop by name these (contrastive ones: services/contrastive_adaptive.py).
ADAPTIVE_SETTINGS = frozenset({"assignment", "cold_start", "judgment_budget"})
# Document-level annotation (annotation/services/pages.py): protocols that can show a
# document page name these.
DOCUMENT_SETTINGS = frozenset({"unit", "page_size", "document_score"})
# The quality-control kinds a protocol may support, each planned from one rate.
QUALITY_CONTROL = {
    "repeat": "repeat_rate",
    "bad_reference": "bad_reference_rate",
    "reference": "reference_rate",
    "hotw": "hotw_rate",
    "shuffle": "shuffle_rate",
}
QUALITY_CONTROL_LABELS = {
    "repeat": "repeats",
    "bad_reference": "bad references",
    "reference": "human references",
    "hotw": "HOTW errors",
    "shuffle": "shuffled-translation checks",
}
