"""Lagging reads on a real streaming replica: a standby of the private PostgreSQL made with
``pg_basebackup -R`` on another port, and gunicorn with ``DATABASE_REPLICA_URL`` set.

Which server answered is seen in the data: with the standby's replay paused, a judgment just
written on the primary is missing from what the replica serves. The results API and the
judgments download (read as it streams) come from the replica; the annotator path and the
writes from the primary; a stopped replica or one paused beyond the bound leaves the results to
the primary, still answering 200.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import psycopg
import pytest
from django.contrib.auth.hashers import make_password

from tests.faults_support import Http, PrivatePostgres, gunicorn, wait_until

pytestmark = pytest.mark.faults

MANAGER_PASSWORD = "manager-pw-123"


class Standby(PrivatePostgres):
    """A hot standby of ``primary``, streaming from it, in a new data directory."""

    def __init__(self, primary: PrivatePostgres) -> None:
        super().__init__()
        self.primary = primary

    def init(self) -> None:
        self._run(
            str(self.bin / "pg_basebackup"),
            "-D", str(self.data), "-R", "-X", "stream", "--no-sync",
            "-h", "127.0.0.1", "-p", str(self.primary.port), "-U", "postgres",
        )  # fmt: skip

    def superuser(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self.connect() as connection:
            return connection.execute(sql, params).fetchall()

    def caught_up(self) -> bool:
        """Replays what the primary has written so far."""
        with self.primary.connect() as connection:
            (written,) = connection.execute("SELECT pg_current_wal_lsn()").fetchone()
        try:
            ((replayed,),) = self.superuser(
                "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (str(written),)
            )
        except psycopg.OperationalError:
            return False
        return replayed

    def client_sessions(self, database: str) -> int:
        ((count,),) = self.superuser(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = %s AND backend_type = 'client backend'",
            (database,),
        )
        return count


@pytest.fixture(scope="module")
def standby(private_postgres) -> Iterator[Standby]:
    server, _ = private_postgres
    replica = Standby(server)
    try:
        replica.init()
        replica.start()
        ((in_recovery,),) = replica.superuser("SELECT pg_is_in_recovery()")
        assert in_recovery, "the standby is not in recovery"
        yield replica
    finally:
        replica.destroy()


@pytest.fixture
def replica_database(fault_database, standby, monkeypatch) -> Iterator:
    """The test's fault database, replicated; replay resumed after the test."""
    wait_until(standby.caught_up, 30, "the standby did not catch up", interval=0.1)
    monkeypatch.setenv("DATABASE_REPLICA_URL", standby.url(fault_database.name))
    yield fault_database
    try:
        standby.superuser("SELECT pg_wal_replay_resume()")
    except psycopg.OperationalError:  # stopped by the test
        standby.start()


def fresh_replay(primary: PrivatePostgres, standby: Standby) -> None:
    """A transaction replayed just now, so that the replica's lag counts from now."""
    with primary.connect() as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS replica_clock (at timestamptz)")
        connection.execute("INSERT INTO replica_clock VALUES (now())")
    wait_until(standby.caught_up, 30, "the standby did not replay the clock", interval=0.05)


def judge_one(url: str, token: str, task: int) -> int:
    """One judgment through the annotator API; returns its slot."""
    annotator = Http(url, token=token)
    item = annotator.get(f"/api/v1/tasks/{task}/next")
    assert item.status == 200, item.body
    slot = item.json()["slot"]
    answer = annotator.post_json("/api/v1/judgments", {"task": task, "slot": slot, "score": 4})
    assert answer.status == 201, answer.body
    return slot


def log_in_manager(url: str, db) -> Http:
    """The seed's manager, given a password on the primary, logged in to the pages."""
    db.query(
        "UPDATE auth_user SET password = %s WHERE username = 'manager' RETURNING id",
        (make_password(MANAGER_PASSWORD),),
    )
    page = Http(url)
    page.log_in("manager", MANAGER_PASSWORD)
    return page


