"""Batches (issue 12, items 2, 3 and the REF bug of 8): quality control reaches the annotator
who judged the original, concurrency, quotas in whole batches, progress that never moves
backwards or overshoots, and a monolingual task that never judges the reference it shows."""

import re
import threading
from collections import Counter, defaultdict
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Batch, Item, ItemType, Judgment, Slot
from annotation.selectors.annotation import annotator_progress, item_display
from annotation.selectors.human import human_results
from annotation.services.assignment import QC_GAP, slot_claim_next
from annotation.services.imports import upload_import
from annotation.services.judgments import JudgmentError, judgment_record
from annotation.services.tasks import (
    SAME_REFERENCE_WARNING,
    task_create,
    task_launch,
    task_reference_warning,
)
from tests.conftest import answer_for

WMT21 = Path(__file__).parent / "data" / "wmt21-en-de"
SYSTEMS = ("Facebook-AI", "Online-B", "Online-W", "UEdin", "VolcTrans-GLAT")


def head(path: Path, n: int) -> list[tuple[str, bytes]]:
    lines = path.read_text(encoding="utf-8").split("\n")[:n]
    return [(path.name, "\n".join(lines).encode() + b"\n")]


@pytest.fixture
def wmt_campaign(campaign, manager):
    """250 WMT21 en-de segments, reference A and five systems: 1250 outputs to judge."""
    n = 250
    upload_import(
        campaign=campaign,
        kind="source",
        files=head(WMT21 / "newstest2021.en-de.src.en", n),
        user=manager,
    )
    upload_import(
        campaign=campaign,
        kind="reference",
        name="A",
        files=head(WMT21 / "newstest2021.en-de.ref.A.de", n),
        user=manager,
    )
    for system in SYSTEMS:
        upload_import(
            campaign=campaign,
            kind="system",
            name=system,
            files=head(WMT21 / "system-outputs" / f"newstest2021.en-de.hyp.{system}.de", n),
            user=manager,
        )
    return campaign


def api_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def likert_score(item: Item, slot_id: int) -> int:
    """A plausible careful rater: bad references low, outputs high, a little spread."""
    if item.item_type == ItemType.BAD:
        return 1 + slot_id % 2
    return 4 + slot_id % 2


@pytest.mark.django_db
def test_twelve_annotators_through_the_api_each_judge_their_own_quality_control(
    wmt_campaign, make_annotator
):
    task = task_create(
        campaign=wmt_campaign,
        task_type="adequacy",
        judgments_per_item=1,
        bad_reference_rate=0.1,
        repeat_rate=0.1,
        items_per_annotator=100,
        seed=2021,
    )
    task_launch(task_id=task.id)
    items = {item.id: item for item in Item.objects.filter(task=task)}
    annotators = [make_annotator(wmt_campaign, f"rater{i:02}") for i in range(12)]
    for user in annotators:
        api = api_for(user)
        totals = set()
        while not (shown := api.get(f"/api/v1/tasks/{task.id}/next").json())["done"]:
            totals.add(shown["total"])
            slot = Slot.objects.get(id=shown["slot"])
            response = api.post(
                "/api/v1/judgments",
                {
                    "task": task.id,
                    "slot": slot.id,
                    "score": likert_score(items[slot.item_id], slot.id),
                },
                format="json",
            )
            assert response.status_code == 201, response.content
        assert len(totals) == 1  # the batch's size, fixed from the first item to the last

    judgments = list(Judgment.objects.filter(task=task).select_related("item"))
    originals = {(j.annotator_id, j.item_id) for j in judgments if not j.is_repeat}
    bad = [j for j in judgments if j.item.item_type == ItemType.BAD]
    repeats = [j for j in judgments if j.is_repeat]
    assert len(bad) >= 12 * 10 and len(repeats) >= 12 * 9
    # Every bad reference and every repeat was judged by whoever judged its original.
    assert all((j.annotator_id, j.item.original_id) in originals for j in bad)
    assert all((j.annotator_id, j.item_id) in originals for j in repeats)

    # Every annotator finished one batch of 100 and gets a bad-reference t-test on >= 10 pairs.
    assert Batch.objects.filter(task=task, state=Batch.State.DONE).count() == 12
    adequacy = next(t for t in human_results(wmt_campaign).tasks if t.task.id == task.id)
    pairs = {row.username: row.quality.bad_reference_pairs for row in adequacy.quality}
    assert set(pairs) == {user.username for user in annotators}
    assert min(pairs.values()) >= 10
    # A careful rater scores bad references lower: the test has a p-value and passes them.
    assert {row.quality.verdict for row in adequacy.quality} == {"passed"}
    assert all(row.quality.bad_reference_p is not None for row in adequacy.quality)


