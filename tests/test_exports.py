"""Judgment exports: CSV, JSON Lines, Appraise scores, WMT rankings, system rankings."""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
from collections import Counter
from datetime import datetime

import pytest
from django.conf import settings

from annotation.exports import (
    RANKING_COLUMNS,
    judgments_download,
    pseudonym,
    ranking_rows,
    wmt_entries,
)
from annotation.lib.spreadsheet import spreadsheet_safe as _csv_safe
from annotation.models import Judgment
from annotation.selectors.exports import (
    APPRAISE_TABLE,
    JUDGMENT_COLUMNS,
    judgment_table_described_columns,
)
from annotation.selectors.human import human_results
from annotation.selectors.human.comparisons import comparison_data
from annotation.selectors.human.loading import Usernames
from annotation.services.exclusions import annotator_exclude
from annotation.services.imports import upload_import
from annotation.services.tasks import task_create, task_launch
from metrics.agreement import Ranking, ranking_labels
from metrics.wmt_csv import read_appraise_scores, read_judgments, read_wmt_rankings
from tests.human_support import judge_all

pytestmark = pytest.mark.django_db

SOURCE = b"one two three four five six\nseven eight nine ten eleven\ntwelve thirteen fourteen\n"
SYSTEMS = {
    "good": b"eins zwei drei vier funf sechs\nsieben acht neun zehn elf\nzwolf dreizehn vierzehn\n",
    '=HYPERLINK("x")': b"eins zwei drei\nsieben acht neun zehn elf\nzwolf\n",
    "<b>bold</b>": b"ein zwo\nsieben\nzwolf dreizehn vierzehn\n",
}


def launch(campaign, task_type, **settings_):
    task = task_create(seed=12345, campaign=campaign, task_type=task_type, **settings_)
    task_launch(task_id=task.id)
    task.refresh_from_db()
    return task


@pytest.fixture
def judged(campaign, manager, make_annotator):
    upload_import(campaign=campaign, kind="source", files=[("s.en", SOURCE)], user=manager)
    for name, data in SYSTEMS.items():
        upload_import(
            campaign=campaign, kind="system", name=name, files=[("x.de", data)], user=manager
        )
    users = [make_annotator(campaign, name) for name in ("=cmd", "ann2", "ann3")]
    # Batches of 3, so that each of the three annotators gets some.
    adequacy = launch(campaign, "adequacy", judgments_per_item=2, repeat_rate=0.5, batch_size=3)
    ranking = launch(campaign, "ranking", ranking_size=3, judgments_per_item=2, repeat_rate=0.5)
    pairwise = launch(campaign, "pairwise", scale="da100", judgments_per_item=2)
    judge_all(adequacy, users, lambda user, slot: {"score": 1 + (slot.item.id + user.id) % 5})
    judge_all(
        ranking,
        users,
        lambda user, slot: {
            "ranks": [
                1 + (i + user.id) % len(slot.item.candidates)
                for i in range(len(slot.item.candidates))
            ]
        },
    )
    judge_all(
        pairwise, users, lambda user, slot: {"candidate_scores": [slot.id % 101, user.id % 101]}
    )
    return campaign, users, {"adequacy": adequacy, "ranking": ranking, "pairwise": pairwise}