def judgments_seen(url: str, token: str, campaign: int) -> tuple[int, int]:
    """Judgments in the results API and rows in the judgments download."""
    manager = Http(url, token=token)
    download = manager.get(f"/api/v1/campaigns/{campaign}/results/human/judgments.csv")
    assert download.status == 200, download.body
    results = manager.get(f"/api/v1/campaigns/{campaign}/results/human")
    assert results.status == 200, results.body
    rows = download.body.decode().strip().splitlines()[1:]
    return sum(task["judgments"] for task in results.json()["tasks"]), len(rows)


def test_results_read_the_replica_annotators_and_writes_the_primary(
    replica_database, standby, private_redis, monkeypatch
):
    db, seed = replica_database, replica_database.seed
    monkeypatch.setenv("DATABASE_REPLICA_MAX_LAG_SECONDS", "60")
    monkeypatch.setenv("DATABASE_REPLICA_CHECK_SECONDS", "0.2")
    with gunicorn(db.url, private_redis.url, workers=1) as url:
        judge_one(url, seed["annotator_tokens"]["ann0"], seed["task"])
        assert standby.client_sessions(db.name) == 0, "the annotator path read the replica"
        wait_until(standby.caught_up, 30, "the standby did not replay the judgment")
        assert judgments_seen(url, seed["manager_token"], seed["campaign"]) == (1, 1)
        assert standby.client_sessions(db.name) >= 1, "the results did not read the replica"

        fresh_replay(db.server, standby)
        standby.superuser("SELECT pg_wal_replay_pause()")
        # Written and read back on the primary, replay paused: the annotator's next item is
        # not the slot just judged, though the replica has not seen that judgment.
        judged = judge_one(url, seed["annotator_tokens"]["ann1"], seed["task"])
        assert db.query("SELECT count(*) FROM annotation_judgment") == [(2,)]
        again = Http(url, token=seed["annotator_tokens"]["ann1"])
        assert again.get(f"/api/v1/tasks/{seed['task']}/next").json()["slot"] != judged
        # The results lag: they come from the paused replica.
        assert judgments_seen(url, seed["manager_token"], seed["campaign"]) == (1, 1)
        # Who may see them does not: a password set and a session begun since the pause
        # (neither on the replica) open the results page.
        page = log_in_manager(url, db).get(f"/campaigns/{seed['campaign']}/results/human/")
        assert page.status == 200

        standby.superuser("SELECT pg_wal_replay_resume()")
        wait_until(standby.caught_up, 30, "the standby did not resume")
        time.sleep(0.3)  # past the health check's interval
        assert judgments_seen(url, seed["manager_token"], seed["campaign"]) == (2, 2)


def test_replica_paused_beyond_the_bound_leaves_results_to_the_primary(
    replica_database, standby, private_redis, monkeypatch
):
    db, seed = replica_database, replica_database.seed
    monkeypatch.setenv("DATABASE_REPLICA_MAX_LAG_SECONDS", "4")
    monkeypatch.setenv("DATABASE_REPLICA_CHECK_SECONDS", "0.2")
    with gunicorn(db.url, private_redis.url, workers=1) as url:
        fresh_replay(db.server, standby)
        standby.superuser("SELECT pg_wal_replay_pause()")
        judge_one(url, seed["annotator_tokens"]["ann0"], seed["task"])
        assert judgments_seen(url, seed["manager_token"], seed["campaign"]) == (0, 0)
        time.sleep(4.5)  # the replica now lags beyond the bound
        assert judgments_seen(url, seed["manager_token"], seed["campaign"]) == (1, 1)


def test_stopped_replica_leaves_results_to_the_primary(
    replica_database, standby, private_redis, monkeypatch
):
    db, seed = replica_database, replica_database.seed
    # Checked once a minute: the replica stops while the process still trusts it.
    monkeypatch.setenv("DATABASE_REPLICA_CHECK_SECONDS", "60")
    with gunicorn(db.url, private_redis.url, workers=1) as url:
        assert judgments_seen(url, seed["manager_token"], seed["campaign"]) == (0, 0)
        assert standby.client_sessions(db.name) >= 1
        standby.stop()
        judge_one(url, seed["annotator_tokens"]["ann0"], seed["task"])
        assert judgments_seen(url, seed["manager_token"], seed["campaign"]) == (1, 1)
        page = log_in_manager(url, db).get(f"/campaigns/{seed['campaign']}/results/human/")
        assert page.status == 200
