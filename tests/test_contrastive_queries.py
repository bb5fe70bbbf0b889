"""A contrastive screen's submit through the API, with the next screen in its answer, costs a
fixed list of statements (issue 22's target: 100 screens/s on two cores): one more is a
regression the benchmark would only show under load."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import ErrorSpan, Judgment, OutputJudgment, Slot
from tests.test_contrastive import launch, six_systems  # noqa: F401

pytestmark = pytest.mark.django_db

# The token with its user, the task with the caller's role, the slot with its item and
# segment, the judgment with the next claim (one function call), the screen's spans with its
# rows per output (one statement), the next screen's slot with its item and segment.
SCREEN_STATEMENTS = 6
# A first screen's GET next: the token, the task with the role, the claim with the progress
# (one function call, no transaction of its own), the slot with its item and segment.
FIRST_SCREEN_STATEMENTS = 4


def _answer(task, shown):
    """Every candidate scored, two spans on each (one of them on the first word)."""
    candidates = []
    for number, candidate in enumerate(shown["candidates"]):
        first = candidate["text"].index(" ")
        spans = [
            {"start": 0, "end": first, "severity": "minor"},
            {"start": first + 1, "end": len(candidate["text"]), "severity": "major"},
        ]
        candidates.append({"score": 80 - 10 * number, "spans": spans})
    return {"task": task.id, "slot": shown["slot"], "candidates": candidates}


def test_a_screen_and_the_next_cost_a_fixed_list_of_statements(
    six_systems,  # noqa: F811
    make_annotator,
):
    task = launch(six_systems)
    annotator = make_annotator(six_systems, "ann")
    token = Token.objects.create(user=annotator)
    api = APIClient(HTTP_AUTHORIZATION=f"Token {token.key}")
    shown = api.get(f"/api/v1/tasks/{task.id}/next").json()
    for _ in range(2):  # past the first screen of the batch
        response = api.post("/api/v1/judgments", _answer(task, shown), format="json")
        assert response.status_code == 201, response.content
        shown = response.json()["next"]
    body = _answer(task, shown)
    with CaptureQueriesContext(connection) as captured:
        response = api.post("/api/v1/judgments", body, format="json")
    assert response.status_code == 201, response.content
    # The test's own transaction turns the screen's into savepoints (BEGIN and COMMIT, which
    # the driver sends, are not statements of ours either).
    statements = [q["sql"] for q in captured if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == SCREEN_STATEMENTS, "\n".join(sql[:120] for sql in statements)
    assert sum("evalsite_judge_and_claim" in sql for sql in statements) == 1
    # Everything was written: the judgment, two spans per candidate, a row per output and
    # system (identical outputs are one candidate of several systems).
    shown_count = len(body["candidates"])
    scores = [80 - 10 * number for number in range(shown_count)]
    judgment = Judgment.objects.get(id=response.json()["id"])
    assert judgment.slot_id == body["slot"] and judgment.candidate_scores == scores
    spans = ErrorSpan.objects.filter(judgment=judgment).order_by("candidate", "start")
    assert [(s.candidate, s.severity) for s in spans] == [
        (position, severity) for position in range(shown_count) for severity in ("minor", "major")
    ]
    item = judgment.item
    outputs = OutputJudgment.objects.filter(judgment=judgment)
    assert sorted((o.position, o.system.name, o.score) for o in outputs) == sorted(
        (position, system, scores[position])
        for position, candidate in enumerate(item.candidates)
        for system in candidate["systems"]
    )
    # The next screen is claimed and shown without its systems' names.
    following = Slot.objects.get(id=response.json()["next"]["slot"])
    assert following.annotator_id == annotator.id and following.state == "leased"
    labels = [c["label"] for c in response.json()["next"]["candidates"]]
    assert labels == ["A", "B", "C"][: len(labels)] and len(labels) >= 2


def test_a_first_screen_claims_its_batch_in_a_fixed_list_of_statements(
    six_systems,  # noqa: F811
    make_annotator,
):
    task = launch(six_systems)
    annotator = make_annotator(six_systems, "first")
    token = Token.objects.create(user=annotator)
    api = APIClient(HTTP_AUTHORIZATION=f"Token {token.key}")
    with CaptureQueriesContext(connection) as captured:
        shown = api.get(f"/api/v1/tasks/{task.id}/next").json()
    statements = [q["sql"] for q in captured]
    assert len(statements) == FIRST_SCREEN_STATEMENTS, "\n".join(s[:120] for s in statements)
    assert sum("evalsite_claim_with_progress" in sql for sql in statements) == 1
    # The batch is theirs, leased, its first screen served; the progress is the claim's.
    slot = Slot.objects.select_related("batch").get(id=shown["slot"])
    assert slot.annotator_id == annotator.id and slot.served_at is not None
    assert slot.batch.state == "leased" and slot.batch.leased_until is not None
    leased = Slot.objects.filter(batch=slot.batch, annotator=annotator, state="leased")
    assert leased.count() == slot.batch.size
    assert (shown["judged"], shown["total"]) == (0, slot.batch.size)