def body(response) -> str:
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def test_csv_has_a_row_per_system_judged_and_neutralises_formulas(judged):
    campaign, _, tasks = judged
    text = body(judgments_download(campaign=campaign, fmt="csv"))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == JUDGMENT_COLUMNS
    expected = 0
    for judgment in Judgment.objects.select_related("item"):
        if judgment.task_type == "adequacy":
            expected += 1
        else:
            expected += sum(len(c["systems"]) for c in judgment.item.candidates)
    assert len(rows) == expected
    assert {row["system"] for row in rows} == {"good", '\'=HYPERLINK("x")', "<b>bold</b>"}
    assert "'=cmd" in {row["annotator"] for row in rows}
    repeats = Judgment.objects.filter(is_repeat=True, task=tasks["adequacy"]).count()
    adequacy = [row for row in rows if row["task_type"] == "adequacy"]
    assert Counter(row["item_type"] for row in adequacy)["REPEAT"] == repeats > 0
    first = Judgment.objects.filter(task=tasks["adequacy"]).order_by("id").first()
    row = next(r for r in adequacy if r["judgment_id"] == str(first.id))
    assert (row["score"], row["duration_ms"]) == (str(first.score), str(first.duration_ms))
    assert float(row["seconds"]) == first.duration_ms / 1000
    assert datetime.fromisoformat(row["served_at"]) == first.served_at
    assert datetime.fromisoformat(row["submitted_at"]) == first.submitted_at
    # Side-by-side scores are each candidate's score, so the rows read as assessments.
    for row in (r for r in rows if r["task_type"] == "pairwise"):
        assert row["score"] == row["candidate_score"] != ""
    ranking = [r for r in rows if r["task_type"] == "ranking"]
    assert all(r["rank"] and r["score"] == "" for r in ranking)


def test_csv_rows_of_rankings_follow_the_candidates_in_display_order(judged):
    """Each candidate's systems, rank, score and item type, rebuilt from the database."""
    campaign, _, tasks = judged
    for kind in ("ranking", "pairwise"):
        text = body(judgments_download(campaign=campaign, fmt="csv", task=tasks[kind]))
        got = [
            (
                r["judgment_id"],
                r["candidate"],
                r["system"],
                r["rank"],
                r["candidate_score"],
                r["item_type"],
                r["item_id"],
            )
            for r in csv.DictReader(io.StringIO(text))
        ]
        expected = []
        for j in Judgment.objects.filter(task=tasks[kind]).select_related("item").order_by("id"):
            for index, candidate in enumerate(j.item.candidates):
                for system in candidate["systems"]:
                    expected.append(
                        (
                            str(j.id),
                            str(index + 1),
                            _csv_safe(system),
                            str(j.ranks[index]) if j.ranks else "",
                            str(j.candidate_scores[index]) if j.candidate_scores else "",
                            "REPEAT" if j.is_repeat else candidate.get("type", j.item.item_type),
                            str(j.item.external_id),
                        )
                    )
        assert got == expected


def test_likert_csv_reads_back_with_the_command_line_reader(judged, tmp_path):
    campaign, _, tasks = judged
    path = tmp_path / "adequacy.csv"
    path.write_text(body(judgments_download(campaign=campaign, fmt="csv", task=tasks["adequacy"])))
    read = read_judgments(path)
    assert len(read) == Judgment.objects.filter(task=tasks["adequacy"]).count()
    assert set(read.language_pair) == {"en-de"}
    # Pairwise 0-100 scores too, one row per candidate.
    path.write_text(body(judgments_download(campaign=campaign, fmt="csv", task=tasks["pairwise"])))
    assert len(read_judgments(path)) == 2 * Judgment.objects.filter(task=tasks["pairwise"]).count()


def test_pseudonyms_are_a_keyed_hash_of_the_user_id(judged):
    campaign, users, _ = judged
    text = body(judgments_download(campaign=campaign, fmt="csv", pseudonymise=True))
    names = {row["annotator"] for row in csv.DictReader(io.StringIO(text))}
    assert names == {pseudonym(user.id) for user in users}
    assert not any(user.username in text for user in users if user.username != "ann2")
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"annotator:{users[1].id}".encode(), hashlib.sha256
    )
    assert pseudonym(users[1].id) == "a-" + digest.hexdigest()[:16]
    again = body(judgments_download(campaign=campaign, fmt="jsonl", pseudonymise=True))
    assert {json.loads(line)["annotator"] for line in again.splitlines()} == names


def test_json_lines_one_object_per_judgment(judged):
    campaign, _, _ = judged
    lines = body(judgments_download(campaign=campaign, fmt="jsonl")).splitlines()
    assert len(lines) == Judgment.objects.count()
    documents = [json.loads(line) for line in lines]
    ranking = next(d for d in documents if d["task_type"] == "ranking")
    assert len(ranking["ranks"]) == len(ranking["systems"]) and ranking["system"] is None
    adequacy = next(d for d in documents if d["task_type"] == "adequacy")
    assert adequacy["system"] in SYSTEMS and adequacy["served_at"] < adequacy["submitted_at"]


