"""What a protocol declares (``Protocol``), and the helpers its answer checks share.

The task settings a protocol may name are catalogued in ``annotation.protocols.settings``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.errors import ApplicationError
from annotation.lib.scales import scale_range
from annotation.models import TaskType
from annotation.protocols.settings import (
    COMMON_SETTINGS,
    QUALITY_CONTROL,
    QUALITY_CONTROL_LABELS,
    SETTINGS,
)
from annotation.protocols.simulated import Simulate
from metrics.report.tables import PROTOCOLS as PUBLISHED


class AnswerError(ApplicationError):
    """Why an annotator's answer does not fit the protocol (a 400 with the message)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="invalid")


def whole_number(answer: Mapping[str, Any], key: str) -> int:
    """``answer[key]`` as an int; "3" passes (a posted form), 3.5, True and "3x" do not."""
    value = answer.get(key)
    if isinstance(value, bool) or value is None:
        raise AnswerError(f"{key} is required")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise AnswerError(f"{key} must be a whole number, not {value!r}") from None
    if str(number) != str(value).strip():
        raise AnswerError(f"{key} must be a whole number, not {value!r}")
    return number


Answer = Callable[[str, list[dict[str, Any]], Mapping[str, Any]], dict[str, Any]]
# (the posted form, how many candidates it says the screen had, the task's scale) -> the
# answer as ``answer`` takes it; ValueError for a form no page sends.
FormAnswer = Callable[[Mapping[str, Any], int, str], dict[str, Any]]

# The judgment columns an export may fill (the judgment CSV, JSON Lines, Appraise's score CSV
# and the WMT rankings are written from them, ``annotation.selectors.exports``), in the order
# of the files; the span formats' columns are ``spans.SPAN_EXPORT_COLUMNS``.
JUDGMENT_EXPORT_COLUMNS = (
    "score",
    "fluency",
    "preference",
    "ranks",
    "candidate_scores",
    "post_edit",
    "hter",
    "edits",
    "post_edit_length",
)


def posted(*keys: str) -> FormAnswer:
    """An answer of plain form fields: each of ``keys`` the page sent."""

    def form(post: Mapping[str, Any], candidates: int, scale: str) -> dict[str, Any]:
        return {key: post.get(key) for key in keys if key in post}

    return form


def always(scale: str) -> bool:
    return True


def never(scale: str) -> bool:
    return False


