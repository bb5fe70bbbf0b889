"""N simulated annotators over HTTP against a running stack (`make up`).

Each annotator loops GET /api/v1/tasks/<id>/next → POST /api/v1/judgments with its own API
token. The script prints judgments per second and the p50/p95/p99 latency of both requests,
then checks that the database holds exactly the judgments the server acknowledged.
Target on a 2-core machine with everything on it: at least 200 judgments/s, p99 < 100 ms.

    .venv/bin/python bench/load.py [--annotators 50] [--seconds 30] [--url http://127.0.0.1:8000]

Setup (a campaign from the demo data with a launched adequacy task, and the annotator
accounts) goes straight through the services, as a manager's script would.
"""

from __future__ import annotations

import argparse
import sys
import time

from _common import ApiAnnotator, annotation_campaign, api_tokens, django_setup, spread


def stored_judgments(task_id: int) -> set[int]:
    from annotation.models import Judgment

    return set(Judgment.objects.filter(task_id=task_id).values_list("id", flat=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--judgments-per-item", type=int, default=50)
    args = parser.parse_args()

    django_setup()
    task_id, user_ids = annotation_campaign(
        prefix="bench-load", annotators=args.annotators, judgments_per_item=args.judgments_per_item
    )
    tokens = api_tokens(user_ids)
    deadline = time.perf_counter() + args.seconds
    threads = [ApiAnnotator(args.url, token, task_id, deadline) for token in tokens]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started

    acknowledged = [judgment for thread in threads for *_, judgment in thread.acknowledged]
    latencies = [sample[2] for thread in threads for sample in thread.client.samples]
    errors = [f"{kind} {detail}" for thread in threads for _, kind, detail in thread.errors]
    stored = stored_judgments(task_id)
    print(
        f"{args.annotators} annotators for {elapsed:.1f} s: {len(acknowledged)} judgments, "
        f"{len(acknowledged) / elapsed:.1f} judgments/s (target >= 200)"
    )
    if latencies:
        print(f"latency per request (next or submit): {spread(latencies)} (target p99 < 100 ms)")
    print(f"errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    exact = stored == set(acknowledged) and len(acknowledged) == len(set(acknowledged))
    print(
        f"database holds exactly the acknowledged judgments: {'yes' if exact else 'NO'} "
        f"({len(stored)} stored, {len(set(acknowledged))} acknowledged)"
    )
    return 0 if exact and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
