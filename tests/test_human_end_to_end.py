"""End to end: scripted annotators judge through the annotator API, organisers read the results.

Planted: system quality (Human > Online-B > UEdin > happypoet), annotators who disagree by a
point now and then, and one careless annotator who scores at random, bad references included.
The dashboard must find the planted order, kappas equal to an independent computation, the
careless annotator failing the bad-reference test, and the same numbers as the command line
reading its own exports.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import defaultdict
from itertools import combinations

import krippendorff
import numpy as np
import pytest
from rest_framework.test import APIClient
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from annotation.models import Judgment, Slot
from metrics.cli import main as metrics_main

pytestmark = pytest.mark.django_db

QUALITY = {"Human": 5.0, "Online-B": 4.2, "UEdin": 3.0, "happypoet": 1.6}
ORDER = ["Human", "Online-B", "UEdin", "happypoet"]
CAREFUL = ["alice", "bob", "chen"]
CARELESS = "dora"


def _draw(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts: the scripted annotators' dice."""
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


# The dice read ``external_id`` (the item's number in its campaign, fixed by the plan), not the
# row id, which depends on how many rows the suite made before: the careless annotator's
# verdict must not change with the order tests run in.
def likert_answer(name: str, item, repeat: bool) -> int:
    if name == CARELESS:
        return 1 + int(_draw(name, item.external_id, repeat) * 5)
    if item.item_type == "BAD":
        return 1
    system = item.system.name if item.system else "Human"
    # Planted disagreement: now and then a careful annotator is a point off.
    offset = {0: -1, 1: 1}.get(int(_draw(name, item.external_id) * 6), 0)
    return int(min(5, max(1, round(QUALITY[system] + offset))))


def ranking_answer(name: str, item) -> list[int]:
    if name == CARELESS:
        order = sorted(range(len(item.candidates)), key=lambda i: _draw(name, item.external_id, i))
        return [order.index(i) + 1 for i in range(len(item.candidates))]
    quality = [max(QUALITY[s] for s in c["systems"]) for c in item.candidates]
    if _draw(name, item.external_id, "swap") < 0.2:  # planted disagreement
        quality = [
            q + (_draw(name, item.external_id, i) - 0.5) * 2.5 for i, q in enumerate(quality)
        ]
    order = sorted(range(len(quality)), key=lambda i: -quality[i])
    ranks = [0] * len(quality)
    for rank, index in enumerate(order, start=1):
        ranks[index] = rank
    return ranks


def annotate_all(task, users) -> int:
    """The annotators take turns, one item each, until none is left; returns the judgments."""
    recorded = 0
    clients = {}
    for user in users:
        clients[user.username] = APIClient()
        clients[user.username].force_authenticate(user)
    while clients:
        for name, api in list(clients.items()):
            shown = api.get(f"/api/v1/tasks/{task.id}/next").json()
            if shown["done"]:
                del clients[name]
                continue
            slot = Slot.objects.select_related("item__system").get(id=shown["slot"])
            body = {"task": task.id, "slot": slot.id}
            if task.task_type == "ranking":
                body["ranks"] = ranking_answer(name, slot.item)
            else:
                body["score"] = likert_answer(name, slot.item, slot.is_repeat)
            response = api.post("/api/v1/judgments", body, format="json")
            assert response.status_code == 201, response.content
            recorded += 1
    return recorded


@pytest.fixture
def annotated(launched, loaded_campaign, make_annotator):
    adequacy = launched(
        "adequacy",
        judgments_per_item=3,
        bad_reference_rate=0.3,  # together below 1, as a task's quality control must be
        reference_rate=0.4,
        repeat_rate=0.25,
        batch_size=20,  # several batches, so that every annotator gets some
        seed=7,
    )
    ranking = launched("ranking", ranking_size=3, judgments_per_item=3, repeat_rate=0.5, seed=3)
    users = [make_annotator(loaded_campaign, name) for name in [*CAREFUL, CARELESS]]
    assert annotate_all(adequacy, users) > 100
    assert annotate_all(ranking, users) > 20
    return loaded_campaign, adequacy, ranking, {u.username: u for u in users}


