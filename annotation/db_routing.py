"""Reads that may lag go to the streaming replica (``DATABASE_REPLICA_URL``); all else to the
primary.

A view opts in with ``lagging_reads_allowed`` (evalsite/urls.py applies it to the results
pages, results API and downloads by URL name). Inside that scope a read goes to the replica
unless:

- the request is not a GET or HEAD, the view has written results data, or a transaction is
  open on the primary (what a transaction reads must be what it writes against);
- the model says who may see what (users, sessions, tokens, campaigns, memberships): a member
  just added or removed is judged on the primary's word, never on a lagging copy (and the
  bookkeeping authentication writes there does not count as the view's write);
- the replica did not answer its last health check, or replays more than
  ``DATABASE_REPLICA_MAX_LAG_SECONDS`` behind. The verdict is kept in the process for
  ``DATABASE_REPLICA_CHECK_SECONDS``, not asked per query.

A view whose replica connection fails is run again on the primary (reads only, so safe), as
is a download that fails before its first chunk; the replica is then left alone until the next
check. The annotator path never opts in.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import wraps
from typing import Any, cast

from django.conf import settings
from django.db import DatabaseError, connections
from django.http import StreamingHttpResponse

logger = logging.getLogger(__name__)

PRIMARY = "default"
REPLICA = "replica"
SAFE_METHODS = frozenset({"GET", "HEAD"})
# Who may see what: always read where it is written.
PRIMARY_ONLY_APPS = frozenset({"auth", "sessions", "authtoken", "admin", "contenttypes"})
PRIMARY_ONLY_MODELS = frozenset({"annotation.campaign", "annotation.membership"})

# Lag in seconds; 0 when the replica has replayed all it received while still receiving.
# Replay time alone would go stale on an idle primary (nothing new to replay); the receiver
# row is there only while the replica streams, so a replica cut off from its primary lags by
# the age of its last replayed transaction.
LAG_SQL = """
SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0
    WHEN EXISTS (SELECT 1 FROM pg_stat_wal_receiver)
         AND pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
    ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 'Infinity')
END
"""


@dataclass
class _Scope:
    wrote: bool = False
    used_replica: bool = False


_scope: contextvars.ContextVar[_Scope | None] = contextvars.ContextVar(
    "lagging_reads", default=None
)


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


class _ReplicaHealth:
    """The process's verdict on the replica, renewed at most every few seconds (by whichever
    thread asks first once it is due)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.usable = False
        self.checked_at = float("-inf")

    def is_usable(self) -> bool:
        if time.monotonic() - self.checked_at < settings.DATABASE_REPLICA_CHECK_SECONDS:
            return self.usable
        with self.lock:
            if time.monotonic() - self.checked_at >= settings.DATABASE_REPLICA_CHECK_SECONDS:
                self._judge(self._check())
        return self.usable

    def _check(self) -> str | None:
        """None when usable, else why not."""
        connection = connections[REPLICA]
        try:
            with connection.cursor() as cursor:
                cursor.execute(LAG_SQL)
                (lag,) = cursor.fetchone()
        except DatabaseError as error:
            connection.close()  # a broken connection is not kept for the next check
            return f"does not answer ({str(error).strip().splitlines()[0]})"
        bound = settings.DATABASE_REPLICA_MAX_LAG_SECONDS
        if float(lag) > bound:
            return f"replays {float(lag):.1f} s behind (bound {bound:g} s)"
        return None

    def _judge(self, problem: str | None) -> None:
        if problem is not None and (self.usable or self.checked_at == float("-inf")):
            logger.warning("database replica %s: reading from the primary", problem)
        elif problem is None and not self.usable and self.checked_at != float("-inf"):
            logger.warning("database replica back: lagging reads go to it again")
        self.usable = problem is None
        self.checked_at = time.monotonic()

    def mark_down(self, error: BaseException) -> None:
        with self.lock:
            connections[REPLICA].close()
            self._judge(f"failed a query ({str(error).strip().splitlines()[0]})")


replica_health = _ReplicaHealth()


def _primary_only(model) -> bool:
    return (
        model._meta.app_label in PRIMARY_ONLY_APPS or model._meta.label_lower in PRIMARY_ONLY_MODELS
    )


def read_may_lag(model) -> bool:
    """Whether a read of ``model`` here may come from a replica (whether one is configured
    and healthy aside)."""
    scope = _scope.get()
    return (
        scope is not None
        and not scope.wrote
        and not _primary_only(model)
        and not connections[PRIMARY].in_atomic_block
    )


class LaggingReadsRouter:
    def db_for_read(self, model, **hints: Any) -> str | None:
        if not (read_may_lag(model) and replica_configured() and replica_health.is_usable()):
            return PRIMARY
        scope = _scope.get()
        if scope is not None:  # it is: read_may_lag said so
            scope.used_replica = True
        return REPLICA

    def db_for_write(self, model, **hints: Any) -> str:
        scope = _scope.get()
        # What follows reads its own write. Who-may-see-what is read from the primary anyway
        # (and authentication's own bookkeeping writes there on any request).
        if scope is not None and not _primary_only(model):
            scope.wrote = True
        return PRIMARY

    def allow_relation(self, obj1, obj2, **hints: Any) -> bool:
        return True  # the replica holds the primary's rows

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == PRIMARY


def lagging_reads_allowed(view: Callable) -> Callable:
    """Lets a view's GET and HEAD read from the replica (see the module's note)."""

    @wraps(view)
    def wrapper(request, *args: Any, **kwargs: Any) -> Any:
        if request.method not in SAFE_METHODS:
            return view(request, *args, **kwargs)
        scope = _Scope()
        token = _scope.set(scope)
        try:
            response = view(request, *args, **kwargs)
        except DatabaseError as error:
            if not _replica_failed(scope, error):
                raise
            response = None
        finally:
            _scope.reset(token)
        if response is None:
            return view(request, *args, **kwargs)  # once more, on the primary
        if isinstance(response, StreamingHttpResponse):
            # A download reads as it streams, after the view has returned.
            response.streaming_content = _stream_in(
                scope, response.streaming_content, lambda: view(request, *args, **kwargs)
            )
        return response

    wrapper.reads_may_lag = True  # type: ignore[attr-defined]
    return wrapper


def _replica_failed(scope: _Scope, error: DatabaseError) -> bool:
    """Whether ``error`` is the replica's, and the work may be done again on the primary."""
    if not scope.used_replica or scope.wrote:
        return False
    replica_health.mark_down(error)
    return True


def _stream_in(scope: _Scope, chunks: Any, again: Callable) -> Iterator[Any]:
    iterator = iter(chunks)
    started = False
    while True:
        token = _scope.set(scope)
        try:
            chunk = next(iterator)
        except StopIteration:
            return
        except DatabaseError as error:
            if started or not _replica_failed(scope, error):
                raise
            break  # nothing sent yet: the download starts again on the primary
        finally:
            _scope.reset(token)
        started = True
        yield chunk
    retried = again()
    if isinstance(retried, StreamingHttpResponse):
        yield from cast(Iterator[bytes], retried.streaming_content)  # a WSGI response
    else:
        yield retried.content


def allow_lagging_reads(patterns: list, names: frozenset[str]) -> set[str]:
    """Wraps the views of the URL patterns named ``names`` (searching included patterns too)
    in ``lagging_reads_allowed``; returns the names found, for the caller to check."""
    found: set[str] = set()
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            found |= allow_lagging_reads(pattern.url_patterns, names)
        elif pattern.name in names:
            pattern.callback = lagging_reads_allowed(pattern.callback)
            found.add(pattern.name)
    return found