@pytest.mark.django_db
def test_quality_control_is_spread_out_inside_each_batch(wmt_campaign):
    task = task_create(
        campaign=wmt_campaign,
        task_type="adequacy",
        bad_reference_rate=0.1,
        repeat_rate=0.1,
        seed=5,
    )
    task_launch(task_id=task.id)
    checked = 0
    for batch in Batch.objects.filter(task=task):
        slots = list(batch.slots.select_related("item").order_by("position"))
        assert [s.position for s in slots] == list(range(batch.size))
        where = {(s.item_id, s.is_repeat): s.position for s in slots}
        for slot in slots:
            if slot.is_repeat:
                original = where[(slot.item_id, False)]
            elif slot.item.item_type == ItemType.BAD:
                original = where[(slot.item.original_id, False)]  # in the same batch
            else:
                continue
            assert slot.position - original >= QC_GAP
            checked += 1
    assert checked > 200


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_annotators_never_share_a_batch(
    launched, loaded_campaign, make_annotator
):
    k = 2
    task = launched("adequacy", judgments_per_item=k, batch_size=3, repeat_rate=0.3)
    annotators = [make_annotator(loaded_campaign, f"c{i}") for i in range(20)]
    errors = []
    barrier = threading.Barrier(len(annotators))

    def work(ann):
        try:
            barrier.wait()
            while (slot := slot_claim_next(task=task, annotator_id=ann.id)) is not None:
                answer = answer_for(task.task_type, len(slot.item.candidates))
                assert judgment_record(
                    task_id=task.id, slot_id=slot.id, annotator_id=ann.id, answer=answer
                ).created
        except Exception as error:  # reported below; a thread cannot fail the test itself
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(ann,)) for ann in annotators]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    # Nothing lost or duplicated: one judgment per slot, every batch done.
    assert Judgment.objects.filter(task=task).count() == Slot.objects.filter(task=task).count()
    assert not Slot.objects.filter(task=task).exclude(state=Slot.State.DONE).exists()
    assert not Batch.objects.filter(task=task).exclude(state=Batch.State.DONE).exists()
    # Never shared: each batch's judgments are one annotator's, and the batch is theirs.
    per_batch = defaultdict(set)
    for batch_id, annotator_id in Judgment.objects.filter(task=task).values_list(
        "slot__batch_id", "annotator_id"
    ):
        per_batch[batch_id].add(annotator_id)
    holders = dict(Batch.objects.filter(task=task).values_list("id", "annotator_id"))
    assert all(people == {holders[batch]} for batch, people in per_batch.items())
    # k replicas of an item went to k different annotators, and nobody got a group twice.
    groups = Counter(Batch.objects.filter(task=task).values_list("annotator_id", "group"))
    assert set(groups.values()) == {1}
    originals = Judgment.objects.filter(task=task, is_repeat=False)
    assert originals.values("annotator", "item").distinct().count() == originals.count()
    assert originals.count() == k * task.items.count()


@pytest.mark.django_db(transaction=True)
def test_a_double_click_in_two_tabs_takes_one_batch(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", batch_size=4)
    user = make_annotator(loaded_campaign, "tabs")
    barrier = threading.Barrier(2)
    shown, errors = [], []

    def click():
        try:
            api = api_for(user)
            barrier.wait()
            shown.append(api.get(f"/api/v1/tasks/{task.id}/next").json())
        except Exception as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    tabs = [threading.Thread(target=click) for _ in range(2)]
    for tab in tabs:
        tab.start()
    for tab in tabs:
        tab.join()
    assert errors == []
    assert shown[0]["slot"] == shown[1]["slot"] and shown[0]["slot"] is not None
    assert Batch.objects.filter(task=task, annotator=user).count() == 1
    assert Slot.objects.filter(task=task, annotator=user).count() == 4


@pytest.mark.django_db
def test_small_campaign_partial_batch_and_replicas_never_twice(
    launched, loaded_campaign, make_annotator
):
    # 36 outputs in batches of 10: 10, 10, 10 and a last one of 6, twice (k = 2).
    task = launched("fluency", judgments_per_item=2, batch_size=10)
    sizes = list(Batch.objects.filter(task=task).order_by("number").values_list("size", flat=True))
    assert sorted(sizes) == [6, 6, 10, 10, 10, 10, 10, 10]
    first, second, third = (make_annotator(loaded_campaign, f"s{i}") for i in range(3))
    for user in (first, second):
        seen = []
        while (slot := slot_claim_next(task=task, annotator_id=user.id)) is not None:
            seen.append(slot.item_id)
            judgment_record(
                task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer={"score": 3}
            )
        assert len(seen) == len(set(seen)) == 36  # every item once, none of its replicas
    assert slot_claim_next(task=task, annotator_id=third.id) is None
    assert Judgment.objects.filter(task=task).count() == 72


@pytest.mark.django_db
def test_quota_is_rounded_up_to_whole_batches(launched, loaded_campaign, make_annotator):
    task = launched("fluency", batch_size=10, items_per_annotator=15)
    user = make_annotator(loaded_campaign, "quota")
    judged = 0
    while (slot := slot_claim_next(task=task, annotator_id=user.id)) is not None:
        judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer={"score": 3})
        judged += 1
    assert judged == 20  # two batches of 10
    progress = annotator_progress(task=task, annotator_id=user.id)
    assert (progress.judged, progress.total, progress.batches, progress.quota) == (10, 10, 2, 2)
    assert progress.finished


