"""A protocol is one module: the answer (the page's form and its check), the exports, the
document pages, the span rules, the tutorials, the Pearmut export and the results read the
protocol's declaration (annotation/protocols), not the task type.

- Those modules name no task type: a new protocol adds none of its rules there.
- The results follow the declaration: how a protocol is ranked (``ranked_as``) and its
  Likert questions (``measures``) name what the results know.
- Every protocol's judgments, exported, fill exactly the answer columns it declares
  (``export_columns``): none more (a column the judgment holds but the protocol does not
  declare stays empty), none less (each declared column is filled by some answer).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import random
import re
from pathlib import Path

import pytest

from annotation.downloads import judgments_file
from annotation.errors import ApplicationError
from annotation.models import Item, ItemType, Judgment, TaskType
from annotation.protocols import JUDGMENT_EXPORT_COLUMNS, PROTOCOLS
from annotation.protocols.spans import SPAN_EXPORT_COLUMNS
from annotation.selectors.annotation import item_display
from annotation.selectors.human.segment_scores import meta_tasks
from annotation.selectors.human.spans import span_results
from annotation.selectors.human.status_scores import STATISTIC_OF, has_status, status_scores
from annotation.selectors.shared_task_pairs import pair_task
from annotation.services.assignment import slot_claim_next
from annotation.services.check_answers import MQM_REPEAT_TOLERANCE, repeat_tolerance, value_said
from annotation.services.judgments import judgment_record
from annotation.services.spans import (
    PrefillError,
    SpanAnswerError,
    span_answer_validated,
    task_prefilled_spans_set,
)
from annotation.services.tasks import task_create, task_launch
from metrics.report.tables import PROTOCOLS as PUBLISHED

ROOT = Path(__file__).resolve().parent.parent
# The modules that once branched on the task type to read an answer or write an export.
ASKING_THE_DECLARATION = (
    "annotation/views/annotate.py",
    "annotation/services/judgments.py",
    "annotation/selectors/exports.py",
    "annotation/exports.py",
    # The document pages, the span rules (ESA's, MQM's, ESA^AI's pre-filled spans), the
    # tutorial screen and its checks, which tasks the span formats and the WMT rankings hold,
    # and the Pearmut export.
    "annotation/views/document.py",
    "annotation/services/page_judgments.py",
    "annotation/selectors/pages.py",
    "annotation/services/spans.py",
    "annotation/views/tutorials.py",
    "annotation/services/tutorials.py",
    "annotation/services/tutorial_uploads.py",
    "annotation/selectors/spans.py",
    "annotation/downloads.py",
    "annotation/selectors/pearmut.py",
    # The plans of a launch, the quality-control checks themselves, the task rules, the item
    # screen's output labels, the imports of other tools' files (Appraise, Pearmut, Google's
    # MQM TSV) and the span exports.
    "annotation/services/task_items.py",
    "annotation/services/page_plan.py",
    "annotation/services/check_answers.py",
    "annotation/services/page_check_answers.py",
    "annotation/services/task_rules.py",
    "annotation/services/tasks.py",
    "annotation/services/task_changes.py",
    "annotation/selectors/annotation.py",
    "annotation/services/appraise_files.py",
    "annotation/services/appraise.py",
    "annotation/services/appraise_scores.py",
    "annotation/services/pearmut_imports.py",
    "annotation/services/pearmut_media.py",
    "annotation/services/pearmut_answers.py",
    "annotation/services/span_imports.py",
    "annotation/services/media.py",
    "annotation/span_exports.py",
    # The results: each results section's statistics, the live ranking status, the metric
    # comparison, the shared tasks' pairs, the crowd verdicts, page scores and tuning.
    "annotation/selectors/human/__init__.py",
    "annotation/selectors/human/status_scores.py",
    "annotation/selectors/human/segment_scores.py",
    "annotation/selectors/human/spans.py",
    "annotation/selectors/human/loading.py",
    "annotation/selectors/human/likert.py",
    "annotation/selectors/human/postedit.py",
    "annotation/selectors/human/progress.py",
    "annotation/selectors/human/comparisons.py",
    "annotation/selectors/shared_task_pairs.py",
    "annotation/selectors/shared_task_procedures.py",
    "annotation/selectors/crowd.py",
    "annotation/selectors/page_scores.py",
    "annotation/selectors/tuning.py",
    "annotation/selectors/budget.py",
    "annotation/selectors/adaptive.py",
    "annotation/selectors/contrastive_adaptive.py",
    "annotation/services/contrastive_adaptive.py",
    # The task's own rules (Likert, the reference shown, the budget's unit: decl5) and their
    # readers, the contrastive means, the instructions, Pearmut's protocols (Django-free: the
    # readings each protocol declares are passed in), the demo's simulated raters and the
    # filters the pages read a task's protocol with.
    "annotation/models/tasks.py",
    "annotation/models/__init__.py",
    "annotation/services/adaptive.py",
    "annotation/selectors/human/ranking_status.py",
    "annotation/selectors/contrastive.py",
    "annotation/instructions.py",
    "annotation/lib/pearmut.py",
    "annotation/demo.py",
    "annotation/management/commands/load_demo.py",
    "annotation/management/commands/load_demo_reliability.py",
    "annotation/templatetags/evalsite.py",
)
# A task type named (TaskType.X; a model field's TaskType.choices names them all), a group of
# them (SPAN_TYPES, CONTRASTIVE_TYPES, …; not the files' CONTENT_TYPES nor the item kinds'
# ITEM_TYPES), a comparison with one
# (task.task_type in …, row["task_type"] == …), or one's value compared or assigned as a
# literal (task_type = "mqm", … in ("esa", …)).
TYPE_BRANCH = re.compile(
    r"\bTaskType\.(?!choices\b)|\b(?!CONTENT_TYPES|ITEM_TYPES)[A-Z_]+_TYPES\b"
    r"|task_type(?:\"\])?\s*(?:==|!=|\bin\b|\bnot in\b)"
    rf"|(?:=|\bin\b)\s*\(?\"(?:{'|'.join(TaskType.values)})\""
)


def _without_the_type_definitions(source: str) -> str:
    """The module but the ``TaskType`` class, which names each type once (its definition)."""
    if "class TaskType(" not in source:
        return source
    start = source.index("class TaskType(")
    return source[:start] + source[source.index("\n\n\n", start) :]


@pytest.mark.parametrize("path", ASKING_THE_DECLARATION)
def test_the_answer_and_export_modules_name_no_task_type(path):
    source = _without_the_type_definitions((ROOT / path).read_text())
    branches = [line.strip() for line in source.splitlines() if TYPE_BRANCH.search(line)]
    assert branches == [], f"{path} branches on the task type: {branches}"


PAGES = sorted(
    [*(ROOT / "templates").rglob("*.html"), *(ROOT / "static" / "js").glob("*.js")],
    key=str,
)
# A template's or script's comparison with the task type ({% if task.task_type == "mqm" %},
# form.dataset.taskType === "mqm") or with a type's name ({% if type == "pairwise" %}).
PAGE_TYPE_BRANCH = re.compile(
    r"task_?[tT]ype\b\s*(?:===?|!==?|\bin\b)"
    rf"|(?:===?|!==?|\bin\b)\s*['\"](?:{'|'.join(TaskType.values)})['\"]"
)


@pytest.mark.parametrize("path", PAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_pages_and_scripts_read_the_declaration_not_the_task_type(path):
    """A page shows what the task's protocol declares (the ``protocol`` in an item screen's
    context, the ``protocol`` filter elsewhere); a script reads what the page marks."""
    source = path.read_text()
    branches = [line.strip()[:120] for line in source.splitlines() if PAGE_TYPE_BRANCH.search(line)]
    assert branches == [], f"{path.relative_to(ROOT)} branches on the task type: {branches}"


def test_span_protocols_declare_the_span_columns():
    for protocol in PROTOCOLS.values():
        declared = set(SPAN_EXPORT_COLUMNS) <= set(protocol.export_columns)
        assert declared == protocol.spans, protocol.task_type
        assert set(protocol.export_columns) - set(JUDGMENT_EXPORT_COLUMNS) <= {
            *SPAN_EXPORT_COLUMNS,
            "spans.prefilled",
        }, protocol.task_type


def _spans(rng, text, category=None):
    span = {"start": 0, "end": min(3, len(text)), "severity": rng.choice(["minor", "major"])}
    return [span if category is None else {**span, "category": category}]


def _answer(rng, task, candidates):
    """A valid answer of every protocol (random values, fixed seed)."""
    first = candidates[0]["text"]
    answers = {
        TaskType.ADEQUACY: lambda: {"score": rng.randint(1, 5)},
        TaskType.FLUENCY: lambda: {"score": rng.randint(1, 5)},
        TaskType.ADEQUACY_FLUENCY: lambda: {"score": rng.randint(1, 5), "fluency": 2},
        TaskType.PAIRWISE: lambda: (
            {"candidate_scores": [rng.randint(0, 100) for _ in candidates]}
            if task.scale == "da100"
            else {"preference": rng.choice("ABT")}
        ),
        TaskType.RANKING: lambda: {"ranks": [rng.randint(1, 3) for _ in candidates]},
        TaskType.POSTEDIT: lambda: {"post_edit": first + " Korrigiert."},
        TaskType.ESA: lambda: {"score": rng.randint(0, 100), "spans": _spans(rng, first)},
        TaskType.ESA_PREFILLED: lambda: {"score": 50, "spans": _spans(rng, first)},
        TaskType.MQM: lambda: {"spans": _spans(rng, first, "Fluency/Spelling")},
        TaskType.CONTRASTIVE_ESA: lambda: {
            "candidates": [
                {"score": rng.randint(0, 100), "spans": _spans(rng, c["text"])} for c in candidates
            ]
        },
        TaskType.CONTRASTIVE_MQM: lambda: {
            "candidates": [
                {"spans": _spans(rng, c["text"], "Accuracy/Omission")} for c in candidates
            ]
        },
        TaskType.CONTRASTIVE_DA: lambda: {
            "candidates": [{"score": rng.randint(0, 100)} for _ in candidates]
        },
    }
    return answers[task.task_type]()


@pytest.fixture
def every_protocol(loaded_campaign, make_annotator):
    """A task of every protocol (pairwise on both its scales), three items of each judged."""
    annotator = make_annotator(loaded_campaign, "judge")
    rng = random.Random(21)
    settings = [{"task_type": task_type} for task_type in PROTOCOLS]
    settings.append({"task_type": TaskType.PAIRWISE, "scale": "da100", "name": "Side by side"})
    for number, chosen in enumerate(settings):
        if chosen["task_type"] == TaskType.RANKING:
            chosen["ranking_size"] = 3
        task = task_create(campaign=loaded_campaign, seed=300 + number, batch_size=3, **chosen)
        task_launch(task_id=task.id)
        task.refresh_from_db()
        for _ in range(3):
            slot = slot_claim_next(task=task, annotator_id=annotator.id)
            assert slot is not None
            judgment_record(
                task_id=task.id,
                slot_id=slot.id,
                annotator_id=annotator.id,
                answer=_answer(rng, task, slot.item.candidates),
            )
    return loaded_campaign


def _download(campaign, fmt):
    response = judgments_file(
        campaign=campaign, fmt=fmt, task=None, included_only=False, pseudonymise=False
    )
    return b"".join(response.streaming_content).decode()


def _filled_by_type(campaign):
    """Per task type, the answer columns its JSON lines fill (not null)."""
    filled: dict[str, set[str]] = {task_type: set() for task_type in PROTOCOLS}
    for line in _download(campaign, "jsonl").splitlines():
        row = json.loads(line)
        filled[row["task_type"]] |= {c for c in JUDGMENT_EXPORT_COLUMNS if row[c] is not None}
    return filled


# The judgment CSV's answer columns, each with the declared column it shows ("score" shows
# the candidate's score where the row is one output of a screen of several).
CSV_SHOWS = {
    "fluency": "fluency",
    "preference": "preference",
    "rank": "ranks",
    "ranks": "ranks",
    "candidate_score": "candidate_scores",
    "candidate_scores": "candidate_scores",
    "post_edit": "post_edit",
    "hter": "hter",
    "edits": "edits",
    "post_edit_length": "post_edit_length",
}


def _csv_filled_by_type(campaign):
    filled: dict[str, set[str]] = {task_type: set() for task_type in PROTOCOLS}
    for row in csv.DictReader(io.StringIO(_download(campaign, "csv"))):
        shown = {CSV_SHOWS[c] for c in CSV_SHOWS if row[c] != ""}
        if row["score"] != "":
            shown.add("score" if row["candidate"] == "" else "candidate_scores")
        filled[row["task_type"]] |= shown
    return filled


def test_every_protocols_exports_fill_exactly_the_columns_it_declares(every_protocol):
    declared = {
        task_type: set(protocol.export_columns) & set(JUDGMENT_EXPORT_COLUMNS)
        for task_type, protocol in PROTOCOLS.items()
    }
    assert _filled_by_type(every_protocol) == declared
    assert _csv_filled_by_type(every_protocol) == declared


def test_a_json_line_names_one_system_only_for_one_output(every_protocol):
    # A screen of several outputs (pairwise, ranking, contrastive) has no one system: its
    # line lists each output's systems in screen order, and names none in ``system``.
    lines = [json.loads(line) for line in _download(every_protocol, "jsonl").splitlines()]
    judgments = Judgment.objects.select_related("item__system").in_bulk()
    for line in lines:
        item = judgments[line["judgment_id"]].item
        systems = [candidate["systems"] for candidate in item.candidates]
        assert line["systems"] == systems
        if PROTOCOLS[line["task_type"]].several_outputs:
            assert line["system"] is None, line
        else:  # its own system, or the one its output names (a human reference)
            named = item.system.name if item.system else systems[0][0]
            assert line["system"] == named, line
    several = {line["task_type"] for line in lines if line["system"] is None}
    assert several == {
        TaskType.PAIRWISE,
        TaskType.RANKING,
        TaskType.CONTRASTIVE_ESA,
        TaskType.CONTRASTIVE_MQM,
        TaskType.CONTRASTIVE_DA,
    }


def test_a_column_the_protocol_does_not_declare_stays_empty(every_protocol, monkeypatch):
    # A fluency score stored on adequacy judgments (adequacy declares only "score"), and the
    # ranking protocol declared without its ranks: the exports follow the declarations.
    Judgment.objects.filter(task_type=TaskType.ADEQUACY).update(fluency=4)
    ranking = PROTOCOLS[TaskType.RANKING]
    monkeypatch.setitem(
        PROTOCOLS, TaskType.RANKING, dataclasses.replace(ranking, export_columns=())
    )
    jsonl = _filled_by_type(every_protocol)
    table = _csv_filled_by_type(every_protocol)
    for filled in (jsonl, table):
        assert filled[TaskType.ADEQUACY] == {"score"}
        assert filled[TaskType.RANKING] == set()


def test_the_span_rules_and_downloads_follow_the_declaration(launched, monkeypatch):
    """ESA declared with the MQM typology, pre-filled spans and WMT rankings: its spans take
    categories, its items take pre-filled spans and the WMT ranking CSV holds it; the
    declaration decides, not the task type."""
    esa = launched(TaskType.ESA)
    items = Item.objects.filter(task=esa, item_type=ItemType.TGT, system__isnull=False)
    item = items.select_related("segment", "system").order_by("id")[0]
    span = {"start": 0, "end": 2, "severity": "minor", "category": "Fluency/Spelling"}
    answer = {"score": 50, "spans": [span]}
    prefill = json.dumps(
        {"system": item.system.name, "segment": item.segment.index, "spans": [span]}
    ).encode()
    with pytest.raises(SpanAnswerError, match="severity only, no category"):
        span_answer_validated(task=esa, item=item, answer=answer)
    with pytest.raises(PrefillError, match="belong to an ESA"):
        task_prefilled_spans_set(task=esa, name="pre.jsonl", data=prefill)
    with pytest.raises(ApplicationError, match="WMT ranking CSV"):
        judgments_file(
            campaign=esa.campaign, fmt="wmt", task=esa, included_only=False, pseudonymise=False
        )

    declared = PROTOCOLS[TaskType.ESA]
    typology = declared.settings | {"mqm_categories", "mqm_weights"}
    monkeypatch.setitem(
        PROTOCOLS,
        TaskType.ESA,
        dataclasses.replace(declared, settings=typology, prefilled_spans=True, wmt_ranking=True),
    )
    values, checked = span_answer_validated(task=esa, item=item, answer=answer)
    assert values == {"score": 50} and checked[0].span.category == "Fluency/Spelling"
    assert task_prefilled_spans_set(task=esa, name="pre.jsonl", data=prefill) == 1
    wmt = judgments_file(
        campaign=esa.campaign, fmt="wmt", task=esa, included_only=False, pseudonymise=False
    )
    assert b"".join(wmt.streaming_content).startswith(b"srclang,trglang")


def test_the_item_screen_and_the_checks_follow_the_declaration(
    launched, loaded_campaign, make_annotator, monkeypatch
):
    """Ranking declared with lettered outputs and without the source, ESA with a score range
    of 0-10 and then scored by its spans (MQM's penalty): the item screen and the attention
    checks follow; the declaration decides, not the task type."""
    ranking = launched(TaskType.RANKING, ranking_size=3)
    slot = slot_claim_next(task=ranking, annotator_id=make_annotator(loaded_campaign, "r").id)
    assert slot is not None
    shown = item_display(slot)
    count = len(shown["candidates"])
    assert shown["source"] and count >= 2
    assert [c["label"] for c in shown["candidates"]] == [str(i + 1) for i in range(count)]
    declared = PROTOCOLS[TaskType.RANKING]
    monkeypatch.setitem(
        PROTOCOLS,
        TaskType.RANKING,
        dataclasses.replace(declared, lettered=True, source_shown=False),
    )
    shown = item_display(slot)
    assert shown["source"] is None and shown["context_before"] == []
    assert [c["label"] for c in shown["candidates"]] == list("ABCDEFG"[:count])

    esa = launched(TaskType.ESA)
    assert repeat_tolerance(task=esa) == 25  # a quarter of 0-100
    assert value_said(task=esa, value=-3.0) == "-3"
    declared = PROTOCOLS[TaskType.ESA]
    monkeypatch.setitem(PROTOCOLS, TaskType.ESA, dataclasses.replace(declared, score_range=(0, 10)))
    assert repeat_tolerance(task=esa) == 2.5
    by_spans = dataclasses.replace(
        declared, settings=declared.settings | {"mqm_categories", "mqm_weights"}, scored=False
    )
    monkeypatch.setitem(PROTOCOLS, TaskType.ESA, by_spans)
    assert repeat_tolerance(task=esa) == MQM_REPEAT_TOLERANCE
    assert value_said(task=esa, value=-3.0) == "MQM 3"


def test_the_results_declarations_name_what_the_results_know():
    for protocol in PROTOCOLS.values():
        if protocol.ranked_as is not None:
            assert protocol.ranked_as in PUBLISHED and protocol.ranked_as in STATISTIC_OF
        # A Likert question is read from a column the answer fills.
        assert set(protocol.measures.values()) <= set(protocol.export_columns)
        assert not protocol.measures or protocol.ranked_as == "da"
    lower = {task_type for task_type, p in PROTOCOLS.items() if p.lower_is_better}
    assert lower == {TaskType.MQM, TaskType.CONTRASTIVE_MQM}


def test_the_results_follow_the_declaration(launched, monkeypatch):
    """ESA declared unranked and in the scored tasks' section: no live status, no metric
    comparison, no shared-task pair and no error-span results; declared as ranked like MQM,
    its results section says lower is better. The declaration decides, not the task type."""
    esa = launched(TaskType.ESA)
    campaign = esa.campaign
    assert has_status(esa) and list(meta_tasks(campaign)) == [esa]
    assert pair_task(campaign) == esa
    (results,) = span_results(campaign)
    assert results.protocol == "esa" and results.higher_is_better

    declared = PROTOCOLS[TaskType.ESA]
    unranked = dataclasses.replace(
        declared, ranked_as=None, results_section=PROTOCOLS[TaskType.PAIRWISE].results_section
    )
    monkeypatch.setitem(PROTOCOLS, TaskType.ESA, unranked)
    assert not has_status(esa) and status_scores(esa) is None
    assert list(meta_tasks(campaign)) == [] and pair_task(campaign) is None
    assert span_results(campaign) == []

    monkeypatch.setitem(PROTOCOLS, TaskType.ESA, dataclasses.replace(declared, ranked_as="mqm"))
    (results,) = span_results(campaign)
    assert results.protocol == "mqm" and not results.higher_is_better
