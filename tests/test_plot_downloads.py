"""Every plot on the results pages downloads as standalone SVG and as PDF: the links the pages
show all answer, the files hold the plot (its title read back from the PDF), and only those
who may read the results get them."""

import re
import shutil
import subprocess

import pytest
from django.urls import reverse

from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record
from annotation.services.metric_uploads import metric_scores_upload
from tests.conftest import answer_for

pytestmark = pytest.mark.django_db
LINK = re.compile(r'href="(/campaigns/\d+/results/(?:human|automatic)/plots/[^"]+)"')


@pytest.fixture
def judged(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", judgments_per_item=2)
    for name in ("ann1", "ann2"):
        rater = make_annotator(loaded_campaign, name)
        value = 1
        while (slot := slot_claim_next(task=task, annotator_id=rater.id)) is not None:
            value = value % 5 + 1
            answer = answer_for("adequacy", value=value)
            judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=rater.id, answer=answer)
    lines = [
        f"{s}\t{0.1 * i}"
        for i, s in enumerate(["Online-B", "UEdin", "happypoet"])
        for _ in range(12)
    ]
    metric_scores_upload(
        campaign=loaded_campaign, name="mymetric", higher_is_better=True, text="\n".join(lines)
    )
    return loaded_campaign


def _links(client, url):
    page = client.get(url)
    assert page.status_code == 200
    return sorted(set(LINK.findall(page.content.decode().replace("&amp;", "&"))))


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler's pdftotext missing")
def test_every_plot_link_answers_with_the_plot(judged, client, manager, tmp_path):
    client.force_login(manager)
    links = _links(client, reverse("results-human", args=[judged.id]))
    links += _links(client, reverse("results-automatic", args=[judged.id]))
    keys = {re.sub(r"\.(svg|pdf).*", "", link.rsplit("/", 1)[1]) for link in links}
    # Two progress plots, the adequacy ranking, a scatter against the uploaded metric, and the
    # automatic page's plot of that metric: each as SVG and PDF.
    assert {"progress-0", "progress-1", "metric-0"} <= keys
    assert any(k.startswith("ranking-") for k in keys) and "scatter-0" in keys
    assert len(links) == 2 * len(keys)
    for link in links:
        answer = client.get(link)
        assert answer.status_code == 200, link
        if ".svg" in link:
            assert answer["Content-Type"] == "image/svg+xml"
            text = answer.content.decode()
            assert text.startswith("<?xml") and "<style>" in text and "var(--" not in text
            assert 'width="' in text.split(">", 2)[1]  # a size of its own, not the page's
        else:
            assert answer["Content-Type"] == "application/pdf"
            path = tmp_path / "plot.pdf"
            path.write_bytes(answer.content)
            pdf_text = subprocess.run(
                ["pdftotext", str(path), "-"], check=True, capture_output=True, text=True
            ).stdout
            assert pdf_text.strip(), link
    ranking = next(link for link in links if "ranking-" in link and link.endswith(".pdf"))
    path = tmp_path / "ranking.pdf"
    path.write_bytes(client.get(ranking).content)
    text = subprocess.run(
        ["pdftotext", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    assert "mean z with 95% bootstrap intervals" in text and "UEdin" in text


def test_plots_only_for_readers_and_known_keys(judged, client, manager, make_annotator):
    url = reverse("results-human-plot", args=[judged.id, "progress-0", "svg"])
    annotator = make_annotator(judged, "reader-not")
    client.force_login(annotator)
    assert client.get(url).status_code == 403
    client.force_login(manager)
    assert client.get(url).status_code == 200
    for key, fmt in (("progress-9", "svg"), ("progress-0", "png"), ("errors-1", "pdf")):
        assert (
            client.get(reverse("results-human-plot", args=[judged.id, key, fmt])).status_code == 404
        )
    bad = reverse("results-automatic-plot", args=[judged.id, "metric-7", "pdf"])
    assert client.get(bad).status_code == 404