@pytest.mark.django_db
def test_annotator_progress_is_fixed_from_the_start_quality_control_included(
    launched, loaded_campaign, make_annotator, client
):
    # The reported bug: items per annotator 3 went 0/3 -> 2/4 -> 3/5 as repeats appeared.
    # Repeats below 1 (the most a task may have): round(0.75 * 4) = 3 of the 4 items return.
    task = launched("adequacy", items_per_annotator=4, repeat_rate=0.75)
    user = make_annotator(loaded_campaign, "bar")
    api = api_for(user)
    client.force_login(user)
    seen = []
    while not (shown := api.get(f"/api/v1/tasks/{task.id}/next").json())["done"]:
        seen.append((shown["judged"], shown["total"]))
        page = client.get(f"/annotate/{task.id}/").content.decode()
        assert f"{shown['judged']} / {shown['total']}" in page  # the annotate page agrees
        listing = client.get("/annotate/").content.decode()
        assert f"{shown['judged']} / {shown['total']}" in listing
        api.post(
            "/api/v1/judgments", {"task": task.id, "slot": shown["slot"], "score": 4}, format="json"
        )
    assert seen == [(n, 7) for n in range(7)]  # 4 items and 3 repeats, from the start
    listing = client.get("/annotate/").content.decode()
    assert "7 / 7" in listing and "Done" in listing


def task_row_counts(client, campaign) -> tuple[int, int]:
    page = client.get(f"/campaigns/{campaign.id}/").content.decode()
    done, total = re.search(r"(\d+) / (\d+) judgments", page).groups()
    return int(done), int(total)


@pytest.mark.django_db
def test_campaign_page_totals_count_repeats_and_never_change(
    launched, loaded_campaign, make_annotator, client, manager
):
    # The reported bug: "1893 / 1725 judgments", repeats done but not in the total, and a
    # total that grew while people worked.
    task = launched("adequacy", repeat_rate=0.5, bad_reference_rate=0.2, judgments_per_item=2)
    client.force_login(manager)
    done, total = task_row_counts(client, loaded_campaign)
    assert done == 0 and total == Slot.objects.filter(task=task).count()
    repeats = Slot.objects.filter(task=task, is_repeat=True).count()
    assert repeats > 0 and total == 2 * task.items.count() + repeats
    users = [make_annotator(loaded_campaign, f"p{i}") for i in range(3)]
    seen = [(done, total)]
    active = list(users)
    while active:
        for user in list(active):
            slot = slot_claim_next(task=task, annotator_id=user.id)
            if slot is None:
                active.remove(user)
                continue
            judgment_record(
                task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer={"score": 3}
            )
            if Judgment.objects.count() % 10 == 0:
                seen.append(task_row_counts(client, loaded_campaign))
    seen.append(task_row_counts(client, loaded_campaign))
    assert len(seen) > 5
    assert {t for _, t in seen} == {total}  # the total never changes
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)  # never backwards
    assert seen[-1] == (total, total) == (Judgment.objects.filter(task=task).count(), total)
    progress = human_results(loaded_campaign).progress
    assert progress.judgments == progress.planned == total