def test_included_only_drops_excluded_annotators_and_judgments(judged, manager):
    campaign, users, _ = judged
    annotator_exclude(campaign=campaign, annotator_id=users[0].id, excluded=True, by=manager)
    dropped = Judgment.objects.filter(annotator=users[1]).first()
    Judgment.objects.filter(id=dropped.id).update(excluded=True)
    everything = list(
        csv.DictReader(io.StringIO(body(judgments_download(campaign=campaign, fmt="csv"))))
    )
    marked = {row["judgment_id"] for row in everything if row["excluded"] == "true"}
    expected = set(Judgment.objects.filter(annotator=users[0]).values_list("id", flat=True)) | {
        dropped.id
    }
    assert marked == {str(i) for i in expected}
    counted = body(judgments_download(campaign=campaign, fmt="csv", included_only=True))
    ids = {row["judgment_id"] for row in csv.DictReader(io.StringIO(counted))}
    assert ids.isdisjoint(marked) and len(ids) == Judgment.objects.count() - len(expected)


def test_appraise_scores_round_trip(judged, tmp_path):
    campaign, _, tasks = judged
    text = body(judgments_download(campaign=campaign, fmt="appraise", task=tasks["adequacy"]))
    rows = list(csv.reader(io.StringIO(text)))
    assert all(len(row) == 11 for row in rows)
    path = tmp_path / "appraise.csv"
    path.write_text(text)
    read = read_appraise_scores(path)
    judgments = list(
        Judgment.objects.filter(task=tasks["adequacy"])
        .order_by("id")
        .values_list("annotator__username", "score", "item__segment__index", "is_repeat")
    )
    assert read.score == [float(j[1]) for j in judgments]
    assert read.segment == [str(j[2] + 1) for j in judgments]  # numbered from 1
    assert read.annotator == ["'=cmd" if j[0] == "=cmd" else j[0] for j in judgments]
    assert read.item_type == ["REPEAT" if j[3] else "TGT" for j in judgments]
    assert set(read.language_pair) == {"en-de"}


def test_wmt_rankings_expand_to_the_dashboards_labels(judged, tmp_path):
    campaign, _, tasks = judged
    path = tmp_path / "wmt.csv"
    path.write_text(body(judgments_download(campaign=campaign, fmt="wmt", task=tasks["ranking"])))
    read = read_wmt_rankings(path)["en-de"]
    judged_rankings = comparison_data(tasks["ranking"], Usernames())
    # Names starting with "=" are quoted in every CSV, so compare under the same quoting; the
    # file numbers segments from 1.
    expected = labels_of([j.ranking for j in judged_rankings], rename=_csv_safe, first_segment=1)
    assert labels_of(read) == expected


def labels_of(rankings, rename=str, first_segment: int = 0) -> Counter:
    """(segment, judge, system, system, label) counts, the systems in sorted order."""
    labels = ranking_labels(rankings)
    result: Counter = Counter()
    columns = (labels.segment, labels.judge, labels.system_a, labels.system_b, labels.label)
    for s, j, a, b, label in zip(*columns, strict=True):
        x, y, sign = rename(labels.systems[a]), rename(labels.systems[b]), int(label)
        if x > y:
            x, y, sign = y, x, -sign
        segment = str(int(labels.segments[s]) + first_segment)
        result[(segment, rename(labels.judges[j]), x, y, sign)] += 1
    return result


def test_wmt_entries_keep_the_labels_of_wide_and_collapsed_rankings():
    candidates = [("A", "B"), ("C",), ("D",), ("E", "F", "G"), ("H",), ("I",), ("J",)]
    ranks = [2, 1, 3, 2, 5, 4, 1]
    rows = list(wmt_entries(candidates, ranks))
    assert all(len(row) <= 5 for row in rows) and len(rows[0]) == 5
    expanded = [
        Ranking(segment="1", judge="j", outputs=[(s,) for s, _ in row], ranks=[r for _, r in row])
        for row in rows
    ]
    assert labels_of(expanded) == labels_of(
        [Ranking(segment="1", judge="j", outputs=candidates, ranks=ranks)]
    )


