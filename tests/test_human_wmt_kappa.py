"""The dashboard's WMT kappa of a ranking task, recomputed from the database rows.

As the WMT organisers' script did, an item is a segment and two systems in the order they were
listed: for an evalsite item, the order in which it displays its candidates. The order-free
variant compares every two labels on the same two systems. Both are recomputed here with a
plain loop over the judgments, written from the WMT formula.
"""

from __future__ import annotations

import json
from collections import defaultdict
from itertools import combinations

import pytest
from rest_framework.test import APIClient

from annotation.exports import judgments_download
from annotation.models import Judgment
from annotation.selectors.human import human_results
from metrics.cli import main
from tests.human_support import judge_all

pytestmark = pytest.mark.django_db

QUALITY = {"Online-B": 5, "UEdin": 3, "happypoet": 2, "Human": 4}


def noisy_ranks(user, slot) -> dict[str, list[int]]:
    """Ranks by planted quality, with an annotator- and item-dependent disturbance."""
    quality = [max(QUALITY[s] for s in c["systems"]) for c in slot.item.candidates]
    shaken = [q + ((slot.item.id * 5 + user.id * 3 + i) % 4) * 0.7 for i, q in enumerate(quality)]
    return {"ranks": [1 + sum(other > own for other in shaken) for own in shaken]}


def loop_kappa(listed: bool, intra: bool, task) -> tuple[float, float, float, int]:
    """(kappa, P(A), P(E), items) from the judgments, by the WMT formula; items are the
    items with two labels to compare (intra: an annotator's repeated items)."""
    labels = []  # (segment, judge, first system, second system, relation)
    judgments = Judgment.objects.filter(task=task).select_related("item__segment")
    for judgment in judgments:
        candidates = judgment.item.candidates  # in display order
        for (i, first), (j, second) in combinations(enumerate(candidates), 2):
            for x in first["systems"]:
                for y in second["systems"]:
                    rx, ry = judgment.ranks[i], judgment.ranks[j]
                    if not listed and x > y:
                        x, y, rx, ry = y, x, ry, rx
                    relation = "<" if rx < ry else "=" if rx == ry else ">"
                    segment, judge = judgment.item.segment.index, judgment.annotator_id
                    labels.append((segment, judge, x, y, relation))
    by_item = defaultdict(list)
    for segment, judge, x, y, relation in labels:
        by_item[(segment, x, y)].append((judge, relation))
    agree = pairs = 0
    items = set()
    repeaters = set()
    for key, given in by_item.items():
        for (judge1, label1), (judge2, label2) in combinations(given, 2):
            if intra and judge1 != judge2:
                continue
            pairs += 1
            agree += label1 == label2
            items.add((key, judge1) if intra else key)
            if judge1 == judge2:
                repeaters.add((key[0], judge1))
    if intra:
        counted = [r for s, j, _, _, r in labels if (s, j) in repeaters]
    else:
        counted = [r for *_, r in labels]
    p_tie = counted.count("=") / len(counted)
    p_a = agree / pairs
    p_e = p_tie**2 + 2 * ((1 - p_tie) / 2) ** 2
    return (p_a - p_e) / (1 - p_e), p_a, p_e, len(items)


def test_wmt_kappa_keys_items_by_display_order(
    launched, loaded_campaign, make_annotator, manager, client, capsys, tmp_path
):
    # Three systems and the reference in groups of three: the second item of a segment is
    # filled up from the first, so some pairs of systems are shown twice, in either order.
    task = launched(
        "ranking", ranking_size=3, judgments_per_item=3, reference_rate=0.5, repeat_rate=0.4
    )
    users = [make_annotator(loaded_campaign, name) for name in ("k1", "k2", "k3", "k4")]
    judge_all(task, users, noisy_ranks)
    shown = defaultdict(set)
    for item in task.items.all():
        names = [c["systems"][0] for c in item.candidates]
        for x, y in combinations(names, 2):
            shown[(item.segment_id, frozenset((x, y)))].add((x, y))
    assert any(len(orders) == 2 for orders in shown.values()), "no pair shown in both orders"

    result = human_results(loaded_campaign, task_id=task.id).tasks[0]
    found = {a.coefficient: a.kappa for a in result.agreement}
    for kind in ("inter", "intra"):
        listed = loop_kappa(listed=True, intra=kind == "intra", task=task)
        free = loop_kappa(listed=False, intra=kind == "intra", task=task)
        mine = found[f"WMT kappa, {kind}-annotator"]
        assert (mine.kappa, mine.p_a, mine.p_e, mine.items) == pytest.approx(listed)
        mine = found[f"WMT kappa, {kind}-annotator (order-free)"]
        assert (mine.kappa, mine.p_a, mine.p_e, mine.items) == pytest.approx(free)
    # Here the display order changes the figure.
    assert found["WMT kappa, inter-annotator"].kappa != pytest.approx(
        found["WMT kappa, inter-annotator (order-free)"].kappa
    )

    # The API and the page carry both, the page says how they differ, and the WMT export read
    # by `python -m metrics agreement` gives the same figures (with and without --order-free).
    api = APIClient()
    api.force_authenticate(manager)
    document = api.get(f"/api/v1/campaigns/{loaded_campaign.id}/results/human").json()
    (ranking,) = [t for t in document["tasks"] if t["task_type"] == "ranking"]
    listed = {a["coefficient"]: a["value"] for a in ranking["agreement"]}
    for name, kappa in found.items():
        assert listed[name] == pytest.approx(kappa.kappa)
    client.force_login(manager)
    page = client.get(f"/campaigns/{loaded_campaign.id}/results/human/").content.decode()
    assert "WMT kappa, inter-annotator (order-free)" in page
    assert "as the WMT organisers computed it" in page
    export = tmp_path / "rankings.csv"
    response = judgments_download(campaign=loaded_campaign, fmt="wmt", task=task)
    export.write_bytes(b"".join(response.streaming_content))
    for option, suffix in (([], ""), (["--order-free"], " (order-free)")):
        command = ["agreement", "--rankings", str(export), "--json", "--bootstrap", "0", *option]
        assert main(command) == 0
        (section,) = json.loads(capsys.readouterr().out)["language_pairs"].values()
        for kind in ("inter", "intra"):
            assert section[kind]["kappa"] == pytest.approx(
                found[f"WMT kappa, {kind}-annotator{suffix}"].kappa
            )