@pytest.mark.django_db
def test_an_abandoned_batch_returns_to_the_pool(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", lease_seconds=60, batch_size=36, repeat_rate=0.2)
    first, second = make_annotator(loaded_campaign, "gone"), make_annotator(loaded_campaign, "next")
    for _ in range(2):
        slot = slot_claim_next(task=task, annotator_id=first.id)
        judgment_record(
            task_id=task.id, slot_id=slot.id, annotator_id=first.id, answer={"score": 2}
        )
    held = slot_claim_next(task=task, annotator_id=first.id)
    assert slot_claim_next(task=task, annotator_id=second.id) is None  # held, not shared
    later = timezone.now() + timedelta(seconds=61)
    taken = slot_claim_next(task=task, annotator_id=second.id, now=later)
    assert taken.id == held.id and taken.batch_id == held.batch_id
    with pytest.raises(JudgmentError, match="no longer assigned to you"):
        judgment_record(
            task_id=task.id, slot_id=held.id, annotator_id=first.id, answer={"score": 2}
        )
    size = Batch.objects.get(id=held.batch_id).size
    assert tuple(annotator_progress(task=task, annotator_id=second.id))[:2] == (2, size)
    while (slot := slot_claim_next(task=task, annotator_id=second.id, now=later)) is not None:
        judgment_record(
            task_id=task.id, slot_id=slot.id, annotator_id=second.id, answer={"score": 4}, now=later
        )
    assert Judgment.objects.filter(task=task).count() == size  # nothing lost, nothing twice
    assert Batch.objects.get(id=held.batch_id).state == Batch.State.DONE


@pytest.mark.django_db
def test_an_unshown_slot_of_ones_batch_cannot_be_answered(
    launched, loaded_campaign, make_annotator
):
    task = launched("adequacy")
    user = make_annotator(loaded_campaign, "ahead")
    shown = slot_claim_next(task=task, annotator_id=user.id)
    ahead = Slot.objects.filter(batch_id=shown.batch_id).exclude(id=shown.id).first()
    with pytest.raises(JudgmentError, match="not shown to you yet"):
        judgment_record(
            task_id=task.id, slot_id=ahead.id, annotator_id=user.id, answer={"score": 3}
        )


FROZEN_SQL = Path(__file__).parents[1] / "annotation" / "migrations" / "sql"


@pytest.mark.django_db
def test_the_installed_loop_functions_are_the_newest_migration_file():
    newest = sorted(FROZEN_SQL.glob("*_assignment.sql"))[-1].read_text(encoding="utf-8")
    names = re.findall(r"CREATE OR REPLACE FUNCTION (\w+)", newest)
    assert "evalsite_judge_and_claim" in names and "evalsite_skip" in names
    for name, body in zip(names, newest.split("$$")[1::2], strict=True):
        with connection.cursor() as cursor:
            cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", [name])
            installed = [row[0] for row in cursor.fetchall()]
        assert installed == [body], name


def test_each_migration_installs_the_sql_of_its_time():
    """Replaying the migrations installs each version in turn: a migration reads its own
    frozen copy, never the file of today (0012 predates the judgment function, 0023 the skip
    function and the answer columns of every task type)."""
    import importlib

    at_0012 = importlib.import_module("annotation.migrations.0012_task_batches")
    at_0023 = importlib.import_module("annotation.migrations.0023_judgment_submit_and_claim")
    sql_0012 = at_0012.CLAIM_SQL.read_text(encoding="utf-8")
    sql_0023 = at_0023.ASSIGNMENT_SQL.read_text(encoding="utf-8")
    assert "evalsite_claim_slot" in sql_0012 and "evalsite_judge_and_claim" not in sql_0012
    assert "p_quota integer" in sql_0012  # the claim took the quota then
    assert "evalsite_judge_and_claim" in sql_0023 and "evalsite_skip" not in sql_0023
    assert at_0012.CLAIM_SQL.parent == at_0023.ASSIGNMENT_SQL.parent == FROZEN_SQL


@pytest.mark.django_db
def test_appraise_batches_stay_whole_and_in_order(manager):
    from django.core.management import call_command

    from annotation.models import Campaign

    folder = Path(__file__).parent / "data" / "appraise-examples" / "Direct"
    call_command(
        "import_appraise",
        str(folder / "manifest.json"),
        str(folder / "batches.json"),
        "--owner",
        "manager",
    )
    task = Campaign.objects.latest("id").tasks.get()
    for batch in Batch.objects.filter(task=task):
        slots = list(batch.slots.select_related("item").order_by("position"))
        assert len({s.item.source_meta["batch"] for s in slots}) == 1
        ids = [s.item.external_id for s in slots]
        assert ids == sorted(ids)  # the Appraise order, as imported


# Item 8: a monolingual task shows the reference; its REF items must judge another one.


@pytest.mark.django_db
def test_monolingual_ref_items_judge_another_reference(loaded_campaign, manager):
    upload_import(
        campaign=loaded_campaign,
        kind="reference",
        name="C",
        files=head(WMT21 / "newstest2021.en-de.ref.C.de", 12),
        user=manager,
    )
    task = task_create(
        campaign=loaded_campaign,
        task_type="adequacy",
        monolingual=True,
        reference_rate=0.9,  # the most a task may have: below 1
        seed=3,
    )
    assert task_reference_warning(task=task) is None
    task_launch(task_id=task.id)
    refs = list(Slot.objects.filter(task=task, item__item_type=ItemType.REF).select_related("item"))
    assert 6 <= len(refs) < 12  # about 0.9 of the 12 segments
    c_lines = (WMT21 / "newstest2021.en-de.ref.C.de").read_text(encoding="utf-8").split("\n")
    for slot in refs:
        slot.task = task
        shown = item_display(slot)
        candidate = shown["candidates"][0]["text"]
        assert candidate != shown["reference"]
        assert candidate == c_lines[slot.item.segment.index]


@pytest.mark.django_db
def test_monolingual_with_one_reference_plans_no_ref_items_and_says_so(
    loaded_campaign, manager, client
):
    client.force_login(manager)
    form = {
        "task_type": "adequacy",
        "scale": "likert5",
        "judgments_per_item": 1,
        "ranking_size": 5,
        "monolingual": "on",
        "context_size": 0,
        "items_per_annotator": 0,
        "batch_size": 100,
        "repeat_rate": 0,
        "bad_reference_rate": 0,
        "reference_rate": 0.5,
    }
    response = client.post(f"/campaigns/{loaded_campaign.id}/tasks/", form, follow=True)
    assert SAME_REFERENCE_WARNING in response.content.decode()
    task = loaded_campaign.tasks.get()
    launch = client.post(
        f"/campaigns/{loaded_campaign.id}/tasks/{task.id}/launch/", follow=True
    ).content.decode()
    assert "Launched with 36 items" in launch and SAME_REFERENCE_WARNING in launch
    assert not Item.objects.filter(task=task, item_type=ItemType.REF).exists()
    assert Item.objects.filter(task=task, item_type=ItemType.TGT).count() == 36
    # Not monolingual: the same reference may be judged, and nothing is said.
    other = task_create(
        seed=12345, campaign=loaded_campaign, task_type="fluency", reference_rate=0.5
    )
    assert task_reference_warning(task=other) is None


def test_a_small_group_keeps_companions_apart_when_it_can():
    import random

    from annotation.services.assignment import Repeat, group_order

    first, second, third = (Item(id=i, item_type=ItemType.TGT) for i in (1, 2, 3))
    units = [[first, Repeat(first)], [second], [third]]
    for seed in range(20):
        order = group_order(units=units, rng=random.Random(seed))
        where = {
            ("repeat" if isinstance(e, Repeat) else "item", getattr(e, "item", e).id): i
            for i, e in enumerate(order)
        }
        # Four places: the repeat can be (and is) two or more after its original.
        assert where[("repeat", 1)] - where[("item", 1)] >= 2


@pytest.mark.django_db(transaction=True)
def test_a_late_answer_racing_a_takeover_is_kept_or_refused_never_both(
    launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", batch_size=1, lease_seconds=60)
    late, taker = make_annotator(loaded_campaign, "late"), make_annotator(loaded_campaign, "taker")
    batches = list(Batch.objects.filter(task=task).order_by("number")[:8])
    later = timezone.now() + timedelta(seconds=61)
    outcomes = []
    for batch in batches:
        # Only this batch is in play: the late annotator holds it, its lease runs out, and
        # they answer just as someone else claims work.
        Batch.objects.filter(task=task, state=Batch.State.OPEN).exclude(id=batch.id).update(
            state=Batch.State.DONE
        )
        held = slot_claim_next(task=task, annotator_id=late.id)
        assert held.batch_id == batch.id
        barrier = threading.Barrier(2)
        results = {}

        def answer(held=held, barrier=barrier, results=results):
            try:
                barrier.wait()
                judgment_record(
                    task_id=task.id, slot_id=held.id, annotator_id=late.id, answer={"score": 3}
                )
                results["answer"] = "recorded"
            except JudgmentError as error:
                results["answer"] = error.code
            except Exception as error:  # a deadlock or any other failure: reported below
                results["answer"] = repr(error)
            finally:
                connection.close()

        def claim(barrier=barrier, results=results):
            try:
                barrier.wait()
                slot = slot_claim_next(task=task, annotator_id=taker.id, now=later)
                results["claim"] = slot.id if slot else None
            except Exception as error:  # reported below
                results["claim"] = repr(error)
            finally:
                connection.close()

        threads = [threading.Thread(target=answer), threading.Thread(target=claim)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        judged = list(
            Judgment.objects.filter(slot_id=held.id).values_list("annotator_id", flat=True)
        )
        if results["answer"] == "recorded":
            assert results["claim"] is None and judged == [late.id]
        else:
            assert results["answer"] == "conflict" and results["claim"] == held.id, results
            assert judged == []
            # The taker finishes it: nothing is lost.
            judgment_record(
                task_id=task.id, slot_id=held.id, annotator_id=taker.id, answer={"score": 4}
            )
        outcomes.append(results["answer"])
        Batch.objects.filter(task=task, state=Batch.State.DONE, slots__state="open").update(
            state=Batch.State.OPEN
        )
    assert len(outcomes) == len(batches)


def batch_figures_agree_with_slots(task) -> None:
    """The loop reads a batch's figures (migration 0026), never its slots: they must say
    what the slots say, and no slot left may lie before the next position."""
    from annotation.models import Skip

    for batch in Batch.objects.filter(task=task):
        skipped = Skip.objects.filter(slot__batch=batch).count()
        judged = Judgment.objects.filter(slot__batch=batch).count()
        left = batch.slots.exclude(state=Slot.State.DONE)
        assert (batch.judged, batch.skipped) == (judged, skipped), batch.number
        assert batch.size == batch.slots.count(), batch.number
        assert not left.filter(position__lt=batch.next_position).exists(), batch.number
        assert (batch.state == Batch.State.DONE) == (not left.exists()), batch.number


@pytest.mark.django_db
def test_a_batch_taken_over_counts_for_its_earlier_holder_only_if_they_judged_in_it(
    launched, loaded_campaign, make_annotator
):
    from annotation.services.judgments import skip_record

    # Quota: one batch each. One who judged part of a batch, then lost it, had it: no other
    # batch for them; one who lost a batch before judging any of it never had it.
    task = launched(
        "adequacy", batch_size=6, items_per_annotator=6, lease_seconds=60, repeat_rate=0.5
    )
    worked, idle = (
        make_annotator(loaded_campaign, "worked"),
        make_annotator(loaded_campaign, "idle"),
    )
    taker, other = (
        make_annotator(loaded_campaign, "taker"),
        make_annotator(loaded_campaign, "other"),
    )
    slot = slot_claim_next(task=task, annotator_id=worked.id)
    judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=worked.id, answer={"score": 2})
    slot = slot_claim_next(task=task, annotator_id=worked.id)
    skip_record(task_id=task.id, slot_id=slot.id, annotator_id=worked.id, reason="garbled")
    slot_claim_next(task=task, annotator_id=idle.id)
    # Nothing else open: the next claims take their batches over once the leases ran out.
    others = Batch.objects.filter(task=task, state=Batch.State.OPEN)
    set_aside = list(others.values_list("id", flat=True))
    others.update(state=Batch.State.DONE)
    held = set(Batch.objects.filter(annotator__in=[worked, idle]).values_list("id", flat=True))
    later = timezone.now() + timedelta(seconds=61)
    taken = {
        slot_claim_next(task=task, annotator_id=user.id, now=later).batch_id
        for user in (taker, other)
    }
    assert taken == held and len(taken) == 2
    assert set(Batch.objects.filter(taken_over=True).values_list("id", flat=True)) == held
    Batch.objects.filter(id__in=set_aside).update(state=Batch.State.OPEN)
    assert slot_claim_next(task=task, annotator_id=worked.id, now=later) is None
    again = slot_claim_next(task=task, annotator_id=idle.id, now=later)
    assert again is not None and again.batch_id not in taken
    for user in (taker, other, idle):
        while (slot := slot_claim_next(task=task, annotator_id=user.id, now=later)) is not None:
            judgment_record(
                task_id=task.id,
                slot_id=slot.id,
                annotator_id=user.id,
                answer={"score": 4},
                now=later,
            )
        assert annotator_progress(task=task, annotator_id=user.id).batches == 1
    batch_figures_agree_with_slots(task)
