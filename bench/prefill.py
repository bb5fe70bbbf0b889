"""An evalsite campaign that already holds N judgments, for the "at scale" runs of
side_by_side.py (each tool holding 100,000 judgments of the campaign before timing).

    .venv/bin/python bench/prefill.py --judgments 100000 [--room 60000] [--json]

The campaign is the one load.py makes (WMT21 en-de, five systems, an adequacy task), with
replicas enough for the N judgments and ``--room`` more (what the timed runs will judge).
The N judgments go through the stack's own services in this process, as the API's views
call them: for each prefill annotator (one per 100 judgments) ``slot_claim_next``, then
``judgment_record_and_claim_next`` once per judgment, i.e. one ``evalsite_judge_and_claim``
statement each; no HTTP, no hand-written rows (``--judgments 0``: the campaign alone, for
side_by_side.py's ``--flatness --one-campaign``). Prints the task id; ``load.py --task ID``
then judges in that task with fresh annotators. On a 2-core machine shared with other work
it records about 120 judgments/s (100,000 in about 14 minutes). After the prefill,
VACUUM (ANALYZE) of the tables it wrote, as a database that has been up a while has had its
autovacuum.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from _common import annotation_campaign, answer_for, corpus_items, django_setup

CORPUS = "wmt21"
PER_ANNOTATOR = 100  # an annotator's batch, as in load.py
RELEASE_EVERY = 50  # annotators between two releases of the batches they were left holding
TABLES = ("annotation_slot", "annotation_batch", "annotation_judgment")


def vacuum_analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"VACUUM (ANALYZE) {table}")


def prefilled_task(judgments: int, room: int) -> tuple[int, int]:
    """A launched adequacy task holding ``judgments`` judgments; returns (task id, stored)."""
    from django.db import transaction

    from annotation.models import Judgment, Task
    from annotation.services.assignment import batches_release, slot_claim_next
    from annotation.services.judgments import judgment_record_and_claim_next

    started = time.perf_counter()
    annotators = max(1, -(-judgments // PER_ANNOTATOR))
    # Room as well for the batches leased between two releases.
    held = RELEASE_EVERY * PER_ANNOTATOR
    replicas = -(-(judgments + room + held) // corpus_items(CORPUS)) + 1
    task_id, user_ids = annotation_campaign(
        prefix="bench-scale", annotators=annotators, judgments_per_item=replicas, corpus=CORPUS
    )
    task = Task.objects.get(id=task_id)
    left = judgments
    made = time.perf_counter()
    for number, user_id in enumerate(user_ids if judgments else [], start=1):
        # One commit per annotator, not per judgment: the services nest in it as they do in
        # a view's transaction.
        with transaction.atomic():
            slot = slot_claim_next(task=task, annotator_id=user_id)
            done = 0
            while slot is not None and left and done < PER_ANNOTATOR:
                _, slot, _ = judgment_record_and_claim_next(
                    task=task,
                    slot_id=slot.id,
                    annotator_id=user_id,
                    answer=answer_for(task_id, {"slot": slot.id}),
                )
                done += 1
                left -= 1
        if number % RELEASE_EVERY == 0 or not left:
            # The claim after an annotator's last judgment leased them the next batch;
            # given back, its items go to the next annotators (as a paused task's would).
            batches_release(task=task)
        if not left:
            break
    print(
        f"campaign made in {made - started:.0f} s, {judgments} judgments recorded in "
        f"{time.perf_counter() - made:.0f} s",
        flush=True,
    )
    return task_id, Judgment.objects.filter(task_id=task_id).count()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--judgments", type=int, default=100_000)
    parser.add_argument(
        "--room", type=int, default=60_000, help="judgments the timed runs may add (replicas)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON line at the end")
    args = parser.parse_args()
    if args.judgments < 0 or args.room < 0:
        parser.error("--judgments and --room must be 0 or more")
    django_setup()
    started = time.perf_counter()
    task_id, stored = prefilled_task(args.judgments, args.room)
    vacuum_analyze()
    elapsed = time.perf_counter() - started
    print(
        f"task {task_id} holds {stored} judgments ({args.judgments} asked), made in {elapsed:.0f} s"
    )
    if args.json:
        print(json.dumps({"task": task_id, "judgments": stored, "seconds": round(elapsed, 1)}))
    return 0 if stored == args.judgments else 1


if __name__ == "__main__":
    sys.exit(main())
