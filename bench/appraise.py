"""Appraise (AppraiseDev/Appraise) beside evalsite: its campaign, its server and a load driver.

Appraise is never copied into this project: it lives in its own directory (default
/work/appraise, a checkout of the commit the comparison names) with its own virtualenv, and
is driven only through its own management commands and its HTTP pages.

Bring it up (once; each step is printed as it runs):

    git clone https://github.com/AppraiseDev/Appraise /work/appraise
    git -C /work/appraise checkout 612e4b09
    python3.11 -m venv /work/appraise/.venv          # Appraise pins Django 4.1: Python 3.11
    /work/appraise/.venv/bin/pip install -r /work/appraise/requirements.txt gunicorn
    .venv/bin/python bench/appraise.py setup         # database, superuser, campaign, accounts
    .venv/bin/python bench/appraise.py serve         # gunicorn, 4 sync workers, 127.0.0.1:8100

Measure (closed loop, zero think time; each run takes fresh annotator accounts, because an
Appraise page costs more the more items its annotator has done):

    .venv/bin/python bench/appraise.py load --annotators 50 --seconds 30 --runs 3 [--json]
    .venv/bin/python bench/appraise.py stop

``setup`` makes the PostgreSQL database ``appraise`` (role evalsite; ``--reset`` drops it
first), a settings module beside Appraise's own that points it at that database (Appraise's
settings require SSL to PostgreSQL, which the local server does not offer), runs
``migrate``, ``collectstatic`` and ``createsuperuser``, writes a direct-assessment manifest
and batches (100 items per batch, one batch per account, from the WMT21 en-de test set in
tests/data) and runs Appraise's ``StartNewCampaign``, which creates the accounts and writes
their single-sign-on credentials to a CSV that ``load`` reads.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlencode, urlsplit

from _common import (
    ROOT,
    Client,
    closed_run_summary,
    print_closed_runs,
    stop_pid_file,
    wait_answering,
)

DEFAULT_DIR = Path("/work/appraise")
DEFAULT_DATABASE_URL = "postgres://evalsite:evalsite@127.0.0.1:5432/appraise"
DEFAULT_URL = "http://127.0.0.1:8100"
CAMPAIGN_NAME = "evalsitebench"
CAMPAIGN_NO = 16
ITEMS_PER_BATCH = 100  # Appraise's direct-assessment tasks hold exactly 100 items
SYSTEMS = ("Facebook-AI", "Online-B", "HuaweiTSC", "Online-W", "NVIDIA-NeMo")
WMT21 = ROOT / "tests" / "data" / "wmt21-en-de"
SETTINGS_MODULE = "evalsite_bench_settings"
# The database settings Appraise reads from the environment force sslmode=require, and its
# manifest static storage fails on its own CSS; this module (written by `setup` beside
# Appraise's code, never into it) changes those two and keeps everything else of its own.
SETTINGS_TEXT = '''"""Appraise's own settings with a local PostgreSQL without SSL (written by
evalsite's bench/appraise.py setup)."""
import os

from Appraise.settings import *  # noqa: F401,F403

