"""Results of error-span tasks: numbers checked against independent computations (scipy,
krippendorff, hand counts), and the page renders them."""

import math

import krippendorff
import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse
from scipy import stats

from annotation.models import Campaign
from annotation.selectors.human.spans import span_results
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
TED = DATA / "mqm-ted-zh-en" / "mqm_ted_zhen.tsv"


def test_ted_mqm_system_scores_match_the_published_table(manager, client):
    """The TED zh-en system scores from the stored judgments equal the means computed here by
    hand from the TSV text (tests/metrics checks the same file against the published table)."""
    call_command(
        "import_mqm", str(TED), "--name", "TED", "--owner", "manager", "--languages", "zh-en"
    )
    campaign = Campaign.objects.get(name="TED")
    (result,) = span_results(campaign)
    # Independent: the mean over (system, segment, rater) of summed weights, by hand with
    # Google's weights straight from the TSV text.
    weights = {"major": 5.0, "minor": 1.0, "neutral": 0.0}
    totals = {}
    lines = TED.read_text(encoding="utf-8").splitlines()[1:]
    for line in lines:
        system, _, _, seg, rater, _, _, category, severity = line.split("\t")
        key = (system, seg, rater)
        totals.setdefault(key, 0.0)
        if severity == "No-error":
            continue
        if category.lower().startswith("non-translation"):
            totals[key] += 25.0
        elif severity.lower() == "minor" and category == "Fluency/Punctuation":
            totals[key] += 0.1
        else:
            totals[key] += weights[severity.lower()]
    by_system = {}
    for (system, _, _), value in totals.items():
        by_system.setdefault(system, []).append(value)
    expected = {s: float(np.mean(v)) for s, v in by_system.items()}
    got = {s.system: s.score for s in result.mqm.systems}
    assert got.keys() == expected.keys()
    for system, score in got.items():
        assert score == pytest.approx(expected[system], abs=1e-9)
    assert [s.score for s in result.mqm.systems] == sorted(got.values())  # lower is better
    assert result.weights["severity"]["major"] == 5.0  # the weights go with the result
    assert result.breakdown.systems[0] == result.mqm.systems[0].system
    client.force_login(manager)
    page = client.get(reverse("results-human", args=[campaign.id]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "MQM score" in html and "Errors per system by category and severity" in html
    api = client.get(f"/api/v1/campaigns/{campaign.id}/results/human/spans").json()
    assert api["tasks"][0]["lower_is_better"] is True
    assert api["tasks"][0]["mqm_weights"]["non_translation"] == 25.0


def test_esa_ranking_and_agreement(launched, loaded_campaign, make_annotator, client, manager):
    task = launched("esa", judgments_per_item=2, batch_size=36)
    raters = [make_annotator(loaded_campaign, name) for name in ("ann1", "ann2")]
    rng = np.random.default_rng(3)
    quality = {"Online-B": 80, "UEdin": 70, "happypoet": 40}
    given = {}
    for rater in raters:
        while (slot := slot_claim_next(task=task, annotator_id=rater.id)) is not None:
            item = slot.item
            system = item.candidates[0]["systems"][0]
            score = int(np.clip(quality.get(system, 50) + rng.integers(-15, 16), 0, 100))
            text = item.candidates[0]["text"]
            cut = int(rng.integers(1, len(text)))
            spans = [{"start": 0, "end": cut, "severity": "major" if score < 60 else "minor"}]
            judgment_record(
                task_id=task.id,
                slot_id=slot.id,
                annotator_id=rater.id,
                answer={"score": score, "spans": spans},
            )
            given[(item.external_id, rater.username)] = (system, score, cut, spans[0]["severity"])
    (result,) = span_results(loaded_campaign)
    means = {}
    for (_, _), (system, score, _, _) in given.items():
        means.setdefault(system, []).append(score)
    assert {s.system: s.score for s in result.esa.systems} == pytest.approx(
        {k: float(np.mean(v)) for k, v in means.items()}
    )
    assert [s.system for s in result.esa.systems] == ["Online-B", "UEdin", "happypoet"]
    assert result.esa.domains == []  # no document has a domain: the plain mean
    # Krippendorff's alpha (interval) from the krippendorff package, and Kendall's tau.
    items = sorted({item for item, _ in given})
    matrix = [[given[(i, r.username)][1] for i in items] for r in raters]
    expected_alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    assert result.scores.alpha.kappa == pytest.approx(expected_alpha, abs=1e-9)
    assert result.scores.tau == pytest.approx(stats.kendalltau(*matrix).statistic, abs=1e-9)
    # Character F1 by hand: both mark [0, cut) from the start, so the overlap is the shorter.
    matched = marked = 0
    same_severity = 0
    for i in items:
        (_, _, a, sa), (_, _, b, sb) = (given[(i, r.username)] for r in raters)
        matched += min(a, b)
        same_severity += min(a, b) if sa == sb else 0
        marked += a + b
    assert result.span_f1 == pytest.approx(2 * matched / marked)
    assert result.span_f1_severity == pytest.approx(2 * same_severity / marked)
    assert not math.isnan(result.span_f1)
    client.force_login(manager)
    page = client.get(reverse("results-human", args=[loaded_campaign.id]))
    assert page.status_code == 200 and b"ESA score" in page.content
    assert b"Averaged over" not in page.content
    assert b"Krippendorff" in page.content
    api = client.get(f"/api/v1/campaigns/{loaded_campaign.id}/results/human/spans").json()
    (task_json,) = api["tasks"]
    assert task_json["task_type"] == "esa" and not task_json["lower_is_better"]
    assert [s["system"] for s in task_json["systems"]] == ["Online-B", "UEdin", "happypoet"]
    assert task_json["agreement"]["span_f1"] == pytest.approx(result.span_f1)
