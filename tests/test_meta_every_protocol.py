"""ESA, MQM and contrastive (ESA, MQM) tasks in the metric correlations and the
meta-evaluation: on a small case computed by hand (MQM negated, as mt-metrics-eval does), and
equal to metrics.meta's functions fed the same matrices directly (those are checked against
mt-metrics-eval in tests/test_meta_mt_metrics_eval*)."""

from __future__ import annotations

import numpy as np
import pytest

from annotation.selectors.human import human_results
from annotation.selectors.human.meta import META_SEED, meta_evaluation_uncached
from annotation.selectors.human.segment_scores import task_segment_scores
from annotation.selectors.shared_task_tables import autorank_tables
from annotation.selectors.shared_tasks import shared_task_results
from annotation.services.assignment import slot_claim_next
from annotation.services.imports import upload_import
from annotation.services.judgments import judgment_record
from annotation.services.metric_uploads import metric_scores_upload
from annotation.services.shared_tasks import shared_task_create
from annotation.services.tasks import task_create, task_launch
from metrics.external import key_for
from metrics.meta.report import meta_evaluate
from metrics.meta.soft import pairwise_difference_pearson, soft_pairwise_accuracy

pytestmark = pytest.mark.django_db

SYSTEMS = ("A", "B", "C")
# ESA score (and cESA score) of each system on segments 0..3: system means 75, 61.25, 33.75.
ESA = {"A": [90, 80, 70, 60], "B": [70, 85, 50, 40], "C": [20, 30, 75, 10]}
# Minor errors (1 MQM point each) per system and segment: MQM means 0.75, 1.25, 2.0.
MINOR = {"A": [0, 1, 0, 2], "B": [1, 0, 3, 1], "C": [5, 2, 0, 1]}
# The uploaded metric's sentence scores (higher is better).
METRIC = {"A": [0.9, 0.7, 0.6, 0.5], "B": [0.6, 0.8, 0.4, 0.45], "C": [0.2, 0.5, 0.7, 0.55]}
METRIC_KEY = key_for("m", higher_is_better=True)
# WMT's Kendall-like tau by hand.
# ESA, pairs at least 25 apart: segment 0 A-C, B-C concordant; 1 A-C, B-C concordant;
# 2 B-C concordant; 3 A-C, B-C discordant (C's metric score is the highest): (2+2+1-2)/7.
ESA_KENDALL_LIKE = 3 / 7
# MQM negated, pairs at least 1 apart: segment 0 all three concordant; 1 all three; 2 A-B and
# B-C concordant (A-C tied); 3 A-B discordant, A-C concordant (B-C tied): (3+3+2+0)/10.
MQM_KENDALL_LIKE = 0.8


def _lines(texts):
    return "\n".join(texts).encode() + b"\n"


@pytest.fixture
def three_systems(campaign, manager):
    sources = [f"Source sentence number {i} of the test." for i in range(4)]
    upload_import(
        campaign=campaign, kind="source", files=[("src.en", _lines(sources))], user=manager
    )
    for name in SYSTEMS:
        texts = [f"Satz Nummer {i} vom System {name}." for i in range(4)]
        upload_import(
            campaign=campaign,
            kind="system",
            name=name,
            files=[(f"{name}.de", _lines(texts))],
            user=manager,
        )
    lines = [f"{s}\t{i + 1}\t{v}" for s in SYSTEMS for i, v in enumerate(METRIC[s])]
    metric_scores_upload(campaign=campaign, name="m", higher_is_better=True, text="\n".join(lines))
    return campaign


def _minors(count, category="Fluency/Spelling"):
    return [
        {"start": k, "end": k + 1, "severity": "minor", "category": category} for k in range(count)
    ]


def _answer(task_type, item):
    systems = [candidate.get("systems") or [] for candidate in item.candidates]
    if task_type == "esa":
        system, segment = systems[0][0], item.segment.index
        return {"score": ESA[system][segment], "spans": []}
    if task_type == "mqm":
        return {"spans": _minors(MINOR[systems[0][0]][item.segment.index])}
    segment = item.segment.index
    if task_type == "contrastive_esa":
        return {"candidates": [{"score": ESA[names[0]][segment], "spans": []} for names in systems]}
    return {"candidates": [{"spans": _minors(MINOR[names[0]][segment])} for names in systems]}


def _judged(campaign, make_annotator, task_type):
    task = task_create(campaign=campaign, task_type=task_type, seed=12345)
    task_launch(task_id=task.id)
    task.refresh_from_db()
    rater = make_annotator(campaign, f"rater-{task_type}")
    while (slot := slot_claim_next(task=task, annotator_id=rater.id)) is not None:
        judgment_record(
            task_id=task.id,
            slot_id=slot.id,
            annotator_id=rater.id,
            answer=_answer(task_type, slot.item),
        )
    return task


@pytest.fixture
def every_protocol(three_systems, make_annotator):
    return {
        kind: _judged(three_systems, make_annotator, kind)
        for kind in ("esa", "mqm", "contrastive_esa", "contrastive_mqm")
    }


def _matrix(table, sign=1.0):
    return sign * np.array([table[s] for s in SYSTEMS], dtype=np.float64)


