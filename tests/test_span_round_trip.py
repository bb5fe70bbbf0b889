"""The shared MQM TSV (Google's TED zh-en) imported, exported, re-imported: the same spans."""

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Campaign, ErrorSpan, Judgment
from metrics.spans import group_ratings, read_mqm_tsv
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
TED = DATA / "mqm-ted-zh-en" / "mqm_ted_zhen.tsv"


def ratings_of(text):
    return {
        (r.system, r.doc, r.seg_id, r.rater): sorted(
            (s.start or -1, s.end or -1, s.severity.lower(), s.category or "", s.side)
            for s in r.spans
        )
        for r in group_ratings(read_mqm_tsv(io.StringIO(text)))
    }


def export(client, campaign):
    url = reverse("results-human-judgments", args=[campaign.id, "mqm.tsv"])
    response = client.get(url)
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def test_ted_mqm_round_trip(manager, client, tmp_path):
    original = ratings_of(TED.read_text(encoding="utf-8"))
    call_command(
        "import_mqm", str(TED), "--name", "TED", "--owner", "manager", "--languages", "zh-en"
    )
    first = Campaign.objects.get(name="TED")
    assert Judgment.objects.filter(task__campaign=first).count() == len(original)
    assert ErrorSpan.objects.count() == sum(len(spans) for spans in original.values())
    client.force_login(manager)
    exported = export(client, first)

    assert ratings_of(exported) == original
    path = tmp_path / "again.tsv"
    path.write_text(exported, encoding="utf-8")
    call_command(
        "import_mqm", str(path), "--name", "TED again", "--owner", "manager", "--languages", "zh-en"
    )
    second = Campaign.objects.get(name="TED again")
    assert ratings_of(export(client, second)) == original


def test_bad_tsv_writes_nothing(manager, tmp_path):
    path = tmp_path / "bad.tsv"
    header = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    path.write_text(header + "A\td\t1\t1\tr1\tsrc\tt<v>x</v>\tOther\tMajor\nA\td\t1\t1\tr1\n")
    with pytest.raises(Exception, match="line 3"):
        call_command(
            "import_mqm", str(path), "--name", "Bad", "--owner", "manager", "--languages", "zh-en"
        )
    assert not Campaign.objects.filter(name="Bad").exists()
