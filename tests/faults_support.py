"""Private PostgreSQL, Redis and gunicorn processes for the fault tests, and an HTTP client.

The fault tests stop and restart these servers; the shared PostgreSQL cluster and Redis are
never touched. One private PostgreSQL serves the whole session: its template database is
migrated and seeded once, and each test works on a copy of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import psycopg
import pytest

ROOT = Path(__file__).resolve().parent.parent
VAR = ROOT / "var"
ROLE = "faults"
TEMPLATE = "faults_template"
NO_PERSISTENCE = ("--save", "", "--appendonly", "no")
# As `make up` runs it.
GUNICORN = (sys.executable, "-m", "gunicorn", "evalsite.wsgi", "-c", "evalsite/gunicorn.conf.py")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(predicate, timeout: float, what: str, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"{what}: not within {timeout} s")


def _postgres_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not found:
        pytest.fail("PostgreSQL server binaries are missing (/usr/lib/postgresql/*/bin)")
    return found[-1].parent


def terminate(process: subprocess.Popen, timeout: float = 15) -> None:
    """Stops a process started in its own session, then anything it left in that session."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # children (a beat process, say) left behind


class PrivatePostgres:
    """A throwaway cluster on a free port: trust authentication, listening on 127.0.0.1."""

    def __init__(self) -> None:
        self.bin = _postgres_bin()
        self.root = Path(tempfile.mkdtemp(prefix="evalsite-faults-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = free_port()
        self.as_postgres: list[str] = []
        if os.geteuid() == 0:  # initdb refuses to run as root
            shutil.chown(self.root, "postgres", "postgres")
            self.as_postgres = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        subprocess.run(
            [*self.as_postgres, *args], check=True, stdout=subprocess.DEVNULL, cwd=self.root
        )

    def init(self) -> None:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root}"
            " -c fsync=off"
        )
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-o",
            options, "start",
        )  # fmt: skip

    def stop(self) -> None:
        """A fast shutdown: sessions are terminated, in-flight transactions roll back."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # not running
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgres://{ROLE}@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "postgres", user: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(
            host="127.0.0.1", port=self.port, dbname=database, user=user, autocommit=True
        )

    def query(self, database: str, sql: str, params: tuple = ()) -> list[tuple]:
        with self.connect(database, ROLE) as connection:
            return connection.execute(sql, params).fetchall()


@dataclass
class FaultDatabase:
    server: PrivatePostgres
    name: str
    seed: dict[str, Any]

    @property
    def url(self) -> str:
        return self.server.url(self.name)

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.server.query(self.name, sql, params)


def run_python(database_url: str, *args: str) -> str:
    """Runs ``python *args`` in the checkout against ``database_url``; returns its output."""
    # An unreachable broker: what the seed queues stays pending in the outbox.
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": "redis://127.0.0.1:1/0"}
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if result.returncode:
        raise RuntimeError(f"python {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return result.stdout


@pytest.fixture(scope="session")
def private_postgres() -> Iterator[tuple[PrivatePostgres, dict[str, Any]]]:
    """The session's private cluster with a migrated and seeded template database.

    The seed runs with an unreachable broker, so its metrics jobs stay pending (the outbox)
    until a worker of the test that copies the database starts and dispatches them.
    """
    server = PrivatePostgres()
    try:
        server.init()
        server.start()
        with server.connect() as connection:
            connection.execute(f"CREATE ROLE {ROLE} LOGIN CREATEDB")
            connection.execute(f"CREATE DATABASE {TEMPLATE} OWNER {ROLE}")
        url = server.url(TEMPLATE)
        run_python(url, "manage.py", "migrate", "--noinput", "-v", "0")
        seed = json.loads(run_python(url, "-m", "tests.faults_seed"))
        yield server, seed
    finally:
        server.destroy()


@pytest.fixture
def fault_database(private_postgres) -> FaultDatabase:
    """A fresh copy of the seeded template, for one test."""
    server, seed = private_postgres
    name = f"faults_{uuid.uuid4().hex[:8]}"
    with server.connect() as connection:
        connection.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE} OWNER {ROLE}")
    return FaultDatabase(server, name, seed)


class PrivateRedis:
    """A redis-server without persistence on a free port; stop and start keep the port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is missing")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", *NO_PERSISTENCE],
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_until(self._answers, 10, "the private redis-server did not start")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process)
            self.process = None


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    redis = PrivateRedis()
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()


def collect_static_if_stale() -> None:
    """gunicorn serves the collected (hashed) static files: collect them if a source changed."""
    manifest = VAR / "static" / "staticfiles.json"
    newest = max(path.stat().st_mtime for path in (ROOT / "static").rglob("*") if path.is_file())
    if not manifest.exists() or manifest.stat().st_mtime < newest:
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
            cwd=ROOT,
            check=True,
        )


def _answers(url: str) -> bool:
    try:
        return Http(url).get("/login/", timeout=5).status == 200
    except OSError:
        return False