def test_ranking_rows_one_per_system(judged):
    campaign, _, _ = judged
    rows = ranking_rows(human_results(campaign))
    likert = [r for r in rows if r["task_type"] == "adequacy"]
    assert [r["position"] for r in likert] == list(range(1, len(SYSTEMS) + 1))
    assert {r["system"] for r in likert} == set(SYSTEMS)
    assert all(r["rank_low"] <= r["rank_high"] for r in likert)
    pairwise = [r for r in rows if r["task_type"] == "ranking"]
    assert {r["system"] for r in pairwise} == set(SYSTEMS)
    assert json.dumps(rows, allow_nan=False)  # no NaN or infinity


def test_csv_headers_are_the_queries_own_columns(judged):
    """The header row is made from the same column list as the SELECT: PostgreSQL reports
    exactly those names for the query, and the Appraise table has no header but their count."""
    campaign, _, tasks = judged
    assert judgment_table_described_columns("judgments", campaign) == JUDGMENT_COLUMNS
    header = body(judgments_download(campaign=campaign, fmt="csv")).splitlines()[0]
    assert header.split(",") == JUDGMENT_COLUMNS
    appraise = [name for name, _ in APPRAISE_TABLE]
    assert judgment_table_described_columns("appraise", campaign) == appraise
    text = body(judgments_download(campaign=campaign, fmt="appraise", task=tasks["pairwise"]))
    rows = list(csv.reader(io.StringIO(text)))
    # Side-by-side scores: one row per candidate, its own score (hand-checked on the first).
    first = Judgment.objects.filter(task=tasks["pairwise"]).order_by("id").first()
    systems = [c["systems"][0] for c in first.item.candidates]
    assert [(r[1], float(r[6])) for r in rows[:2]] == [
        (_csv_safe(systems[0]), first.candidate_scores[0]),
        (_csv_safe(systems[1]), first.candidate_scores[1]),
    ]
    assert all(len(row) == len(appraise) for row in rows)


def test_ranking_csv_columns_mean_one_thing_and_leave_missing_data_empty(judged):
    campaign, _, tasks = judged
    results = human_results(campaign)
    text = body(rankings_download(campaign))
    rows = list(csv.DictReader(io.StringIO(text)))
    likert = [r for r in rows if r["task_type"] == "adequacy"]
    comparisons = [r for r in rows if r["task_type"] in ("ranking", "pairwise")]
    assert likert and comparisons
    # wins: pairwise comparisons won, never the Likert count of systems beaten.
    assert all(r["wins"] == "" and r["systems_beaten"] != "" for r in likert)
    assert all(r["systems_beaten"] == "" and r["wins"] != "" for r in comparisons)
    ranked = next(t for t in results.tasks if t.task.id == tasks["ranking"].id)
    by_name = {s.name: s.score for s in ranked.pairwise}
    for row in (r for r in comparisons if r["task_type"] == "ranking"):
        score = by_name[row["system"].lstrip("'")] if row["system"].startswith("'=") else None
        score = score or by_name[row["system"]]
        assert int(row["wins"]) == score.wins
    # Too few comparisons for a bootstrap rank range: empty cells, not 0.
    assert ranked.rank_resamples == 0
    assert all(r["rank_low"] == r["rank_high"] == "" for r in comparisons)
    assert "0" not in {r["rank_low"] for r in rows}


def test_ranking_rows_have_no_column_the_csv_leaves_out(judged):
    campaign, _, _ = judged
    assert {k for row in ranking_rows(human_results(campaign)) for k in row} <= set(RANKING_COLUMNS)


def rankings_download(campaign) -> object:
    from annotation.exports import csv_stream, ranking_csv_rows, streaming_response

    rows = ranking_rows(human_results(campaign))
    return streaming_response(csv_stream(ranking_csv_rows(rows)), filename="r.csv")
