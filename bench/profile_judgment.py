"""Where the milliseconds of one judgment go: the API annotator's requests, in process.

Runs ``--judgments`` judgments through Django's test client (the whole middleware stack, no
HTTP server) with an API token, first plainly timed, then with timers around the functions
of each stage, and prints the milliseconds per judgment by stage. A judgment is one
``POST /api/v1/judgments`` whose answer carries the next item (``--two-requests``: the old
loop, ``GET next`` then the POST). Stage time is exclusive (a query inside authentication
counts as a query), so the rows add up to the total.

    DATABASE_URL=... .venv/bin/python bench/profile_judgment.py [--judgments 300]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time

from _common import annotation_campaign, api_tokens, django_setup

# Stage → (module, class, attribute) whose time counts as that stage. Time is exclusive: a
# stage entered inside another (a query inside authentication) pauses the outer one, so the
# stages add up to the total and "the rest" is what no stage claims.
STAGES: list[tuple[str, list[tuple[str, str, str]]]] = [
    (
        "queries (SQL round trips, psycopg)",
        [
            ("django.db.backends.utils", "CursorWrapper", "execute"),
            ("django.db.backends.utils", "CursorWrapper", "executemany"),
        ],
    ),
    (
        "ORM query compilation",
        [("django.db.models.sql.compiler", "SQLCompiler", "as_sql")],
    ),
    ("template rendering", [("django.template.base", "Template", "render")]),
    (
        "auth (token or session user)",
        [
            ("rest_framework.authentication", "TokenAuthentication", "authenticate"),
            ("rest_framework.authentication", "SessionAuthentication", "authenticate"),
            ("django.contrib.auth", "", "get_user"),
        ],
    ),
    (
        "DRF negotiation, parsing, serializers, rendering",
        [
            ("rest_framework.views", "APIView", "initial"),
            ("rest_framework.views", "APIView", "finalize_response"),
            ("rest_framework.request", "Request", "_load_data_and_files"),
            ("rest_framework.serializers", "Serializer", "is_valid"),
            ("rest_framework.serializers", "Serializer", "data"),
            ("rest_framework.response", "Response", "rendered_content"),
        ],
    ),
    ("JSON (encode/decode)", [("json", "", "dumps"), ("json", "", "loads")]),
    (
        "Django: middleware, URL resolving, views, services' Python",
        [("django.core.handlers.base", "BaseHandler", "get_response")],
    ),
    (
        "the test client's own work (no server in production)",
        [("django.test.client", "Client", "request")],
    ),
]


class Stages:
    """Exclusive time per stage, from wrappers pushed and popped on a stack."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {stage: 0.0 for stage, _ in STAGES}
        self.stack: list[list] = []  # [stage, started]
        self.on = False

    def enter(self, stage: str) -> None:
        now = time.perf_counter()
        if self.stack:
            top = self.stack[-1]
            self.spent[top[0]] += now - top[1]
        self.stack.append([stage, now])

    def leave(self) -> None:
        now = time.perf_counter()
        stage, started = self.stack.pop()
        self.spent[stage] += now - started
        if self.stack:
            self.stack[-1][1] = now

    def wrap(self, stage: str, function):
        @functools.wraps(function)
        def timed(*args, **kwargs):
            if not self.on:
                return function(*args, **kwargs)
            self.enter(stage)
            try:
                return function(*args, **kwargs)
            finally:
                self.leave()

        return timed

    def install(self) -> None:
        import importlib

        for stage, targets in STAGES:
            for module_name, class_name, attribute in targets:
                module = importlib.import_module(module_name)
                owner = getattr(module, class_name) if class_name else module
                current = owner.__dict__.get(attribute) if class_name else getattr(owner, attribute)
                if isinstance(current, property):
                    wrapped = property(self.wrap(stage, current.fget), current.fset)
                    setattr(owner, attribute, wrapped)
                elif current is not None:
                    setattr(owner, attribute, self.wrap(stage, current))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--judgments", type=int, default=300)
    parser.add_argument(
        "--two-requests", action="store_true", help="GET next, then POST (the old loop)"
    )
    parser.add_argument("--show-sql", action="store_true", help="print one judgment's SQL")
    args = parser.parse_args()
    django_setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client

    settings.ALLOWED_HOSTS = ["*"]
    task_id, (user_id,) = annotation_campaign(
        prefix="bench-profile", annotators=1, judgments_per_item=1, corpus="wmt21"
    )
    (token,) = api_tokens([user_id])
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    state: dict = {"item": None}

    def next_item() -> dict:
        return client.get(f"/api/v1/tasks/{task_id}/next").json()

    def one() -> None:
        item = state["item"]
        if item is None or args.two_requests:
            item = next_item()
        answer = {"task": task_id, "slot": item["slot"], "score": 1 + item["slot"] % 5}
        response = client.post("/api/v1/judgments", json.dumps(answer), "application/json")
        assert response.status_code == 201, response.content
        state["item"] = None if args.two_requests else response.json().get("next")

    for _ in range(20):  # warm up: imports, URL resolver, the first connection
        one()
    # Counted with an execute wrapper: Django empties connection.queries at each request.
    statements: list[str] = []
    with connection.execute_wrapper(
        lambda run, sql, *rest: statements.append(sql) or run(sql, *rest)
    ):
        one()
    queries = len(statements)
    if args.show_sql:
        print("\n".join(f"{n}. {sql[:300]}" for n, sql in enumerate(statements, 1)))
    started, cpu = time.perf_counter(), time.process_time()
    for _ in range(args.judgments):
        one()
    wall_ms = 1000 * (time.perf_counter() - started) / args.judgments
    cpu_ms = 1000 * (time.process_time() - cpu) / args.judgments
    stages = Stages()
    stages.install()
    stages.on = True
    started = time.perf_counter()
    for _ in range(args.judgments):
        one()
    timed_ms = 1000 * (time.perf_counter() - started) / args.judgments
    stages.on = False
    carried = not args.two_requests and state["item"] is not None
    shape = "one POST (its answer carries next)" if carried else "GET next + POST"
    print(f"{args.judgments} judgments, {shape}, {queries} SQL statements per judgment")
    print(f"wall time per judgment: {wall_ms:.2f} ms ({timed_ms:.2f} ms with the stage timers)")
    print(
        f"CPU of this process (Django; PostgreSQL not included) per judgment: {cpu_ms:.2f} ms "
        "(less sensitive to a busy machine than wall time)"
    )
    print(f"| {'stage':<62} | ms/judgment | share |")
    print(f"|{'-' * 64}|-------------|-------|")
    rows = {k: 1000 * v / args.judgments for k, v in stages.spent.items()}
    rows["the benchmark loop itself"] = timed_ms - sum(rows.values())
    for stage, ms in rows.items():
        print(f"| {stage:<62} | {ms:11.2f} | {100 * ms / timed_ms:4.0f}% |")
    print(f"| {'total':<62} | {timed_ms:11.2f} |  100% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