def test_segment_scores_by_hand_mqm_negated(three_systems, every_protocol):
    for kind in ("esa", "contrastive_esa"):
        scores = task_segment_scores(every_protocol[kind], set())
        assert not scores.negated
        assert scores.scores == {s: dict(enumerate(map(float, ESA[s]))) for s in SYSTEMS}
        assert scores.system_scores() == {"A": 75.0, "B": 61.25, "C": 33.75}
        assert scores.threshold == 25.0
    for kind in ("mqm", "contrastive_mqm"):
        scores = task_segment_scores(every_protocol[kind], set())
        assert scores.negated and "negated" in scores.label
        assert scores.scores == {s: {i: -float(n) for i, n in enumerate(MINOR[s])} for s in SYSTEMS}
        assert scores.system_scores() == {"A": -0.75, "B": -1.25, "C": -2.0}
        assert scores.threshold == 1.0


def test_meta_evaluation_of_every_protocol_by_hand(three_systems, every_protocol):
    rows = meta_evaluation_uncached(three_systems, set(), 50)
    by_type = {row.task_type: row for row in rows if row.metric == METRIC_KEY}
    assert set(by_type) == {"esa", "mqm", "contrastive_esa", "contrastive_mqm"}
    for kind, expected in (
        ("esa", ESA_KENDALL_LIKE),
        ("contrastive_esa", ESA_KENDALL_LIKE),
        ("mqm", MQM_KENDALL_LIKE),
        ("contrastive_mqm", MQM_KENDALL_LIKE),
    ):
        evaluation = by_type[kind].evaluation
        assert evaluation.segment.kendall_like.value == pytest.approx(expected), kind
        # The metric orders the systems A > B > C, as every human protocol does.
        assert evaluation.system_accuracy.accuracy.value == 1.0
        assert evaluation.pearson > 0.9  # MQM negated: a good metric correlates positively
        assert by_type[kind].human_negated == kind.endswith("mqm")


def test_meta_evaluation_equals_metrics_meta_fed_directly(three_systems, every_protocol):
    rows = meta_evaluation_uncached(three_systems, set(), 50)
    by_type = {row.task_type: row for row in rows if row.metric == METRIC_KEY}
    metric = _matrix(METRIC)
    for kind, human, threshold in (
        ("esa", _matrix(ESA), 25.0),
        ("contrastive_esa", _matrix(ESA), 25.0),
        ("mqm", _matrix(MINOR, -1.0), 1.0),
        ("contrastive_mqm", _matrix(MINOR, -1.0), 1.0),
    ):
        expected = meta_evaluate(human, metric, threshold=threshold, n_resamples=50, seed=META_SEED)
        found = by_type[kind].evaluation
        assert found.as_dict() == expected.as_dict(), kind
        assert found.soft_accuracy.value == soft_pairwise_accuracy(human, metric).value
        assert found.pairwise_difference_pearson == pairwise_difference_pearson(human, metric)


def test_correlations_page_and_api(client, three_systems, every_protocol, manager):
    results = human_results(three_systems)
    mqm = every_protocol["mqm"]
    name = f"MQM error annotation (task {mqm.id}): −MQM, mean of segment means"
    assert results.human[name] == {"A": -0.75, "B": -1.25, "C": -2.0}
    esa = every_protocol["contrastive_esa"]
    assert results.human[f"Contrastive ESA (cESA) (task {esa.id}): mean of segment means"] == {
        "A": 75.0,
        "B": 61.25,
        "C": 33.75,
    }
    humans = {c.human for c in results.correlations}
    # Four segment-mean scores, and cESA's pairwise reading (Bradley-Terry, Expected Wins).
    assert name in humans and len(humans) == 6
    correlation = next(c for c in results.correlations if c.human == name)
    assert correlation.spearman == pytest.approx(1.0)  # negated MQM and the metric agree

    client.force_login(manager)
    page = client.get(f"/campaigns/{three_systems.id}/results/human/").content.decode()
    assert "MQM and contrastive MQM scores are negated" in page
    assert "MQM error annotation (task" in page and "Meta-evaluation of the metrics" in page
    body = client.get(f"/api/v1/campaigns/{three_systems.id}/results/human").json()
    rows = [r for r in body["meta_evaluation"] if r["task_type"] == "mqm"]
    assert rows and all(r["human_negated"] for r in rows)
    assert rows[0]["kendall_threshold"] == 1.0


@pytest.mark.parametrize(
    ("kind", "protocol", "scores"),
    [
        ("contrastive_mqm", "mqm", {"A": 0.75, "B": 1.25, "C": 2.0}),
        ("contrastive_esa", "esa", {"A": 75.0, "B": 61.25, "C": 33.75}),
    ],
)
def test_a_contrastive_pair_is_ranked_beside_autorank_in_a_shared_task(
    three_systems, make_annotator, manager, kind, protocol, scores
):
    _judged(three_systems, make_annotator, kind)
    shared = shared_task_create(name="contrastive", owner=manager, campaign_ids=[three_systems.id])
    results = shared_task_results(shared, {three_systems.id})
    (pair,) = results.pairs
    assert pair.task.task_type == kind and pair.protocol == protocol
    assert [row.system for row in pair.rows] == ["A", "B", "C"]
    assert {row.system: row.score for row in pair.rows} == pytest.approx(scores)
    (table,) = autorank_tables(results)
    assert table.metrics == [METRIC_KEY]
    assert [row.cells[0] for row in table.grid.rows] == ["A", "B", "C"]
