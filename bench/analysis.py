"""The human-results dashboard and the judgment export on a million synthetic judgments.

Generates N Likert judgments (default 1,000,000: 20 systems, 500 annotators, five judgments
per item, 4% bad references, 2% planned repeats) straight into the database of a running
stack (`make up`) in a throwaway campaign, times the human-results page as served (a GET of
/campaigns/<id>/results/human/ through Django's test client as the campaign's manager: the
middleware, the view's human results, meta-evaluation, span results, SVG plots and template,
as gunicorn would run it minus the socket) and, apart, ``human_results()`` alone (the
selector the page starts with), and the streaming CSV export; prints seconds and peak memory
against the targets (< 10 s, < 500 MB), and deletes everything it created.

    .venv/bin/python bench/analysis.py [--judgments 1000000] [--keep]

With ``--shared-task PAIRSxSYSTEMSxSEGMENTSxJUDGMENTS`` (WMT scale: 30x20x1500x2, 1.8 M
judgments) it builds, in a database of its own (the connection's name + ``_bench_analysis``,
created and dropped by the bench; ``--keep`` keeps it and a later run reuses its data), a
shared task of that many campaigns, one adequacy task each (every segment's output of every
system judged that many times, plus bad references and repeats), in bulk SQL, then prints
per page (the shared-task page, pair results pages, the results API of a pair and of the
shared task) the first request of a fresh web process (cold: imports, connection, snapshot
read) and the next ones (warm), the process's peak RSS: with no snapshot (a page answers
"being computed", the API 202, and both ask the job), with snapshots current, and with one
pair stale; and the snapshot computation per pair (the refresh job) (targets <= 1 s warm,
<= 5 s cold, <= 1 GB).

Each measurement runs twice: once for the time, once under tracemalloc for the peak of
Python and NumPy allocations (tracing slows the code down). Peak RSS is the process's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SECONDS_TARGET = 10.0
MEGABYTES_TARGET = 500.0
PER_ITEM = 5
BAD_EVERY = 25  # one item in 25 is a bad reference
REPEAT_SHARE = 0.02
# A judgment's score by task type: the system's quality (systems in id order, worst first),
# an annotator's bias and noise; a bad reference scores lower.
_NOISE = "sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())"
_QUALITY = "(i.system_id - %(first_system)s)::float / greatest(%(systems)s - 1, 1)"
_BAD = "CASE WHEN i.item_type = 'BAD' THEN 1 ELSE 0 END"
SCORES = {
    "adequacy": f"""greatest(1, least(5, round(1.8 + 2.8 * {_QUALITY} - 2 * {_BAD}
        + 0.4 * sin(s.annotator_id) + 0.8 * {_NOISE})))::smallint""",
    "esa": f"""greatest(0, least(100, round(35 + 50 * {_QUALITY} - 35 * {_BAD}
        + 6 * sin(s.annotator_id) + 15 * {_NOISE})))::smallint""",
}
# The shared-task targets (issue 25 section 4).
WARM_TARGET = 1.0
COLD_TARGET = 5.0
RSS_TARGET_MB = 1024.0
SHARED_TASK_NAME = "bench-analysis shared task"
TARGET_LANGUAGES = [
    "de",
    "cs",
    "ja",
    "zh",
    "ru",
    "uk",
    "is",
    "hi",
    "ko",
    "ar",
    "et",
    "bn",
    "fr",
    "es",
    "it",
    "pt",
    "pl",
    "ro",
    "tr",
    "fi",
    "hu",
    "lt",
    "lv",
    "sk",
    "sl",
    "bg",
    "el",
    "he",
    "sr",
    "vi",
]


def django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    secret = ROOT / "var" / "secret_key"
    if "SECRET_KEY" not in os.environ and secret.exists():
        os.environ["SECRET_KEY"] = secret.read_text().strip()
    import django

    django.setup()


def create(
    n: int,
    n_systems: int,
    n_annotators: int,
    *,
    per_item: int = PER_ITEM,
    segments: int | None = None,
    owner: Any = None,
    languages: tuple[str, str] = ("en", "de"),
    task_type: str = "adequacy",
) -> dict[str, Any]:
    """The campaign, its task, items, slots and judgments; the bulk of it in SQL. With
    ``segments``, ``n`` is ignored: every segment has an output of every system, each judged
    ``per_item`` times, plus the bad references and repeats (quality control) on top."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from annotation.models import (
        Batch,
        Campaign,
        Document,
        ErrorSpan,
        Item,
        Judgment,
        Membership,
        RunScore,
        Segment,
        Slot,
        System,
        SystemRun,
        Task,
    )

    user_model = get_user_model()
    tag = uuid.uuid4().hex[:6]
    if segments is None:
        repeats = int(n * REPEAT_SHARE)
        n_items = (n - repeats) // per_item
        bad = n_items // BAD_EVERY
        segments = (n_items - bad) // n_systems
        tgt = segments * n_systems
        bad = n_items - tgt
        repeats = n - n_items * per_item
    else:
        tgt = segments * n_systems
        bad = tgt // (BAD_EVERY - 1)
        n_items = tgt + bad
        repeats = int(n_items * per_item * REPEAT_SHARE)
    source, target = languages
    with transaction.atomic():
        if owner is None:
            owner = user_model.objects.create_user(f"bench-analysis-owner-{tag}")
        campaign = Campaign.objects.create(
            name=f"bench-analysis {tag} {source}-{target}",
            source_language=source,
            target_language=target,
            owner=owner,
        )
        Membership.objects.create(campaign=campaign, user=owner, role="manager")
        document = Document.objects.create(campaign=campaign, external_id="doc", position=0)
        systems = System.objects.bulk_create(
            System(campaign=campaign, name=f"system-{i:02d}") for i in range(n_systems)
        )
        annotators = user_model.objects.bulk_create(
            user_model(username=f"bench-analysis-{tag}-{i}", password="!")
            for i in range(n_annotators)
        )
        Membership.objects.bulk_create(
            Membership(campaign=campaign, user=user, role="annotator") for user in annotators
        )
        for i, system in enumerate(systems):
            run = SystemRun.objects.create(
                system=system, campaign=campaign, number=1, content_hash=f"{tag}-{i}"
            )
            RunScore.objects.bulk_create(
                RunScore(
                    run=run,
                    metric=metric,
                    references="A",
                    score=base + i * step,
                    ci_low=base + i * step - 1,
                    ci_high=base + i * step + 1,
                    signature="synthetic",
                    samples=1000,
                    seed=12345,
                )
                for metric, base, step in (("bleu", 20, 0.7), ("chrf", 45, 0.9), ("ter", 70, -1.1))
            )
        task = Task.objects.create(
            campaign=campaign, task_type=task_type, state="launched", judgments_per_item=per_item
        )
    params = {
        "campaign": campaign.id,
        "document": document.id,
        "task": task.id,
        "segments": segments,
        "systems": n_systems,
        "first_system": systems[0].id,
        "tgt": tgt,
        "bad": bad,
        "every": max(1, tgt // max(bad, 1)),
        "repeats": repeats,
        "repeat_every": max(1, tgt // max(repeats, 1)),
        "per_item": per_item,
        "users": [user.id for user in annotators],
        "n_users": n_annotators,
        "step": n_annotators // per_item,
        "n_items": n_items,
    }
    segment, item, slot, judgment, batch = (
        model._meta.db_table for model in (Segment, Item, Slot, Judgment, Batch)
    )
    params["task_type"] = task_type
    statements = [
        "SELECT setseed(0.42)",
        f"""INSERT INTO {segment} (campaign_id, document_id, index, source)
            SELECT %(campaign)s, %(document)s, g, 'source ' || g
            FROM generate_series(0, %(segments)s - 1) g""",  # noqa: S608 (table names from the models)
        f"""INSERT INTO {item} (task_id, campaign_id, external_id, item_type, segment_id,
                system_id, candidates, has_repeat, source_meta, prefilled_spans)
            SELECT %(task)s, %(campaign)s,
                row_number() OVER (ORDER BY seg.index, sys.id), 'TGT', seg.id, sys.id,
                jsonb_build_array(jsonb_build_object('text', 'output ' || seg.index,
                    'systems', jsonb_build_array(sys.name), 'type', 'TGT')),
                false, '{{}}'::jsonb, '[]'::jsonb
            FROM {segment} seg
            CROSS JOIN (SELECT id, name FROM {System._meta.db_table}
                        WHERE campaign_id = %(campaign)s) sys
            WHERE seg.campaign_id = %(campaign)s""",  # noqa: S608 (table names from the models)
        f"""INSERT INTO {item} (task_id, campaign_id, external_id, item_type, segment_id,
                system_id, candidates, original_id, has_repeat, source_meta, prefilled_spans)
            SELECT task_id, campaign_id, %(tgt)s + row_number() OVER (ORDER BY external_id),
                'BAD', segment_id, system_id,
                jsonb_set(candidates, '{{0,type}}', '"BAD"'), id, false, '{{}}'::jsonb,
                '[]'::jsonb
            FROM {item} WHERE task_id = %(task)s AND external_id %% %(every)s = 0
            ORDER BY external_id LIMIT %(bad)s""",  # noqa: S608 (table names from the models)
        f"""UPDATE {item} SET has_repeat = true
            WHERE task_id = %(task)s AND item_type = 'TGT'
              AND external_id %% %(repeat_every)s = 1
              AND external_id <= %(repeat_every)s * %(repeats)s""",  # noqa: S608 (table names from the models)
        # Every slot in one finished batch: this bench measures the reads, not the claims.
        f"""INSERT INTO {batch} (task_id, number, "group", size, state)
            VALUES (%(task)s, 0, 0, 0, 'done')""",  # noqa: S608 (table names from the models)
        f"""INSERT INTO {slot} (task_id, item_id, batch_id, position, replica, is_repeat,
                state, annotator_id, served_at)
            SELECT i.task_id, i.id, (SELECT id FROM {batch} WHERE task_id = %(task)s),
                r * %(n_items)s + i.external_id, r, false, 'done',
                (%(users)s::int[])[1 + (i.external_id * 7 + (i.external_id - 1) / %(systems)s * 13
                                        + r * %(step)s) %% %(n_users)s],
                now() - interval '10 days' + (i.external_id * 2 + r) * interval '1 second'
            FROM {item} i CROSS JOIN generate_series(0, %(per_item)s - 1) r
            WHERE i.task_id = %(task)s""",  # noqa: S608 (table names from the models)
        f"""INSERT INTO {slot} (task_id, item_id, batch_id, position, replica, is_repeat,
                state, annotator_id, served_at)
            SELECT i.task_id, i.id, (SELECT id FROM {batch} WHERE task_id = %(task)s),
                2 * %(n_items)s * %(per_item)s + i.external_id, 0, true,
                'done', (%(users)s::int[])[1 + (i.external_id * 7
                    + (i.external_id - 1) / %(systems)s * 13) %% %(n_users)s],
                now() - interval '1 day' + i.external_id * interval '1 second'
            FROM {item} i WHERE i.task_id = %(task)s AND i.has_repeat""",  # noqa: S608 (table names from the models)
        f"""INSERT INTO {judgment} (slot_id, task_id, item_id, annotator_id, task_type,
                is_repeat, score, served_at, submitted_at, duration_ms, excluded)
            SELECT s.id, s.task_id, s.item_id, s.annotator_id, %(task_type)s, s.is_repeat,
                {SCORES[task_type]},
                s.served_at,
                s.served_at + (2000 + (s.id * 37) %% 30000) * interval '1 millisecond',
                2000 + (s.id * 37) %% 30000, false
            FROM {slot} s JOIN {item} i ON i.id = s.item_id
            WHERE s.task_id = %(task)s""",  # noqa: S608 (table names from the models)
        # The loop's counters, as the loop (or an import) leaves them: results versions read
        # them (annotation/selectors/results_snapshots.py).
        f"""UPDATE {batch} SET size = (SELECT count(*) FROM {slot} WHERE task_id = %(task)s),
                judged = (SELECT count(*) FROM {judgment} WHERE task_id = %(task)s)
            WHERE task_id = %(task)s""",  # noqa: S608 (table names from the models)
        f"ANALYZE {item}, {slot}, {judgment}, {batch}",
    ]
    if task_type == "esa":
        # An error span on each judgment below 75, major below 40.
        statements.append(
            f"""INSERT INTO {ErrorSpan._meta.db_table} (judgment_id, start, "end", severity,
                    category, side, prefilled, changed)
                SELECT id, 0, 1 + id %% 6, CASE WHEN score < 40 THEN 'major' ELSE 'minor' END,
                    '', 'target', false, false
                FROM {judgment} WHERE task_id = %(task)s AND score < 75"""  # noqa: S608 (table names from the models)
        )
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement, params)
    count = Judgment.objects.filter(task=task).count()
    return {
        "campaign": campaign,
        "task": task,
        "users": [owner.id, *params["users"]],
        "judgments": count,
    }


def delete(created: dict[str, Any]) -> None:
    """Row deletions in SQL: the ORM would collect a million objects to cascade them."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from annotation.models import Item, Judgment, Slot

    task_id = created["task"].id
    with connection.cursor() as cursor:
        for model in (Judgment, Slot, Item):
            cursor.execute(f"DELETE FROM {model._meta.db_table} WHERE task_id = %s", [task_id])  # noqa: S608
    created["campaign"].delete()
    get_user_model().objects.filter(id__in=created["users"]).delete()


def peak_rss_mb(*, reset: bool = False) -> float:
    """The process's peak resident memory: since the last reset where Linux allows resetting
    it (/proc/self/clear_refs), else since the start."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) / 1024
        if reset:
            with open("/proc/self/clear_refs", "w") as clear:
                clear.write("5")
    except OSError:
        pass
    return peak


def measure(function: Callable[[], object]) -> tuple[float, float, float]:
    """(seconds and peak RSS MB untraced, peak MB of traced allocations on a second run)."""
    peak_rss_mb(reset=True)
    start = time.perf_counter()
    function()
    seconds = time.perf_counter() - start
    rss = peak_rss_mb()
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, rss, peak / 2**20


def verdict(seconds: float | None, megabytes: float) -> str:
    fast = seconds is None or seconds < SECONDS_TARGET
    return "ok" if fast and megabytes < MEGABYTES_TARGET else "OVER TARGET"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--annotators", type=int, default=500)
    parser.add_argument("--keep", action="store_true", help="keep the campaign afterwards")
    parser.add_argument(
        "--shared-task",
        metavar="PxSxNxJ",
        help="a shared task of P pairs x S systems x N segments x J judgments (30x20x1500x2)",
    )
    parser.add_argument("--pair-annotators", type=int, default=40)
    parser.add_argument(
        "--protocol", choices=sorted(SCORES), default="adequacy", help="each pair's task type"
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="the same figures for the demo (load_demo) in the bench database",
    )
    parser.add_argument("--get", help=argparse.SUPPRESS)  # a fresh web process's requests
    parser.add_argument("--user", help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=3, help=argparse.SUPPRESS)
    parser.add_argument("--compute", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.get:
        return fresh_process_requests(args.get, args.user, args.repeat, compute=args.compute)
    if args.shared_task:
        return shared_task_bench(args)
    if args.demo:
        return demo_bench(args)
    django_setup()
    from django.test import Client

    from annotation.exports import judgments_download
    from annotation.selectors.human import human_results

    start = time.perf_counter()
    created = create(args.judgments, args.systems, args.annotators)
    campaign = created["campaign"]
    print(
        f"setup: {created['judgments']:,} judgments, {args.systems} systems, "
        f"{args.annotators} annotators in {time.perf_counter() - start:.1f} s "
        f"(campaign {campaign.id})"
    )
    try:
        results: dict[str, Any] = {}
        # 127.0.0.1 is always an allowed host; the client runs the whole middleware stack.
        client = Client(HTTP_HOST="127.0.0.1", raise_request_exception=True)
        client.force_login(campaign.owner)
        url = f"/campaigns/{campaign.id}/results/human/"

        def page() -> None:
            response = client.get(url)
            if response.status_code != 200:
                raise RuntimeError(f"GET {url} answered {response.status_code}")
            results["page"] = len(response.content)

        seconds, rss, traced = measure(page)
        print(
            f"page GET {url}: {seconds:6.2f} s, peak RSS {rss:6.1f} MB (whole process), peak "
            f"traced allocations {traced:6.1f} MB, {results['page'] / 2**10:.0f} KB of HTML  "
            f"[{verdict(seconds, rss)}] "
            f"(targets < {SECONDS_TARGET:.0f} s, < {MEGABYTES_TARGET:.0f} MB)"
        )

        def dashboard() -> None:
            results["dashboard"] = human_results(campaign)

        seconds, rss, traced = measure(dashboard)
        summary = results["dashboard"].tasks[0]
        print(
            f"  of which human_results() alone: {seconds:6.2f} s, peak RSS {rss:6.1f} MB, "
            f"peak traced allocations {traced:6.1f} MB"
        )
        best = summary.likert[0].systems[0]
        print(
            f"  {len(summary.likert[0].systems)} systems ranked (best {best.name}, "
            f"z {best.score.z:.3f}), {len(summary.agreement)} agreement coefficients "
            f"({summary.agreement[0].resamples} resamples), {len(summary.quality)} annotators"
        )

        def export() -> None:
            response = judgments_download(campaign=campaign, fmt="csv")
            size = 0
            for chunk in response.streaming_content:
                size += len(chunk)
            results["bytes"] = size

        seconds, rss, traced = measure(export)
        print(
            f"CSV export: {seconds:6.2f} s, peak RSS {rss:6.1f} MB, peak traced allocations "
            f"{traced:6.1f} MB, {results['bytes'] / 2**20:.0f} MB streamed  "
            f"[{verdict(None, rss)}] (memory target < {MEGABYTES_TARGET:.0f} MB)"
        )
    finally:
        if args.keep:
            print(f"kept campaign {campaign.id}")
        else:
            start = time.perf_counter()
            delete(created)
            print(f"cleanup: {time.perf_counter() - start:.1f} s")
    return 0


def fresh_process_requests(url: str, username: str, repeat: int, *, compute: bool) -> int:
    """One web process's first request (cold) and ``repeat`` more (warm), as a JSON line;
    ``compute``: every request without stored snapshots (a large campaign's page answers
    "being computed", its API 202 "computing", and both ask the job)."""
    django_setup()
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import get_resolver

    from annotation.models import ResultsSnapshot

    # As gunicorn's preload does (README, production layout): every view imported before
    # the workers fork, so a cold request pays its connection, templates and data, not imports.
    start = time.perf_counter()
    get_resolver().url_patterns  # noqa: B018 (imports every view)
    preload = time.perf_counter() - start

    client = Client(HTTP_HOST="127.0.0.1", raise_request_exception=True)
    client.force_login(get_user_model().objects.get(username=username))
    times: list[float] = []
    stale: list[bool] = []
    pending: list[bool] = []
    for _ in range(1 + repeat):
        if compute:
            ResultsSnapshot.objects.all().delete()
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        if response.status_code not in (200, 202):
            raise RuntimeError(f"GET {url} answered {response.status_code}")
        # A page's "as of" banner, or the API's "current": false.
        stale.append(
            b'id="results-as-of"' in response.content or b'"current":false' in response.content
        )
        pending.append(response.status_code == 202 or b'-being-computed"' in response.content)
    figures = {
        "cold": times[0],
        "warm": times[1:],
        "rss": peak_rss_mb(),
        "stale": stale,
        "pending": pending,
    }
    print(json.dumps({**figures, "preload": preload}))
    return 0


def bench_database_url() -> str:
    """The bench's own database: the connection's, with ``_bench_analysis`` after its name
    (``_bench_demo`` for ``--demo``, so both can be kept)."""
    parts = urlsplit(os.environ.get("BENCH_ADMIN_DATABASE_URL") or os.environ["DATABASE_URL"])
    suffix = "_bench_demo" if "--demo" in sys.argv else "_bench_analysis"
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + suffix))