def run_cli(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert metrics_main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def download(client, url: str, path) -> str:
    response = client.get(url)
    assert response.status_code == 200 and response.streaming
    text = b"".join(response.streaming_content).decode()
    path.write_text(text)
    return text


def reference_kappas(campaign, task, excluded: set[str]):
    """Cohen (pairwise mean weighted by shared items), Fleiss and Krippendorff from the
    database directly, with sklearn, statsmodels and krippendorff."""
    rows = list(
        Judgment.objects.filter(task=task, is_repeat=False, item__item_type__in=["TGT", "REF"])
        .exclude(annotator__username__in=excluded)
        .values_list("item_id", "annotator__username", "score")
    )
    by_annotator: dict[str, dict[int, int]] = defaultdict(dict)
    for item, who, score in rows:
        by_annotator[who][item] = score
    total = weighted = 0.0
    for a, b in combinations(sorted(by_annotator), 2):
        shared = sorted(set(by_annotator[a]) & set(by_annotator[b]))
        first = [by_annotator[a][i] for i in shared]
        second = [by_annotator[b][i] for i in shared]
        if len(set(first) | set(second)) > 1:
            weighted += cohen_kappa_score(first, second) * len(shared)
            total += len(shared)
    raters = sorted(by_annotator)
    items = sorted({item for item, _, _ in rows})
    matrix = np.full((len(raters), len(items)), np.nan)
    for item, who, score in rows:
        matrix[raters.index(who), items.index(item)] = score
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
    full = [i for i in range(len(items)) if np.isfinite(matrix[:, i]).sum() == 3]
    table, _ = aggregate_raters(
        np.array([[v for v in matrix[:, i] if np.isfinite(v)] for i in full], dtype=int)
    )
    return weighted / total, fleiss_kappa(table), alpha


def test_annotated_campaign_results_match_independent_computations(
    annotated, client, manager, capsys, tmp_path
):
    campaign, adequacy, ranking, users = annotated
    client.force_login(manager)
    api = APIClient()
    api.force_authenticate(manager)
    results = api.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()
    tasks = {task["task_type"]: task for task in results["tasks"]}

    # Planted order, on the API and on the page.
    likert = tasks["adequacy"]["likert"][0]["systems"]
    assert [s["system"] for s in likert] == ORDER
    page = client.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    assert all(name in page for name in ORDER)
    assert f"{likert[0]['z']:.3f}" in page
    pairwise = tasks["ranking"]["pairwise"]
    assert [s["system"] for s in pairwise] == ORDER[1:]  # no human reference ranked there
    if tasks["ranking"]["rank_resamples"]:
        assert all(1 <= s["rank_range"][0] <= s["rank_range"][1] <= 3 for s in pairwise)

    # Kappas against sklearn / statsmodels / krippendorff on the database's judgments.
    agreement = {a["coefficient"]: a for a in tasks["adequacy"]["agreement"]}
    cohen, fleiss, alpha = reference_kappas(campaign, adequacy, excluded=set())
    assert agreement["Cohen's kappa, inter-annotator"]["value"] == pytest.approx(cohen)
    assert agreement["Fleiss' kappa"]["value"] == pytest.approx(fleiss)
    assert agreement["Krippendorff's alpha (ordinal)"]["value"] == pytest.approx(alpha)
    assert "Cohen's kappa, intra-annotator" in agreement

    # Verdicts: the careless annotator fails the bad-reference test, the others pass; the
    # p-values are scipy's one-sided paired t-test.
    quality = {a["username"]: a for a in tasks["adequacy"]["annotators"]}
    assert quality[CARELESS]["verdict"] == "failed"
    assert all(quality[name]["verdict"] == "passed" for name in CAREFUL)
    pairs = bad_reference_pairs(adequacy, CARELESS)
    expected = stats.ttest_rel(*zip(*pairs, strict=True), alternative="greater").pvalue
    assert quality[CARELESS]["bad_reference_p"] == pytest.approx(expected)

    # The export read back by `python -m metrics human` gives the dashboard's numbers.
    url = f"/campaigns/{campaign.id}/results/human/judgments.csv?task={adequacy.id}&included=1"
    download(client, url, tmp_path / "adequacy.csv")
    cli = run_cli(
        capsys,
        "human",
        "--judgments",
        str(tmp_path / "adequacy.csv"),
        "--reference-as",
        "Human",
        "--json",
    )
    section = cli["language_pairs"]["en-de"]
    assert_same_rankings(section["systems"], likert)
    for row in section["annotators"]:
        mine = quality[row["annotator"]]
        assert row["verdict"] == mine["verdict"]
        assert row["bad_reference_p"] == pytest.approx(mine["bad_reference_p"])
        assert row["median_seconds"] == pytest.approx(mine["median_seconds"])
        assert row["agreement_with_others"] == pytest.approx(mine["agreement_with_others"])

    # So does the Appraise export read with --format appraise.
    url = f"/campaigns/{campaign.id}/results/human/judgments.appraise?task={adequacy.id}"
    download(client, url, tmp_path / "appraise.csv")
    appraise = run_cli(
        capsys,
        "human",
        "--judgments",
        str(tmp_path / "appraise.csv"),
        "--format",
        "appraise",
        "--reference-as",
        "Human",
        "--json",
    )
    assert_same_rankings(appraise["language_pairs"]["en-de"]["systems"], likert)

    # The WMT ranking CSV read by `python -m metrics agreement` gives the dashboard's kappas.
    url = f"/campaigns/{campaign.id}/results/human/judgments.wmt?task={ranking.id}&included=1"
    download(client, url, tmp_path / "rankings.csv")
    kappas = run_cli(capsys, "agreement", "--rankings", str(tmp_path / "rankings.csv"), "--json")
    wmt = kappas["language_pairs"]["en-de"]
    mine = {a["coefficient"]: a for a in tasks["ranking"]["agreement"]}
    for kind in ("inter", "intra"):
        assert mine[f"WMT kappa, {kind}-annotator"]["value"] == pytest.approx(wmt[kind]["kappa"])
        assert mine[f"WMT kappa, {kind}-annotator"]["items"] == wmt[kind]["items"]
        assert mine[f"WMT kappa, {kind}-annotator"]["interval"] == pytest.approx(
            wmt[kind]["interval"]
        )

    # Excluding the careless annotator (one click on the page) changes rankings and agreement,
    # keeps them listed, and the included export still matches the command line.
    careless = users[CARELESS]
    response = client.post(
        f"/campaigns/{campaign.id}/results/human/annotators/{careless.id}/exclusion/",
        {"excluded": "1"},
    )
    assert response.status_code == 302
    after = api.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()
    task_after = next(t for t in after["tasks"] if t["task_type"] == "adequacy")
    assert after["excluded"] == [careless.id]
    listed = {a["username"]: a for a in task_after["annotators"]}
    assert listed[CARELESS]["excluded"] is True
    counted = sum(s["judgments"] for s in task_after["likert"][0]["systems"])
    assert counted < sum(s["judgments"] for s in likert)
    agreement = {a["coefficient"]: a for a in task_after["agreement"]}
    cohen, fleiss, alpha = reference_kappas(campaign, adequacy, excluded={CARELESS})
    assert agreement["Cohen's kappa, inter-annotator"]["value"] == pytest.approx(cohen)
    assert agreement["Krippendorff's alpha (ordinal)"]["value"] == pytest.approx(alpha)
    url = f"/campaigns/{campaign.id}/results/human/judgments.csv?task={adequacy.id}&included=1"
    text = download(client, url, tmp_path / "included.csv")
    assert CARELESS not in {row["annotator"] for row in csv.DictReader(io.StringIO(text))}
    cli = run_cli(
        capsys,
        "human",
        "--judgments",
        str(tmp_path / "included.csv"),
        "--reference-as",
        "Human",
        "--json",
    )
    assert_same_rankings(
        cli["language_pairs"]["en-de"]["systems"], task_after["likert"][0]["systems"]
    )


def bad_reference_pairs(task, username: str) -> list[tuple[float, float]]:
    """(original score, bad-reference score) pairs of one annotator, from the database."""
    scores: dict[tuple[str, int, int], list[int]] = defaultdict(list)
    for kind, system, segment, score in Judgment.objects.filter(
        task=task, annotator__username=username, is_repeat=False
    ).values_list("item__item_type", "item__system_id", "item__segment_id", "score"):
        scores[(kind, system, segment)].append(score)
    return [
        (float(np.mean(scores[("TGT", system, segment)])), float(bad))
        for (kind, system, segment), bads in scores.items()
        if kind == "BAD" and ("TGT", system, segment) in scores
        for bad in bads
    ]


def assert_same_rankings(cli: list[dict], dashboard: list[dict]) -> None:
    assert [s["system"] for s in cli] == [s["system"] for s in dashboard]
    for theirs, mine in zip(cli, dashboard, strict=True):
        for key in ("z", "raw", "z_interval", "raw_interval"):
            assert theirs[key] == pytest.approx(mine[key]), key
        for key in ("cluster", "rank_range", "segments", "judgments", "systems_beaten"):
            assert theirs[key] == mine[key], key
