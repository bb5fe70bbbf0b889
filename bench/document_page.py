"""Server time to render a document page of 20 segments × 3 outputs (issue 22's target:
≤ 100 ms): a contrastive ESA document page by default, or a one-output ESA page.

    .venv/bin/python bench/document_page.py [--pages 50] [--segments 20] [--outputs 3]
        [--protocol contrastive_esa|esa] [--json]

A campaign from the demo corpus (five systems; its first 100 segments cut into documents of
``--segments``) with a launched document-level task (pages of ``--segments``, a page score;
contrastive: ``--outputs`` translations of each segment, a page score each) and one
annotator, made through the services. The annotator's page is then asked for
``--pages`` times in this process through Django's request handler (the middleware, the
session, the claim, which resumes the page they hold, the reads and the template), as the
web server would run it; no network. Prints the median, p95 and max of the wall time per
request and the page's size, and the median of a segment-level ESA item page of the same
campaign timed right after (a loaded machine slows both). The campaign is deleted afterwards.

Measured 2026-11-26 on a quiet machine, 50 requests each: contrastive ESA, 20 segments × 3
outputs, median 37.0 ms, p95 57.3 ms, max 114 ms (75.6 KB); ESA, 20 segments × 1 output,
median 37.5 ms, p95 65.4 ms, max 251 ms (31.6 KB). Target: <= 100 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid
from pathlib import Path

from _common import CORPORA, SYSTEMS, django_setup, percentile


def document_task(segments: int, protocol: str, outputs: int) -> tuple[object, object]:
    """A launched document-level task and its annotator."""
    from django.contrib.auth import get_user_model

    from annotation.services.campaigns import campaign_create, membership_set
    from annotation.services.imports import upload_import
    from annotation.services.tasks import task_create, task_launch

    source, system_path = CORPORA["demo"]
    lines = source.read_text(encoding="utf-8").splitlines()
    user_model = get_user_model()
    tag = uuid.uuid4().hex[:6]
    owner = user_model.objects.create_user(f"bench-doc-manager-{tag}")
    campaign = campaign_create(
        name=f"bench-doc {tag}", source_language="en", target_language="de", owner=owner
    )
    documents = "".join(f"doc-{i // segments}\n" for i in range(len(lines))).encode()
    upload_import(
        campaign=campaign,
        kind="source",
        user=owner,
        files=[("source.en", source.read_bytes())],
        documents=("source.docids", documents),
    )
    for system in SYSTEMS:
        upload_import(
            campaign=campaign,
            kind="system",
            name=system,
            user=owner,
            files=[(f"{system}.de", Path(str(system_path).format(system)).read_bytes())],
        )
    contrastive = {"ranking_size": outputs} if protocol.startswith("contrastive") else {}
    task = task_create(
        campaign=campaign,
        task_type=protocol,
        unit="document",
        page_size=segments,
        document_score=True,
        seed=1,
        **contrastive,
    )
    task_launch(task_id=task.id)
    annotator = user_model.objects.create_user(f"bench-doc-{tag}")
    membership_set(campaign=campaign, user=annotator, role="annotator")
    return task, annotator


def timed_gets(client, url: str, requests: int) -> list[float]:
    """Wall ms of ``requests`` GETs of ``url`` after a first one (which claims)."""
    assert client.get(url, secure=True).status_code == 200
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url, secure=True)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
    return times


def segment_baseline(task, requests: int, client_for) -> list[float]:
    """The same campaign's segment-level ESA item page, for comparison on the same machine
    at the same moment (a loaded machine slows both)."""
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    from annotation.services.campaigns import membership_set
    from annotation.services.tasks import task_create, task_launch

    segment_task = task_create(campaign=task.campaign, task_type="esa", name="segments", seed=1)
    task_launch(task_id=segment_task.id)
    annotator = get_user_model().objects.create_user(f"bench-seg-{uuid.uuid4().hex[:6]}")
    membership_set(campaign=task.campaign, user=annotator, role="annotator")
    return timed_gets(client_for(annotator), reverse("annotate", args=[segment_task.id]), requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=50, help="requests timed")
    parser.add_argument("--segments", type=int, default=20, help="segments per page")
    parser.add_argument("--outputs", type=int, default=3, help="contrastive: outputs shown")
    parser.add_argument(
        "--protocol",
        choices=["contrastive_esa", "contrastive_da", "esa"],
        default="contrastive_esa",
    )
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    django_setup()
    from django.conf import settings
    from django.test import Client
    from django.urls import reverse

    task, annotator = document_task(options.segments, options.protocol, options.outputs)
    outputs = options.outputs if options.protocol != "esa" else 1
    try:
        host = next((h for h in settings.ALLOWED_HOSTS if h and "*" not in h), "localhost")

        def client_for(user):
            client = Client(HTTP_HOST=host.lstrip("."))
            client.force_login(user)
            return client

        client = client_for(annotator)
        url = reverse("annotate", args=[task.id])
        first = client.get(url, secure=True)  # claims the page; later requests resume it
        assert first.status_code == 200, first.status_code
        html = first.content.decode()
        shown = html.count('<li class="doc-segment')
        assert shown == options.segments, shown
        # Identical outputs of a segment are shown once: at most segments × outputs.
        cards = html.count('class="text-card candidate cdoc-candidate"') if outputs > 1 else shown
        assert options.segments <= cards <= options.segments * outputs, cards
        times = timed_gets(client, url, options.pages)
        baseline = segment_baseline(task, options.pages, client_for)
        figures = {
            "segments": shown,
            "protocol": options.protocol,
            "outputs": outputs,
            "translations_shown": cards,
            "requests": len(times),
            "median_ms": round(statistics.median(times), 1),
            "p95_ms": round(percentile(times, 0.95), 1),
            "max_ms": round(max(times), 1),
            "page_bytes": len(first.content),
            "segment_page_median_ms": round(statistics.median(baseline), 1),
        }
    finally:
        task.campaign.delete()
    if options.json:
        print(json.dumps(figures))
        return
    print(
        f"{options.protocol} document page of {figures['segments']} segments × {outputs} "
        f"output{'s' if outputs > 1 else ''} ({figures['translations_shown']} translations "
        "shown, identical ones once): "
        f"median {figures['median_ms']} ms, p95 {figures['p95_ms']} ms, "
        f"max {figures['max_ms']} ms over {figures['requests']} requests "
        f"({figures['page_bytes']} bytes); a segment-level ESA item page at the same moment: "
        f"median {figures['segment_page_median_ms']} ms"
    )


if __name__ == "__main__":
    main()