def bench_database(*, reuse: bool) -> bool:
    """Creates (or, ``reuse``, keeps) the bench database and points DATABASE_URL at it;
    whether it was there already."""
    import psycopg

    url = bench_database_url()
    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as admin:
        there = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if there and not reuse:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        if not there or not reuse:
            admin.execute(f'CREATE DATABASE "{name}"')
    os.environ["BENCH_ADMIN_DATABASE_URL"] = os.environ["DATABASE_URL"]
    os.environ["DATABASE_URL"] = url
    return bool(there and reuse)


def drop_bench_database(admin_url: str) -> None:
    import psycopg
    from django.db import connections

    connections.close_all()
    name = urlsplit(bench_database_url()).path.lstrip("/")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def shared_task_spec(text: str) -> tuple[int, int, int, int]:
    try:
        pairs, systems, segments, judgments = (int(v) for v in text.lower().split("x"))
    except ValueError:
        message = f"--shared-task wants PAIRSxSYSTEMSxSEGMENTSxJUDGMENTS, not {text!r}"
        raise SystemExit(message) from None
    return pairs, systems, segments, judgments


def create_shared_task(
    spec: tuple[int, int, int, int], annotators: int, task_type: str = "adequacy"
) -> Any:
    from django.contrib.auth import get_user_model

    from annotation.models import SharedTask, SharedTaskCampaign

    n_pairs, systems, segments, per_item = spec
    owner = get_user_model().objects.create_user(f"bench-analysis-owner-{uuid.uuid4().hex[:6]}")
    shared_task = SharedTask.objects.create(name=SHARED_TASK_NAME, owner=owner)
    for i in range(n_pairs):
        start = time.perf_counter()
        target = TARGET_LANGUAGES[i % len(TARGET_LANGUAGES)] + ("" if i < 30 else str(i // 30))
        created = create(
            0,
            systems,
            annotators,
            per_item=per_item,
            segments=segments,
            owner=owner,
            languages=("en", target),
            task_type=task_type,
        )
        SharedTaskCampaign.objects.create(shared_task=shared_task, campaign=created["campaign"])
        print(
            f"  pair {i + 1}/{n_pairs} en-{target}: {created['judgments']:,} judgments in "
            f"{time.perf_counter() - start:.1f} s",
            flush=True,
        )
    return shared_task


def in_fresh_process(
    url: str, username: str, repeat: int = 3, *, compute: bool = False
) -> dict[str, Any]:
    command = [sys.executable, __file__, "--get", url, "--user", username, "--repeat", str(repeat)]
    command += ["--compute"] if compute else []
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the web process failed on {url}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def page_line(label: str, figures: dict[str, Any]) -> str:
    warm = statistics.median(figures["warm"]) if figures["warm"] else float("nan")
    ok = warm <= WARM_TARGET and figures["cold"] <= COLD_TARGET and figures["rss"] <= RSS_TARGET_MB
    stale = " (served stale, marked 'as of')" if figures["stale"][0] else ""
    stale += " (answered 'being computed' / 202, job asked)" if figures["pending"][0] else ""
    return (
        f"{label}: cold {figures['cold']:5.2f} s, warm {warm:5.2f} s (median of "
        f"{len(figures['warm'])}), peak RSS {figures['rss']:6.1f} MB{stale}  "
        f"[{'ok' if ok else 'OVER TARGET'}]"
    )


def shared_task_bench(args: argparse.Namespace) -> int:
    spec = shared_task_spec(args.shared_task)
    admin_url = os.environ["DATABASE_URL"]
    reused = bench_database(reuse=args.keep)
    django_setup()
    from django.core.management import call_command
    from django.db import connection

    from annotation.models import Job, ResultsSnapshot, SharedTask
    from annotation.services.snapshot_compute import results_snapshots_refresh

    try:
        start = time.perf_counter()
        call_command("migrate", verbosity=0)
        print(
            f"bench database {connection.settings_dict['NAME']} migrated in "
            f"{time.perf_counter() - start:.1f} s"
        )
        shared_task = SharedTask.objects.filter(name=SHARED_TASK_NAME).first() if reused else None
        if shared_task is None:
            start = time.perf_counter()
            shared_task = create_shared_task(spec, args.pair_annotators, args.protocol)
            print(f"setup: {spec[0]} pairs in {time.perf_counter() - start:.1f} s")
        campaigns = [link.campaign for link in shared_task.pairs.order_by("id")]
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM annotation_judgment j JOIN annotation_task t "
                "ON t.id = j.task_id WHERE t.campaign_id = ANY(%s)",
                [[c.id for c in campaigns]],
            )
            total = cursor.fetchone()[0]
        owner = shared_task.owner.username
        print(f"shared task {shared_task.id}: {len(campaigns)} pairs, {total:,} judgments")

        first = campaigns[0]
        pair_url = f"/campaigns/{first.id}/results/human/"
        shared_url = f"/shared-tasks/{shared_task.id}/"
        api_url = f"/api/v1/campaigns/{first.id}/results/human"
        shared_api_url = f"/api/v1/shared-tasks/{shared_task.id}"

        # No snapshot (every request deletes them first): the pages answer "being computed",
        # the API 202 "computing", and they ask the job.
        ResultsSnapshot.objects.filter(campaign__in=campaigns).delete()
        for label, url in (
            ("shared-task page, no snapshot", shared_url),
            (f"pair results page {first.language_pair}, no snapshot", pair_url),
            (f"results API {first.language_pair}, no snapshot", api_url),
            ("shared-task API, no snapshot", shared_api_url),
        ):
            print(page_line(label, in_fresh_process(url, owner, compute=True)))
        Job.objects.filter(kind=Job.Kind.RESULTS_SNAPSHOT).delete()

        # Snapshots computed from nothing, as the refresh job does them (per pair: the
        # human results page and the shared-task pair table).
        ResultsSnapshot.objects.filter(campaign__in=campaigns).delete()
        seconds = []
        peak_rss_mb(reset=True)
        for campaign in campaigns:
            start = time.perf_counter()
            results_snapshots_refresh(target_id=campaign.id)
            seconds.append(time.perf_counter() - start)
        print(
            f"refresh job per pair (human page + pair table from nothing): median "
            f"{statistics.median(seconds):.2f} s, max {max(seconds):.2f} s, "
            f"{sum(seconds):.1f} s for all {len(seconds)}; peak RSS {peak_rss_mb():.1f} MB"
        )

        print(page_line("shared-task page", in_fresh_process(shared_url, owner)))
        for campaign in (campaigns[0], campaigns[len(campaigns) // 2], campaigns[-1]):
            url = f"/campaigns/{campaign.id}/results/human/"
            print(
                page_line(
                    f"pair results page {campaign.language_pair}", in_fresh_process(url, owner)
                )
            )
        print(page_line(f"results API {first.language_pair}", in_fresh_process(api_url, owner)))
        print(page_line("shared-task API", in_fresh_process(shared_api_url, owner)))

        # New judgments (the loop's counter moves): the pages and the API show the snapshot
        # they have, marked ("as of", "current": false), and ask the refresh job once.
        def judged_once_more() -> None:
            with connection.cursor() as cursor:
                cursor.execute(
                    "UPDATE annotation_batch SET judged = judged + 1 WHERE task_id IN "
                    "(SELECT id FROM annotation_task WHERE campaign_id = %s)",
                    [first.id],
                )

        judged_once_more()
        print(page_line("shared-task page, one pair stale", in_fresh_process(shared_url, owner)))
        print(
            page_line(
                f"pair results page {first.language_pair}, stale", in_fresh_process(pair_url, owner)
            )
        )
        asked = Job.objects.filter(kind=Job.Kind.RESULTS_SNAPSHOT, target_id=first.id)
        print(f"refresh jobs asked for the stale pair: {asked.count()} ({asked.first()})")
        print(
            page_line(
                f"results API {first.language_pair}, stale",
                in_fresh_process(api_url, owner),
            )
        )
        judged_once_more()
        print(
            page_line(
                "shared-task API, one pair stale",
                in_fresh_process(shared_api_url, owner),
            )
        )
    finally:
        if args.keep:
            print(f"kept database {urlsplit(bench_database_url()).path.lstrip('/')}")
        else:
            drop_bench_database(admin_url)
    return 0


def run_pending_jobs() -> int:
    """The jobs a worker would run (the demo's metrics), here, one after the other."""
    from annotation.models import Job
    from annotation.services.jobs import job_handler

    pending = list(Job.objects.filter(state__in=(Job.State.PENDING, Job.State.QUEUED)))
    for job in pending:
        job_handler(kind=job.kind)(target_id=job.target_id, report_progress=lambda _: None)
    Job.objects.filter(id__in=[job.id for job in pending]).update(state=Job.State.DONE)
    return len(pending)


def demo_bench(args: argparse.Namespace) -> int:
    """The demo's human results page and shared-task page, computed (no snapshot: what every
    request did before snapshots) and read from their snapshots."""
    admin_url = os.environ["DATABASE_URL"]
    bench_database(reuse=args.keep)
    django_setup()
    from django.core.management import call_command

    from annotation.management.commands import load_demo
    from annotation.models import Campaign, Judgment, SharedTask

    try:
        call_command("migrate", verbosity=0)
        start = time.perf_counter()
        call_command("load_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
        print(f"load_demo in {time.perf_counter() - start:.1f} s, {run_pending_jobs()} jobs run")
        campaign = Campaign.objects.get(name=load_demo.SIMULATED_CAMPAIGN)
        shared_task = SharedTask.objects.get(name=load_demo.SHARED_TASK)
        print(
            f"demo campaign {campaign.id}: "
            f"{Judgment.objects.filter(task__campaign=campaign).count():,} judgments"
        )
        for label, url in (
            ("demo human results page", f"/campaigns/{campaign.id}/results/human/"),
            ("demo shared-task page", f"/shared-tasks/{shared_task.id}/"),
        ):
            computed = in_fresh_process(url, load_demo.ADMIN, compute=True)
            print(page_line(f"{label}, computed on each request (no snapshot)", computed))
            print(page_line(f"{label}, snapshot stored", in_fresh_process(url, load_demo.ADMIN)))
    finally:
        if args.keep:
            print(f"kept database {urlsplit(bench_database_url()).path.lstrip('/')}")
        else:
            drop_bench_database(admin_url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
