"""import_mqm on Anthea's export (Marot's layout): HOTW checks stored per rater, never as spans."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Campaign, ErrorSpan, Judgment
from annotation.selectors.hotw import hotw_results
from annotation.selectors.human.reliability import missed_said
from annotation.selectors.human.spans import span_task_results
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
ANTHEA = DATA / "mqm-anthea-marot" / "anthea_sxs_export.tsv"


def test_anthea_export_imports_with_its_hotw_checks(manager, capsys):
    call_command(
        "import_mqm", str(ANTHEA), "--name", "Anthea", "--owner", "manager", "--languages", "en-de"
    )
    out = capsys.readouterr().out
    campaign = Campaign.objects.get(name="Anthea")
    task = campaign.tasks.get()
    assert Judgment.objects.filter(task=task).count() == 8
    spans = ErrorSpan.objects.filter(judgment__task=task)
    # The 8 error rows, no HOTW row among them.
    assert spans.count() == 8
    assert not spans.filter(category__in=["Found", "Missed"]).exists()
    assert spans.filter(category="Source issue", side="source").count() == 2
    results = {r.rater: (r.found, r.missed, round(r.rate, 3)) for r in hotw_results(task=task)}
    assert results == {
        "Demo-Project:rater1": (2, 1, 0.667),
        "Demo-Project:rater2": (0, 1, 0.0),
    }
    assert "imported 8 ratings" in out
    assert "HOTW checks of Demo-Project:rater1: 2 found, 1 missed (67%)" in out


def test_a_rater_with_checks_only_gets_no_judgment(manager, tmp_path):
    header = "system\tdoc\tdocSegId\tglobalSegId\trater\tsource\ttarget\tcategory\tseverity\n"
    path = tmp_path / "checks.tsv"
    path.write_text(
        header
        + "s\td\t1\t1\tr1\tsrc\ttgt\tNo-error\tNo-error\n"
        + "s\td\t1\t1\tr2\tsrc\ttgt\tFound\tHOTW-test\n",
        encoding="utf-8",
    )
    call_command(
        "import_mqm", str(path), "--name", "Checks", "--owner", "manager", "--languages", "en-de"
    )
    task = Campaign.objects.get(name="Checks").tasks.get()
    judged = Judgment.objects.filter(task=task).values_list("annotator__username", flat=True)
    assert list(judged) == ["r1"]
    assert [(r.rater, r.found) for r in hotw_results(task=task)] == [("r2", 1)]


def test_a_rating_made_of_hotw_rows_only_is_an_attention_check(manager, client, tmp_path):
    """A rating whose rows are all HOTW rows gives no judgment; its checks still count for
    the rater in the reliability table: r1 rated segment 1 and missed the error injected in
    segment 2; r2 only found the errors injected in both. Failed before: those checks had no
    slot to be recorded on, so r1 passed 0 of 0 and r2 had no row (the per-rater panel only)."""
    header = "system\tdoc\tdocSegId\tglobalSegId\trater\tsource\ttarget\tcategory\tseverity\n"
    path = tmp_path / "hotw-only.tsv"
    path.write_text(
        header
        + "s\td\t1\t1\tr1\tsrc one\ttgt one\tNo-error\tNo-error\n"
        + "s\td\t2\t2\tr1\tsrc two\ttgt two\tMissed\tHOTW-test\n"
        + "s\td\t1\t1\tr2\tsrc one\ttgt one\tFound\tHOTW-test\n"
        + "s\td\t2\t2\tr2\tsrc two\ttgt two\tFound\tHOTW-test\n",
        encoding="utf-8",
    )
    call_command(
        "import_mqm", str(path), "--name", "HOTW", "--owner", "manager", "--languages", "en-de"
    )
    campaign = Campaign.objects.get(name="HOTW")
    task = campaign.tasks.get()
    judged = Judgment.objects.filter(task=task).values_list("annotator__username", flat=True)
    assert list(judged) == ["r1"]
    rows = {row.username: row for row in span_task_results(task).reliability}
    assert set(rows) == {"r1", "r2"}
    r1, r2 = rows["r1"], rows["r2"]
    assert (r1.attention.passed, r1.attention.total, r1.missed) == (0, 1, (("hotw", 1),))
    assert r1.time.items == 1
    assert (r2.attention.passed, r2.attention.total, r2.missed) == (2, 2, ())
    assert (r2.time.items, r2.time.mean_seconds, r2.passes) == (0, None, True)
    client.force_login(manager)
    page = client.get(reverse("results-human", args=[campaign.id])).content.decode()
    table = page[page.index(f'id="reliability-{task.id}"') :]
    table = table[: table.index("</table>")]
    assert f'data-annotator="{r2.annotator_id}" data-passes="1"' in table
    assert "2 / 2" in table and "missed 1 HOTW error" in table


def test_results_page_shows_the_hotw_checks_per_rater(manager, client):
    call_command(
        "import_mqm", str(ANTHEA), "--name", "Anthea", "--owner", "manager", "--languages", "en-de"
    )
    campaign = Campaign.objects.get(name="Anthea")
    client.force_login(manager)
    page = client.get(reverse("results-human", args=[campaign.id])).content.decode()
    assert "HOTW attention checks" in page
    table = page[page.index('class="list compact hotw"') :]
    table = table[: table.index("</table>")]
    assert 'Demo-Project:rater1</td><td class="num">2</td><td class="num">1</td>' in table
    assert 'Demo-Project:rater2</td><td class="num">0</td><td class="num">1</td>' in table


def test_imported_raters_have_their_hotw_checks_in_the_reliability_table(manager, client):
    """Each rater of an Anthea export is an account whose HOTW checks are attention-check
    outcomes: the table, the API and the download say "missed N HOTW errors" (README: rater1
    found 2 of 3, rater2 0 of 1); their time per item is read from the rows' times. Failed
    before: the checks were only in the per-rater panel, and every rating took 0 s."""
    call_command(
        "import_mqm", str(ANTHEA), "--name", "Anthea", "--owner", "manager", "--languages", "en-de"
    )
    campaign = Campaign.objects.get(name="Anthea")
    task = campaign.tasks.get()
    rows = {row.username: row for row in span_task_results(task).reliability}
    first, second = rows["Demo-Project.rater1"], rows["Demo-Project.rater2"]
    assert (first.attention.passed, first.attention.total) == (2, 3)
    assert first.missed == (("hotw", 1),)
    assert (second.attention.passed, second.attention.total) == (0, 1)
    assert second.missed == (("hotw", 1),)
    assert missed_said(first.missed) == "1 HOTW error"
    # Time per rating from Anthea's row times: rater1's ratings end at 2, 4, 6 and 7 s (the
    # first began at its first row, 0 s), rater2's at 101, 102, 103 and 105 s (from 100).
    assert (first.time.mean_seconds, first.time.median_seconds) == (1.75, 2.0)
    assert (second.time.mean_seconds, second.time.median_seconds) == (1.25, 1.0)
    client.force_login(manager)
    page = client.get(reverse("results-human", args=[campaign.id])).content.decode()
    table = page[page.index(f'id="reliability-{task.id}"') :]
    table = table[: table.index("</table>")]
    assert f'data-annotator="{first.annotator_id}"' in table
    assert "2 / 3" in table and "0 / 1" in table
    assert table.count("missed 1 HOTW error") == 2
    body = client.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()
    (spans,) = body["span_rankings"]
    api = {row["annotator"]: row for row in spans["reliability"]}
    assert (
        api["Demo-Project.rater1"]["attention_passed"],
        api["Demo-Project.rater1"]["attention_total"],
    ) == (2, 3)
    download = client.get(f"/campaigns/{campaign.id}/results/human/reliability.json")
    document = json.loads(b"".join(download.streaming_content))
    exported = {row["annotator"]: row for row in document["annotators"]}
    assert exported["Demo-Project.rater2"]["attention_rate"] == 0.0


def test_a_file_without_times_gives_no_time_and_no_too_fast_flag(manager, tmp_path):
    """Google's TED layout has no row times: its ratings are stored at the import's moment.
    The reliability table then has no time per item for them, rather than 0 s that flagged
    every rater "too fast" (failed before: median 0.0 s over 12 items, flagged)."""
    header = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    rows = "".join(
        f"s\ttalk.1\t1\t{segment}\trater1\tsrc {segment}\ttgt {segment}\tNo-error\tno-error\n"
        for segment in range(1, 13)
    )
    path = tmp_path / "ted.tsv"
    path.write_text(header + rows, encoding="utf-8")
    call_command(
        "import_mqm", str(path), "--name", "TED", "--owner", "manager", "--languages", "zh-en"
    )
    task = Campaign.objects.get(name="TED").tasks.get()
    assert Judgment.objects.filter(task=task).count() == 12
    (row,) = span_task_results(task).reliability
    assert row.time.items == 12
    assert (row.time.mean_seconds, row.time.median_seconds) == (None, None)
    assert not row.too_fast and row.passes