DATABASES = {{
    "default": {{
        "ENGINE": "django.db.backends.postgresql",
        "NAME": {name!r},
        "USER": {user!r},
        "PASSWORD": os.environ.get("APPRAISE_DB_PASSWORD", {password!r}),
        "HOST": {host!r},
        "PORT": {port!r},
    }}
}}
# Its manifest storage stops collectstatic on an image its jquery-ui.css names but does not
# ship; the plain storage serves the same files (through its WhiteNoise middleware).
STATICFILES_STORAGE = "django.contrib.staticfiles.storage.StaticFilesStorage"
'''
FIELD = re.compile(r'name="(csrfmiddlewaretoken|item_id|task_id|document_id)"[^>]*?value="([^"]*)"')


def appraise_env(args: argparse.Namespace) -> dict[str, str]:
    """The environment Appraise's settings read: production mode (its DEBUG is on unless the
    variable is empty), our database settings module, a fixed secret key, our host."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS_MODULE,
        "APPRAISE_DEBUG": "",
        "APPRAISE_TEMPLATE_DEBUG": "",
        "APPRAISE_SECRET_KEY": "evalsite-bench-appraise-0123456789-abcdefghijklmnopqrstuvwxyz",
        "APPRAISE_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PYTHONPATH": str(args.appraise_dir),
    }


def database_parts(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise SystemExit(f"--database-url must be a postgres:// URL, not {url!r}")
    return {
        "name": parts.path.lstrip("/"),
        "user": unquote(parts.username or "evalsite"),
        "password": unquote(parts.password or ""),
        "host": parts.hostname or "127.0.0.1",
        "port": str(parts.port or 5432),
    }


def step(title: str, command: list[str], **kwargs) -> subprocess.CompletedProcess:
    print(f"== {title}\n   $ {' '.join(command)}", flush=True)
    return subprocess.run(command, check=True, **kwargs)


def manage(args: argparse.Namespace, title: str, *command: str) -> None:
    python = str(args.appraise_dir / ".venv" / "bin" / "python")
    step(
        title,
        [python, "manage.py", *command],
        cwd=args.appraise_dir,
        env=appraise_env(args),
        stdout=subprocess.DEVNULL,  # Appraise prints every item and account it creates
    )


def campaign_files(directory: Path, accounts: int) -> tuple[Path, Path]:
    """A direct-assessment manifest (one annotator per batch, uniform map) and its batches:
    batch i takes 100 consecutive WMT21 en-de segments, each with one of five systems."""
    source = (WMT21 / "newstest2021.en-de.src.en").read_text(encoding="utf-8").splitlines()
    outputs = {
        system: (WMT21 / "system-outputs" / f"newstest2021.en-de.hyp.{system}.de")
        .read_text(encoding="utf-8")
        .splitlines()
        for system in SYSTEMS
    }
    batches = []
    for batch in range(accounts):
        items = []
        for position in range(ITEMS_PER_BATCH):
            line = (batch * ITEMS_PER_BATCH + position) % len(source)
            system = SYSTEMS[(batch + position) % len(SYSTEMS)]
            items.append(
                {
                    "_block": position // 10,
                    "_item": position,
                    "itemID": line + 1,
                    "itemType": "TGT",
                    "sourceID": "newstest2021.en-de.src.en",
                    "sourceText": source[line],
                    "targetID": f"newstest2021.en-de.hyp.{system}.de",
                    "targetText": outputs[system][line],
                }
            )
        batches.append(
            {
                "items": items,
                "task": {
                    "batchNo": batch + 1,
                    "batchSize": 10,
                    "randomSeed": 123456,
                    "requiredAnnotations": 1,
                    "sourceLanguage": "eng",
                    "targetLanguage": "deu",
                },
            }
        )
    manifest = {
        "CAMPAIGN_URL": f"{DEFAULT_URL}/dashboard/sso/",
        "CAMPAIGN_NAME": CAMPAIGN_NAME,
        "CAMPAIGN_KEY": "evalsite16",
        "CAMPAIGN_NO": CAMPAIGN_NO,
        "REDUNDANCY": 1,
        "TASKS_TO_ANNOTATORS": [["eng", "deu", "uniform", accounts, accounts]],
        "TASK_TYPE": "Direct",
    }
    directory.mkdir(parents=True, exist_ok=True)
    manifest_path, batches_path = directory / "manifest.json", directory / "batches.json"
    manifest_path.write_text(json.dumps(manifest, indent=1))
    batches_path.write_text(json.dumps(batches, ensure_ascii=False))
    return manifest_path, batches_path


def setup(args: argparse.Namespace) -> int:
    database = database_parts(args.database_url)
    pg_env = {**os.environ, "PGPASSWORD": database["password"]}
    pg = ["-h", database["host"], "-p", database["port"], "-U", database["user"]]
    if args.reset:
        step(
            "drop the Appraise database",
            ["dropdb", "--if-exists", *pg, database["name"]],
            env=pg_env,
        )
    print(f"== create the Appraise database\n   $ createdb {' '.join(pg)} {database['name']}")
    created = subprocess.run(
        ["createdb", *pg, database["name"]], env=pg_env, capture_output=True, text=True
    )
    if created.returncode:
        if "already exists" in created.stderr:
            raise SystemExit(f"database {database['name']!r} exists: pass --reset to make it anew")
        raise SystemExit(created.stderr.strip())
    settings_path = args.appraise_dir / f"{SETTINGS_MODULE}.py"
    print(f"== write {settings_path} (Appraise's settings with this database, no SSL)")
    settings_path.write_text(SETTINGS_TEXT.format(**database))
    manage(args, "Appraise migrate", "migrate", "--noinput")
    manage(args, "Appraise collectstatic", "collectstatic", "--noinput")
    superuser_env = {**appraise_env(args), "DJANGO_SUPERUSER_PASSWORD": "bench-admin-password"}
    step(
        "Appraise createsuperuser (StartNewCampaign needs one)",
        [
            str(args.appraise_dir / ".venv/bin/python"),
            "manage.py",
            "createsuperuser",
            "--noinput",
            "--username",
            "admin",
            "--email",
            "admin@example.org",
        ],
        cwd=args.appraise_dir,
        env=superuser_env,
    )
    work = args.appraise_dir / "evalsite-bench"
    manifest, batches = campaign_files(work, args.accounts)
    print(f"== wrote {manifest} and {batches} ({args.accounts} batches of {ITEMS_PER_BATCH})")
    manage(
        args,
        f"Appraise StartNewCampaign ({args.accounts} accounts, one batch each)",
        "StartNewCampaign",
        str(manifest),
        "--batches-json",
        str(batches),
        "--csv-output",
        str(work / "credentials.csv"),
    )
    print(f"== credentials in {work / 'credentials.csv'}")
    return 0


def pid_file(args: argparse.Namespace) -> Path:
    return args.appraise_dir / "evalsite-bench" / "gunicorn.pid"


def serve(args: argparse.Namespace) -> int:
    """Gunicorn as Appraise's deployment runs it: the WSGI app, sync workers."""
    bind = urlsplit(args.url).netloc
    log = args.appraise_dir / "evalsite-bench" / "gunicorn.log"
    step(
        f"Appraise under gunicorn, {args.workers} sync workers, on {bind}",
        [
            str(args.appraise_dir / ".venv/bin/gunicorn"),
            "Appraise.wsgi",
            "--workers",
            str(args.workers),
            "--bind",
            bind,
            "--daemon",
            "--pid",
            str(pid_file(args)),
            "--error-logfile",
            str(log),
        ],
        cwd=args.appraise_dir,
        env=appraise_env(args),
    )
    return wait_answering(args.url, "/dashboard/sign-in/", "Appraise", log, tries=100)


def stop(args: argparse.Namespace) -> int:
    return stop_pid_file(pid_file(args), "Appraise gunicorn")


class Accounts:
    """Hands out accounts nobody has judged with yet, one at a time, across threads."""

    def __init__(self, credentials: list[tuple[str, str]]) -> None:
        self.free, self.lock, self.used = list(credentials), threading.Lock(), []

    def take(self) -> tuple[str, str] | None:
        with self.lock:
            if not self.free:
                return None
            account = self.free.pop(0)
            self.used.append(account[0])
            return account


class Clock:
    """The timed window: no deadline while the annotators sign in; it starts when the last
    of them has (the barrier's action)."""

    def __init__(self, annotators: int, seconds: float) -> None:
        self.seconds, self.deadline, self.started = seconds, float("inf"), 0.0
        self.barrier = threading.Barrier(annotators, action=self.start)

    def start(self) -> None:
        self.started = time.perf_counter()
        self.deadline = self.started + self.seconds


class FormAnnotator(threading.Thread):
    """Signs in through Appraise's SSO link, GETs /direct-assessment/ and then POSTs a score
    for each item; Appraise answers a POST with the page of the next item. When an account
    has no item left (a redirect to the dashboard), the annotator takes a fresh one.

    Every annotator signs in before the clock starts (as load.py makes its API tokens
    first), so judgments/s measures the judging loop; the barrier's action starts it."""

    def __init__(self, url: str, accounts: Accounts, clock: Clock) -> None:
        super().__init__(daemon=True)
        self.url, self.accounts, self.clock = url, accounts, clock
        self.acknowledged = 0
        self.latencies: list[float] = []  # per judgment: the POST that records it
        self.errors: list[str] = []

    def sign_in(self) -> tuple[Client, dict[str, str]] | None:
        while time.perf_counter() < self.clock.deadline:
            account = self.accounts.take()
            if account is None:
                self.errors.append("no fresh Appraise account left: run setup --reset")
                return None
            client = Client(self.url)
            status, headers, _ = client.request(
                "sso", "GET", f"/dashboard/sso/{account[0]}/{account[1]}/"
            )
            if status != 302 or "sessionid" not in client.cookies:
                self.errors.append(f"sso {account[0]}: HTTP {status}")
                continue
            status, headers, page = client.request("page", "GET", "/direct-assessment/")
            if status == 200:
                return client, dict(FIELD.findall(page.decode("utf-8", "replace")))
            self.errors.append(f"page {account[0]}: HTTP {status} {headers.get('location', '')}")
        return None

    def run(self) -> None:
        try:
            session = self.sign_in()
        finally:
            self.clock.barrier.wait()
        while session is not None and time.perf_counter() < self.clock.deadline:
            client, fields = session
            now = time.time()
            body = urlencode(
                {
                    **fields,
                    "score": str(1 + int(fields.get("item_id", "0")) % 100),
                    "start_timestamp": f"{now - 1:.3f}",
                    "end_timestamp": f"{now:.3f}",
                    "submit_button": "SUBMIT",
                }
            ).encode()
            started = time.perf_counter()
            try:
                status, headers, page = client.request(
                    "submit",
                    "POST",
                    "/direct-assessment/",
                    body,
                    **{
                        "Content-Type": "application/x-www-form-urlencoded",
                        "Referer": f"{self.url}/direct-assessment/",
                    },
                )
            except OSError as error:
                self.errors.append(f"submit: {type(error).__name__} {error}")
                client.reset()
                continue
            if status == 200:
                self.acknowledged += 1
                self.latencies.append(time.perf_counter() - started)
                fields = dict(FIELD.findall(page.decode("utf-8", "replace")))
                session = (client, fields)
            elif status == 302 and headers.get("location", "").endswith("/dashboard/"):
                # The last item of the account: recorded, then Appraise sends them home.
                self.acknowledged += 1
                self.latencies.append(time.perf_counter() - started)
                session = self.sign_in()
            else:
                self.errors.append(f"submit: HTTP {status}")


def credentials(args: argparse.Namespace) -> list[tuple[str, str]]:
    path = args.appraise_dir / "evalsite-bench" / "credentials.csv"
    if not path.exists():
        raise SystemExit(f"{path} is missing: run `bench/appraise.py setup` first")
    with path.open(newline="") as handle:
        return [(row["Username"], row["Password"]) for row in csv.DictReader(handle)]


def results_by_user(database_url: str, usernames: list[str]) -> dict[str, int]:
    """Appraise's own count of recorded direct-assessment results per account."""
    import psycopg

    with psycopg.connect(database_url.replace("postgres://", "postgresql://", 1)) as connection:
        rows = connection.execute(
            "SELECT u.username, count(r.id) FROM auth_user u LEFT JOIN "
            '"EvalData_directassessmentresult" r ON r."createdBy_id" = u.id '
            "WHERE u.username = ANY(%s) GROUP BY u.username",
            [usernames],
        ).fetchall()
    return {name: count for name, count in rows}


def load_run(args: argparse.Namespace) -> dict:
    every = credentials(args)
    done = results_by_user(args.database_url, [name for name, _ in every])
    accounts = Accounts([account for account in every if done.get(account[0], 0) == 0])
    if len(accounts.free) < args.annotators:
        raise SystemExit(
            f"only {len(accounts.free)} fresh Appraise accounts left for {args.annotators} "
            "annotators: run `bench/appraise.py setup --reset` (and `serve` again)"
        )
    clock = Clock(args.annotators, args.seconds)
    threads = [FormAnnotator(args.url, accounts, clock) for _ in range(args.annotators)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - clock.started
    acknowledged = sum(thread.acknowledged for thread in threads)
    latencies = [value for thread in threads for value in thread.latencies]
    errors = [error for thread in threads for error in thread.errors]
    stored = sum(results_by_user(args.database_url, accounts.used).values())
    return closed_run_summary(
        annotators=args.annotators,
        elapsed=elapsed,
        acknowledged=acknowledged,
        latencies=latencies,
        errors=errors,
        exact=stored == acknowledged,
        stored=stored,
    )


def load(args: argparse.Namespace) -> int:
    return print_closed_runs(
        args.runs,
        lambda: load_run(args),
        as_json=args.json,
        headline=lambda run: (
            f"Appraise, {run['annotators']} annotators for {run['seconds']:.1f} s: "
            f"{run['judgments']} judgments, {run['judgments_per_s']:.1f} judgments/s; per "
            f"judgment p50 {run['p50_ms']} ms, p95 {run['p95_ms']} ms, p99 {run['p99_ms']} ms"
        ),
        store="Appraise's database",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--appraise-dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    commands = parser.add_subparsers(dest="command", required=True)
    setup_parser = commands.add_parser("setup", help="database, campaign and accounts")
    setup_parser.add_argument("--accounts", type=int, default=400)
    setup_parser.add_argument("--reset", action="store_true", help="drop the database first")
    serve_parser = commands.add_parser("serve", help="gunicorn with sync workers")
    serve_parser.add_argument("--url", default=DEFAULT_URL)
    serve_parser.add_argument("--workers", type=int, default=4)
    commands.add_parser("stop", help="stop the gunicorn `serve` started")
    load_parser = commands.add_parser("load", help="closed-loop annotators on the DA form")
    load_parser.add_argument("--url", default=DEFAULT_URL)
    load_parser.add_argument("--annotators", type=int, default=50)
    load_parser.add_argument("--seconds", type=float, default=30)
    load_parser.add_argument("--runs", type=int, default=1)
    load_parser.add_argument("--json", action="store_true", help="one JSON line per run")
    # Options given before or after the command both count.
    for sub in (setup_parser, serve_parser, load_parser):
        sub.add_argument("--appraise-dir", type=Path, default=argparse.SUPPRESS)
        sub.add_argument("--database-url", default=argparse.SUPPRESS)
    args = parser.parse_args()
    args.appraise_dir = args.appraise_dir.resolve()
    return {"setup": setup, "serve": serve, "stop": stop, "load": load}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
