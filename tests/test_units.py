"""Units and directions that mean one thing everywhere: HTER in percent like TER (checked
against sacrebleu's TER of the same outputs and post-edits), its plot axis from 0, and TER
marked "lower is better" on the page, in the API and in the download."""

from __future__ import annotations

import csv
import importlib
import io
import re
from collections import defaultdict

import pytest
from django.apps import apps
from rest_framework.test import APIClient
from sacrebleu.metrics import TER

from annotation.exports import ranking_rows
from annotation.models import Judgment, SystemRun
from annotation.plots.intervals import interval_plot
from annotation.selectors.human import human_results
from annotation.services.scoring import JOB_METRICS, run_metrics_compute
from tests.human_support import judge_all

pytestmark = pytest.mark.django_db

# Cut 0-2 words from the front of each output: every system gets edits, none all of them.
POST_EDIT_CUTS = 3


@pytest.fixture
def post_edited(launched, loaded_campaign, make_annotator):
    task = launched("postedit", judgments_per_item=1)
    users = [make_annotator(loaded_campaign, name) for name in ("pe1", "pe2")]

    def post_edit(user, slot):
        words = slot.item.candidates[0]["text"].split()
        cut = (slot.item.id + user.id) % POST_EDIT_CUTS
        return {"post_edit": " ".join(words[cut:] or ["leer"])}

    judge_all(task, users, post_edit)
    return loaded_campaign, task


def _outputs_and_post_edits(task):
    by_system = defaultdict(lambda: ([], []))
    for judgment in Judgment.objects.filter(task=task, is_repeat=False).select_related(
        "item__system"
    ):
        mts, pes = by_system[judgment.item.system.name]
        mts.append(judgment.item.candidates[0]["text"])
        pes.append(judgment.post_edit)
    return by_system


def test_hter_is_sacrebleus_ter_in_percent_stored_ranked_and_exported(post_edited):
    campaign, task = post_edited
    ter = TER()
    for judgment in Judgment.objects.filter(task=task).select_related("item"):
        sentence = ter.sentence_score(judgment.item.candidates[0]["text"], [judgment.post_edit])
        assert judgment.hter == pytest.approx(sentence.score, rel=1e-12)
    corpus = {
        name: ter.corpus_score(mts, [pes]).score
        for name, (mts, pes) in _outputs_and_post_edits(task).items()
    }
    assert max(corpus.values()) > 1  # percent, not a fraction
    rows = [r for r in ranking_rows(human_results(campaign)) if r["measure"] == "hter"]
    assert {r["system"]: r["corpus_hter"] for r in rows} == pytest.approx(corpus, rel=1e-9)
    for row in rows:
        assert 0 <= row["corpus_hter_low"] <= row["corpus_hter"] <= row["corpus_hter_high"] <= 100


def test_results_page_shows_hter_in_percent_with_its_plot_from_zero(client, manager, post_edited):
    campaign, task = post_edited
    client.force_login(manager)
    page = client.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    corpus = {
        name: TER().corpus_score(mts, [pes]).score
        for name, (mts, pes) in _outputs_and_post_edits(task).items()
    }
    for value in corpus.values():
        assert f'<td class="num">{value:.2f}</td>' in page
    assert "HTER in percent, as TER on the automatic metrics page" in page
    plot = re.search(r'<svg[^>]*aria-label="[^"]*corpus HTER in %.*?</svg>', page, re.S)
    assert plot is not None
    first_tick = re.search(r'class="tick">([^<]*)</text>', plot.group(0))
    assert first_tick is not None and float(first_tick.group(1)) == 0.0


def test_interval_plot_starts_its_axis_where_asked():
    rows = [("a", 40.0, 35.0, 45.0), ("b", 55.0, 50.0, 60.0)]

    def ticks(svg: str) -> list[float]:
        return [float(t) for t in re.findall(r'class="tick">([^<]*)</text>', svg)]

    assert ticks(interval_plot(rows, title="t", axis_from=0.0))[0] == 0.0
    assert ticks(interval_plot(rows, title="t"))[0] > 30  # otherwise just below the lowest


def test_stored_fractions_become_percent_in_the_migration(post_edited):
    _, task = post_edited
    ids = list(Judgment.objects.filter(task=task).values_list("id", flat=True)[:2])
    Judgment.objects.filter(id=ids[0]).update(hter=0.25)  # as stored before the migration
    Judgment.objects.filter(id=ids[1]).update(hter=1.5)
    migration = importlib.import_module("annotation.migrations.0011_hter_percent")
    migration.to_percent(apps, None)
    values = dict(Judgment.objects.filter(id__in=ids).values_list("id", "hter"))
    assert values == {ids[0]: pytest.approx(25.0), ids[1]: pytest.approx(150.0)}
    migration.to_fraction(apps, None)
    assert Judgment.objects.get(id=ids[0]).hter == pytest.approx(0.25)


@pytest.fixture
def scored(loaded_campaign):
    for run_id in SystemRun.objects.values_list("id", flat=True):
        run_metrics_compute(target_id=run_id, report_progress=lambda percent: None)
    return loaded_campaign


# The error rates improve downwards, every other metric of the job upwards.
EVERY_DIRECTION = {
    (metric, "lower" if metric in ("ter", "wer", "per") else "higher") for metric in JOB_METRICS
}


def test_ter_is_marked_lower_is_better_on_the_page_api_and_downloads(client, manager, scored):
    client.force_login(manager)
    page = client.get(f"/campaigns/{scored.id}/results/automatic/").content.decode()
    assert '>TER</a> <small class="muted">lower is better</small></th>' in page
    assert ">WER</a> <small" in page and ">PER</a> <small" in page
    assert ">BLEU</a> <small" not in page
    assert "TER (lower is better) with 95% bootstrap intervals" in page
    response = client.get(f"/campaigns/{scored.id}/results/automatic.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert {(row["metric"], row["better"]) for row in rows} == EVERY_DIRECTION
    api = APIClient()
    api.force_authenticate(manager)
    systems = api.get(f"/api/v1/campaigns/{scored.id}/results/automatic").json()["systems"]
    assert {(row["metric"], row["better"]) for row in systems} == EVERY_DIRECTION
    download = client.get(f"/campaigns/{scored.id}/results/automatic.json").json()
    assert {row["better"] for row in download["systems"] if row["metric"] == "ter"} == {"lower"}
