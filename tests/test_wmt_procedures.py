"""ESA rankings by WMT25's and WMT26's procedures on the results page, the results API and
the rankings download (real PostgreSQL): the rows equal what ``metrics.rankings`` gives on
the judgments read back by hand, and the page says which procedure its table uses."""

import csv
import io
import json

import numpy as np
import pytest
from django.template.defaultfilters import floatformat
from django.urls import reverse

from annotation.models import Judgment
from metrics.rankings import item_scores, rank_wmt25, rank_wmt26
from tests.test_span_rankings_export import SOCIAL_FROM, judge, split_into_two_domains

pytestmark = pytest.mark.django_db

QUALITY = {"Online-B": 80, "UEdin": 62, "happypoet": 58}


def answer_from(offset):
    def answer(system, index, text):
        # Noise that differs between systems, so that close systems can tie.
        noise = (7 * index + offset + 5 * len(system)) % 13 - 6
        score = QUALITY[system] + noise + (9 if index >= SOCIAL_FROM else 0)
        return {"score": score, "spans": []}

    return answer


@pytest.fixture
def waves(loaded_campaign, launched, make_annotator):
    """An ESA task whose every output two annotators judged: two waves."""
    split_into_two_domains(loaded_campaign)
    task = launched("esa", judgments_per_item=2, batch_size=36)
    judge(task, make_annotator(loaded_campaign, "first"), answer_from(0))
    judge(task, make_annotator(loaded_campaign, "second"), answer_from(5))
    return loaded_campaign, task


def judgments_by_hand(task):
    """(system, segment index, score, domain) of each judgment, in the order they were made."""
    rows = (
        Judgment.objects.filter(slot__task=task)
        .order_by("id")
        .values_list(
            "item__system__name", "item__segment__index", "score", "item__segment__document__domain"
        )
    )
    return list(rows)


def expected_wmt25(task):
    rows = judgments_by_hand(task)
    systems = sorted({r[0] for r in rows})
    segments = sorted({r[1] for r in rows}, key=str)
    table = np.full((len(systems), 2, len(segments)), np.nan)
    seen: dict = {}
    domain = {}
    for system, segment, score, dom in rows:
        key = (system, segment)
        table[systems.index(system), seen.get(key, 0), segments.index(segment)] = score
        seen[key] = seen.get(key, 0) + 1
        domain[segment] = dom
    assert set(seen.values()) == {2}  # every output judged twice
    ranking = rank_wmt25(table, domains=[domain[s] for s in segments])
    return {systems[s.system]: s for s in ranking.systems}


def expected_wmt26(task):
    rows = judgments_by_hand(task)
    systems = sorted({r[0] for r in rows})
    segments = sorted({str(r[1]) for r in rows})
    matrix = item_scores(
        [r[2] for r in rows],
        [systems.index(r[0]) for r in rows],
        [segments.index(str(r[1])) for r in rows],
        len(systems),
        len(segments),
    )
    return {systems[s.system]: s for s in rank_wmt26(matrix, seed=0)}


def download(client, campaign, fmt, procedure):
    url = reverse("results-human-rankings", args=[campaign.id, fmt]) + f"?procedure={procedure}"
    response = client.get(url)
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def test_wmt25_on_the_page_api_and_downloads(waves, client, manager):
    campaign, task = waves
    want = expected_wmt25(task)
    client.force_login(manager)

    api = client.get(reverse("api-results-human", args=[campaign.id]) + "?procedure=wmt25")
    assert api.status_code == 200
    (ranking,) = api.json()["span_rankings"]
    assert ranking["procedure"] == "wmt25"
    assert [s["system"] for s in ranking["systems"]] == list(want)
    for row in ranking["systems"]:
        s = want[row["system"]]
        assert row["score"] == pytest.approx(s.mean, abs=1e-12)
        assert (row["rank_low"], row["rank_high"]) == s.rank_range
        assert row["cluster"] == s.cluster
        assert row["domain_scores"] == pytest.approx(s.domain_means)
        assert row["judgments"] == 24 and row["segments"] == 12
        assert row["score_low"] is None  # WMT25 computes no interval

    document = json.loads(download(client, campaign, "json", "wmt25"))
    json_rows = [r for r in document["systems"] if r.get("procedure") == "wmt25"]
    assert [r["system"] for r in json_rows] == list(want)
    assert json_rows[0]["domain_scores"].keys() == {"news", "social"}
    csv_rows = list(csv.DictReader(io.StringIO(download(client, campaign, "csv", "wmt25"))))
    assert [r["system"] for r in csv_rows if r["procedure"] == "wmt25"] == list(want)
    for row in csv_rows:
        assert json.loads(row["domain_scores"]) == pytest.approx(want[row["system"]].domain_means)

    html = client.get(reverse("results-human", args=[campaign.id]) + "?procedure=wmt25")
    text = html.content.decode()
    assert "This table ranks as WMT25 takes the raw mean of all judgments" in text
    assert "<strong>WMT25</strong>" in text and "?procedure=wmt26" in text
    assert "Stouffer's method)" not in text  # WMT24's note on domain averaging
    table = text[text.index(f'id="task-{task.id}"') :]
    table = table[: table.index("</table>")]
    assert ">news</th>" in table and ">social</th>" in table and "95% CI" not in table
    for s in want.values():
        assert floatformat(s.mean, 3) in table and floatformat(s.domain_means["news"], 1) in table


