"""Organiser pages for annotator reliability: the side-by-side rankings of the "only annotators
who pass" switch, excluding those who fail (reversibly), and the reliability download."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.exports import csv_stream, streaming_response
from annotation.permissions import CAN_EXCLUDE, CAN_SEE_RESULTS, authorize
from annotation.results_freshness import file_name
from annotation.selectors.human import HumanResults, TaskResults, human_results
from annotation.selectors.human.reliability import reliability_record
from annotation.selectors.human.spans import SpanTaskResults, span_results
from annotation.services.exclusions import annotators_exclude
from annotation.views.download_figures import (
    figures_fields,
    human_computing,
    human_figures,
    marked,
)
from annotation.views.errors import refused_to


@dataclass(frozen=True)
class SideBySide:
    """One ranking with every counted annotator and without those who fail, row by row."""

    title: str
    measure: str  # what the numbers are
    rows: list[tuple[int, str | None, float | None, str | None, float | None]]


def _pair(
    title: str, measure: str, everyone: list[tuple[str, float]], passing: list[tuple[str, float]]
) -> SideBySide:
    size = max(len(everyone), len(passing))
    pad: list[tuple[str | None, float | None]] = [(None, None)] * size
    left = [*everyone, *pad][:size]
    right = [*passing, *pad][:size]
    return SideBySide(
        title,
        measure,
        [(i + 1, *left[i], *right[i]) for i in range(size)],
    )


def side_by_side(task: TaskResults) -> list[SideBySide]:
    """The task's rankings both ways (empty when the switch is off)."""
    passing = task.passing
    if passing is None:
        return []
    tables = [
        _pair(
            f"Ranking by {everyone.measure}",
            "mean z",
            [(s.name, s.score.z) for s in everyone.systems],
            [(s.name, s.score.z) for s in without.systems],
        )
        for everyone, without in zip(task.likert, passing.likert, strict=False)
    ]
    if task.pairwise:
        tables.append(
            _pair(
                "Ranking from pairwise comparisons",
                "Bradley-Terry",
                [(s.name, s.score.bradley_terry) for s in task.pairwise],
                [(s.name, s.score.bradley_terry) for s in passing.pairwise],
            )
        )
    if task.hter:
        tables.append(
            _pair(
                "Post-editing",
                "corpus HTER",
                [(s.name, s.score.corpus_hter) for s in task.hter],
                [(s.name, s.score.corpus_hter) for s in passing.hter],
            )
        )
    return tables


def span_side_by_side(result: SpanTaskResults) -> list[SideBySide]:
    """An error-span (or contrastive MQM) task's ranking both ways (empty when the switch is
    off)."""
    if result.passing is None:
        return []
    label = "MQM" if result.protocol == "mqm" else "ESA"
    return [
        _pair(
            f"{label} ranking",
            f"{label} score",
            [(row["system"], row["score"]) for row in result.ranking_rows()],
            [(row["system"], row["score"]) for row in result.passing.rows],
        )
    ]


def passing_context(
    request, results: HumanResults, passing: bool, spans: Sequence[SpanTaskResults] = ()
) -> dict[str, object]:
    """The side-by-side tables per task id, and the switch's link (the page's other choices,
    such as the ESA procedure or the kappa weights, kept)."""
    query = request.GET.copy()
    query.pop("passing", None)
    if not passing:
        query["passing"] = "1"
    tables = {task.task.id: side_by_side(task) for task in results.tasks}
    tables.update({result.task.id: span_side_by_side(result) for result in spans})
    return {
        "passing": passing,
        "side_by_side": tables,
        "passing_switch": f"?{query.urlencode()}" if query else "?",
    }


@login_required
@require_POST
@authorize(CAN_EXCLUDE)
@refused_to("results-human")
def failing_exclusion(request, campaign_id: int, task_id: int):
    """Excludes from one task every annotator who fails a reliability check now (found again
    here, not taken from the form); each can be included again from the table."""
    campaign = request.campaign
    results = human_results(campaign, task_id=task_id, passing_only=True)
    found = results.tasks or span_results(campaign, task_id=task_id, passing_only=True)
    if not found:
        raise Http404("no such launched task in this campaign")
    passing = found[0].passing
    dropped = [row.annotator_id for row in passing.dropped] if passing else []
    done = annotators_exclude(
        campaign=campaign, annotator_ids=dropped, by=request.user, task_id=task_id
    )
    messages.success(
        request,
        f"{len(done)} annotator{'s' if len(done) != 1 else ''} who fail a reliability check "
        f"left out of task #{task_id}; include them again from the table."
        if done
        else "Every counted annotator passes: nobody to exclude.",
    )
    return redirect(reverse("results-human", args=[campaign.id]) + "?passing=1")


def reliability_rows(
    results: HumanResults, spans: Sequence[SpanTaskResults] = ()
) -> list[dict[str, object]]:
    """Every task's reliability table, one row per (task, annotator)."""
    tables = [(task.task, task.reliability) for task in results.tasks]
    tables += [(result.task, result.reliability) for result in spans]
    return [
        {"task_id": task.id, "task_type": task.task_type, **reliability_record(row)}
        for task, rows in sorted(tables, key=lambda table: table[0].id)
        for row in rows
    ]


@login_required
@authorize(CAN_SEE_RESULTS)
def reliability_export(request, campaign_id: int, fmt: str):
    campaign = request.campaign
    if fmt not in {"csv", "json"}:
        raise Http404("the reliability table downloads as .csv or .json")
    # Stored figures (a large campaign's never computed here), marked when older.
    snapshot = human_figures(campaign)
    if snapshot.pending:
        return human_computing(request, campaign, snapshot, "the reliability file")
    rows = reliability_rows(snapshot.value.results, snapshot.value.span_results)
    name = file_name(f"evalsite-{campaign.id}-reliability", fmt, [snapshot])
    if fmt == "json":
        document = json.dumps(
            {"campaign": campaign.name, **figures_fields([snapshot]), "annotators": rows},
            indent=1,
        )
        return marked(streaming_response([document], filename=name), [snapshot])
    return marked(streaming_response(csv_stream(_csv_rows(rows)), filename=name), [snapshot])


def _csv_rows(rows: list[dict[str, object]]) -> Iterator[list[object]]:
    """The columns are the record's keys; the reasons one cell, joined by "; "."""
    yield list(rows[0]) if rows else ["task_id", "task_type"]
    for row in rows:
        yield ["; ".join(v) if isinstance(v, list) else v for v in row.values()]