@dataclass(frozen=True)
class Protocol:
    """One way of asking for judgments (a task type), declared once.

    - ``settings``: the settings it implements beyond ``COMMON_SETTINGS`` and its
      quality-control rates; any other setting must stay at its default (else refused);
    - ``defaults``: where its default differs from the database's;
    - ``answer``: ``(scale, candidates, answer) -> judgment columns``, raising
      ``AnswerError``; ``needs_item(scale)``: whether checking it needs the item (its
      outputs, its text for spans);
    - ``spans``: the answer marks error spans, checked against the item's text in
      ``annotation.services.spans`` by ESA's rules (a severity, no category) or, where the
      protocol implements the MQM typology setting, MQM's (``span_categories``);
      ``prefilled_spans``: the items come with spans marked by a system (ESA^AI), which the
      annotator keeps, changes or removes; ``contrastive``: the screen's outputs are answered
      one by one (``annotation.services.contrastive`` checks them and stores a row per output);
    - ``scored``: the annotator gives each output a score (MQM's comes from its spans;
      pairwise, ranking and post-editing answer otherwise), on ``score_range`` or, without
      one, the task's scale; a document page's score takes the same range. A tutorial can
      expect scores and spans (``tutorials``);
    - ``parse_form``: the answer from the item screen's posted form;
    - ``template`` and ``scripts``: the answer part of the item screen and its own scripts
      in load order (beside ``js/evalsite.js``, which every item screen loads);
    - ``quality_control``: kinds from ``QUALITY_CONTROL``;
    - ``results_section``: the template of its section on the human results page;
    - ``export_columns``: the columns its exports fill, exactly: the judgment exports leave
      every other column of ``JUDGMENT_EXPORT_COLUMNS`` empty; ``several_outputs``: a screen
      holds several outputs, so the judgment CSV has a row per output's system;
      ``wmt_ranking``: its judgments rank outputs, so the WMT ranking CSV holds them; the span
      formats hold the judgments of one output's spans (``one_output_spans``);
    - ``variant_of``: the protocol it varies (ESA^AI: ESA), whose Pearmut tutorials it takes;
    - ``instructions``: the default wording annotators read first and behind "?";
      ``monolingual_instructions``: the wording of a monolingual task, where it differs;
    - ``pearmut``: the readings of a Pearmut campaign file (``annotation.lib.pearmut.READINGS``)
      imported as this protocol;
    - ``simulate``: how the demo's simulated raters answer it (``protocols.simulated``).
    """

    task_type: TaskType
    answer: Answer
    parse_form: FormAnswer
    template: str  # the answer part of the item screen (annotate/_item_form.html includes it)
    instructions: str = ""  # the default wording annotators read (WMT's)
    settings: frozenset[str] = frozenset()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    quality_control: frozenset[str] = frozenset({"repeat"})
    scripts: tuple[str, ...] = ()  # its own scripts in load order, beside js/evalsite.js
    results_section: str = "results/_human_task.html"
    export_columns: tuple[str, ...] = ()
    spans: bool = False
    prefilled_spans: bool = False
    contrastive: bool = False
    several_outputs: bool = False
    scored: bool = False
    score_range: tuple[int, int] | None = None  # None: the task's scale
    wmt_ranking: bool = False
    variant_of: TaskType | None = None
    needs_item: Callable[[str], bool] = always
    # launch, checks and imports (decl3)
    source_shown: bool = True  # the screen shows the source (fluency: the output alone)
    lettered: bool = False  # its outputs are labelled A, B, … on the screen (else 1, 2, …)
    # The Appraise TASK_TYPEs, each with the span protocol its TASK_OPTIONS name ("esa",
    # "mqm") or None, whose campaigns are imported as this protocol (a variant with
    # ``prefilled_spans`` takes the campaigns of its ``variant_of`` whose items come with spans).
    appraise: tuple[tuple[str, str | None], ...] = ()
    mqm_tsv: bool = False  # Google's MQM TSV ratings are imported as this protocol
    # results (decl4)
    # How its rankings score and publish systems (a key of metrics.report.tables.PROTOCOLS:
    # da, cda, esa, mqm); None: no ranking status, no shared-task table, no metric comparison.
    ranked_as: str | None = None
    # Likert: each question its results rank (z-standardised per annotator) -> the column.
    measures: Mapping[str, str] = field(default_factory=dict)
    # the last branches on the type (decl5)
    # Read instead of ``instructions`` by a monolingual task (the reference, not the source).
    monolingual_instructions: str = ""
    # The readings of a Pearmut campaign (annotation/lib/pearmut.py READINGS: its protocol,
    # DA's sliders, ESA's pre-filled spans) imported as this protocol; one protocol a reading.
    pearmut: tuple[str, ...] = ()
    # How a simulated rater of the demo answers (annotation/demo.py); None: not simulated.
    simulate: Simulate | None = None

    @property
    def penalty_scored(self) -> bool:
        """Whether its score is the penalty of its spans under the task's MQM weights
        (MQM, contrastive MQM): annotators give none; higher penalties are worse."""
        return self.span_categories and not self.scored

    @property
    def label(self) -> str:
        return str(self.task_type.label)

    @property
    def setting_names(self) -> frozenset[str]:
        rates = {QUALITY_CONTROL[kind] for kind in self.quality_control}
        return COMMON_SETTINGS | self.settings | rates

    def applies(self, name: str) -> bool:
        return name in self.setting_names

    def scores(self, scale: str) -> tuple[int, int]:
        """The range of an annotator's scores, and of a document page's score."""
        return self.score_range or scale_range(scale)

    @property
    def span_categories(self) -> bool:
        """Whether its spans take a category of the task's MQM typology, weighed by the
        task's MQM weights (MQM's rules), as the settings it implements say; else a span
        has a severity only (ESA's rules)."""
        return self.spans and self.applies("mqm_categories")

    @property
    def one_output_spans(self) -> bool:
        """Whether a judgment marks the spans of one output: the span formats (Appraise's
        ESA CSV, Google's MQM TSV, the spans JSON Lines), a row per output, hold these."""
        return self.spans and not self.several_outputs

    @property
    def tutorials(self) -> bool:
        """Whether a tutorial can expect its answers (scores, spans: what
        ``annotation.lib.tutorials`` grades)."""
        return self.scored or self.spans

    @property
    def family(self) -> TaskType:
        """The protocol it is, or the one it varies (``variant_of``)."""
        return self.variant_of or self.task_type

    def default(self, name: str) -> Any:
        return self.defaults[name] if name in self.defaults else SETTINGS[name].default

    def unimplemented(self, values: Mapping[str, Any]) -> str | None:
        """Why some of ``values`` cannot be used: settings this protocol does not implement,
        set to something else than their default (silently ignoring them would plan a task
        other than the one asked for)."""
        refused = sorted(
            name
            for name, value in values.items()
            if name in SETTINGS and not self.applies(name) and value != self.default(name)
        )
        if not refused:
            return None
        kinds = ", ".join(QUALITY_CONTROL_LABELS[k] for k in sorted(self.quality_control))
        return (
            f"{self.label} tasks do not implement {', '.join(refused)}: leave "
            f"{'it' if len(refused) == 1 else 'them'} at the default "
            f"({', '.join(f'{n} {self.default(n)!r}' for n in refused)}); their quality "
            f"control is {kinds}"
        )

    # results (decl4)
    @property
    def lower_is_better(self) -> bool:
        """Whether its rankings' score is lower-is-better (MQM's error weight), as the
        protocol it is published as says."""
        return self.ranked_as is not None and PUBLISHED[self.ranked_as].lower_is_better

    @property
    def likert(self) -> bool:
        """Whether it asks Likert questions (``measures``), each a point of the task's scale."""
        return bool(self.measures)

    @property
    def ranks_reference(self) -> bool:
        """Whether its rankings rank the human reference as a system ("Human"): the Likert
        questions', as WMT's DA; the others leave references to quality control."""
        return bool(self.measures)