@contextmanager
def gunicorn(database_url: str, redis_url: str, workers: int = 2) -> Iterator[str]:
    """The web server as `make up` runs it, on the private servers; yields its base URL."""
    collect_static_if_stale()
    port = free_port()
    VAR.mkdir(exist_ok=True)
    log = open(VAR / f"faults-gunicorn-{port}.log", "w")  # noqa: SIM115 (closed below)
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "WEB_WORKERS": str(workers),
        "WEB_THREADS": "4",
        "DEBUG": "",
    }
    process = subprocess.Popen(
        [*GUNICORN, "--bind", f"127.0.0.1:{port}", "--access-logfile", "-"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(
            lambda: process.poll() is not None or _answers(url), 60, "gunicorn", interval=0.2
        )
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited; see {log.name}")
        yield url
    finally:
        terminate(process)
        log.close()


@dataclass
class Response:
    status: int
    headers: Any
    body: bytes
    sent_at: float = 0.0
    seconds: float = 0.0

    def json(self) -> Any:
        return json.loads(self.body)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # the caller sees the 302 itself


@dataclass
class Http:
    """A small HTTP client with cookies (sessions, CSRF) that does not follow redirects;
    connection errors raise, HTTP errors come back as responses."""

    base: str
    token: str | None = None
    jar: CookieJar = field(default_factory=CookieJar)

    def __post_init__(self) -> None:
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect
        )

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 30,
    ) -> Response:
        all_headers = {"Authorization": f"Token {self.token}"} if self.token else {}
        all_headers.update(headers or {})
        request = urllib.request.Request(  # noqa: S310 (the test's own http:// server)
            self.base + path, data=body, headers=all_headers, method=method
        )
        sent_at = time.monotonic()
        try:
            with self.opener.open(request, timeout=timeout) as reply:
                response = Response(reply.status, reply.headers, reply.read())
        except urllib.error.HTTPError as error:
            response = Response(error.code, error.headers, error.read())
        response.sent_at = sent_at
        response.seconds = time.monotonic() - sent_at
        return response

    def get(self, path: str, **kwargs) -> Response:
        return self.request("GET", path, **kwargs)

    def post_json(self, path: str, data: dict[str, Any]) -> Response:
        return self.request(
            "POST",
            path,
            body=json.dumps(data).encode(),
            headers={"Content-Type": "application/json"},
        )

    def post_form(self, path: str, data: dict[str, str], headers: dict[str, str] | None = None):
        from urllib.parse import urlencode

        return self.request(
            "POST",
            path,
            body=urlencode({"csrfmiddlewaretoken": self.csrf(), **data}).encode(),
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "X-CSRFToken": self.csrf(),
                "Referer": self.base + path,
                **(headers or {}),
            },
        )

    def post_files(self, path: str, fields: dict[str, str], files: list[tuple[str, bytes]]):
        boundary = uuid.uuid4().hex
        head = f"--{boundary}\r\nContent-Disposition: form-data; "
        parts = [f'{head}name="{key}"\r\n\r\n{value}\r\n'.encode() for key, value in fields.items()]
        parts += [
            f'{head}name="files"; filename="{name}"\r\nContent-Type: text/plain\r\n\r\n'.encode()
            + data
            + b"\r\n"
            for name, data in files
        ]
        return self.request(
            "POST",
            path,
            body=b"".join(parts) + f"--{boundary}--\r\n".encode(),
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )

    def csrf(self) -> str:
        for cookie in self.jar:
            if cookie.name == "csrftoken" and cookie.value:
                return cookie.value
        self.get("/login/")  # sets the cookie
        return next(cookie.value for cookie in self.jar if cookie.name == "csrftoken")

    def log_in(self, username: str, password: str) -> None:
        response = self.post_form("/login/", {"username": username, "password": password})
        assert response.status == 302, f"login of {username} answered {response.status}"


def judgments(database: FaultDatabase) -> list[tuple[int, str, int]]:
    """Every judgment in the database as (slot, annotator, score)."""
    return database.query(
        "SELECT j.slot_id, u.username, j.score FROM annotation_judgment j "
        "JOIN auth_user u ON u.id = j.annotator_id ORDER BY j.slot_id"
    )


def assert_saved_exactly_once(database: FaultDatabase, acknowledged: dict[int, tuple]) -> None:
    """Every acknowledged judgment is in the database once, and nothing else is."""
    rows = judgments(database)
    slots = [slot for slot, _, _ in rows]
    assert len(slots) == len(set(slots)), "a slot has two judgments"
    assert {slot: (user, score) for slot, user, score in rows} == acknowledged
    repeated = database.query(
        "SELECT annotator_id, item_id FROM annotation_judgment WHERE NOT is_repeat "
        "GROUP BY annotator_id, item_id HAVING count(*) > 1"
    )
    assert repeated == [], "an annotator judged an item twice"