def test_wmt26_on_the_page_api_and_downloads(waves, client, manager):
    campaign, task = waves
    want = expected_wmt26(task)
    client.force_login(manager)

    api = client.get(reverse("api-results-human", args=[campaign.id]) + "?procedure=wmt26")
    (ranking,) = api.json()["span_rankings"]
    assert ranking["procedure"] == "wmt26"
    assert [s["system"] for s in ranking["systems"]] == list(want)
    for row in ranking["systems"]:
        s = want[row["system"]]
        assert row["score"] == pytest.approx(s.mean, abs=1e-12)
        assert (row["rank_low"], row["rank_high"]) == s.rank_range
        assert (row["cluster"], row["local_cluster"]) == (s.cluster, s.local_cluster)
    # The planted gap (80 vs about 60) is found: Online-B alone at the top.
    assert want["Online-B"].rank_range == (1, 1) and want["Online-B"].boundary == "global"

    spans = client.get(reverse("api-results-human-spans", args=[campaign.id]) + "?procedure=wmt26")
    assert spans.status_code == 200
    (full,) = spans.json()["tasks"]
    assert full["procedure"] == "wmt26"
    assert [s["local_cluster"] for s in full["systems"]] == [s.local_cluster for s in want.values()]

    document = json.loads(download(client, campaign, "json", "wmt26"))
    assert [r["local_cluster"] for r in document["systems"]] == [
        s.local_cluster for s in want.values()
    ]
    csv_rows = list(csv.DictReader(io.StringIO(download(client, campaign, "csv", "wmt26"))))
    assert [int(r["cluster"]) for r in csv_rows] == [s.cluster for s in want.values()]

    text = client.get(reverse("results-human", args=[campaign.id]) + "?procedure=wmt26")
    text = text.content.decode()
    assert "This table ranks as WMT26 averages item means" in text
    assert "Local cluster" in text and "Pairwise significance" not in text


def test_the_default_stays_wmt24(waves, client, manager):
    campaign, _ = waves
    client.force_login(manager)
    (ranking,) = client.get(reverse("api-results-human", args=[campaign.id])).json()[
        "span_rankings"
    ]
    assert ranking["procedure"] == "wmt24"
    assert all(s["local_cluster"] is None and s["domain_scores"] == {} for s in ranking["systems"])
    text = client.get(reverse("results-human", args=[campaign.id])).content.decode()
    assert "This table ranks as WMT24 averages domain means" in text and "95% CI" in text


def test_an_unknown_procedure_is_refused_with_a_message(waves, client, manager):
    campaign, _ = waves
    client.force_login(manager)
    page = client.get(reverse("results-human", args=[campaign.id]) + "?procedure=wmt19")
    assert page.status_code == 400
    assert "Unknown ranking procedure" in page.content.decode()
    url = reverse("results-human-rankings", args=[campaign.id, "csv"]) + "?procedure=x"
    assert client.get(url).status_code == 400
    for name in ("api-results-human", "api-results-human-spans"):
        answer = client.get(reverse(name, args=[campaign.id]) + "?procedure=wmt19")
        assert answer.status_code == 400
        assert "procedure" in json.dumps(answer.json())
