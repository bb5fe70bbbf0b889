"""How current the figures of a results answer are, said the same way by the results API, the
shared-task API and the pages' downloads (rankings, reliability, plots, paper tables).

A large campaign (``RESULTS_SNAPSHOT_SYNC_JUDGMENTS`` judgments or more) is never computed in
a request (seconds to minutes at WMT scale); its figures come from its results snapshot,
which the refresh job keeps current:

- current figures: 200, ``"current": true`` and ``"as_of"`` (when they were computed);
- older figures (the job is asked for new ones): 200, ``"current": false``, ``"as_of"``,
  ``"judgments"`` (what they count) and ``"judgments_since"`` (counted since), and a
  ``Retry-After`` header: ask again then for current ones. A file says it in its headers
  (``Last-Modified``, ``Retry-After``) and in its name ("...-as-of-<time>...");
- none yet (the job is asked): 202 ``{"status": "computing", "judgments": N, ...}`` and
  ``Retry-After`` (a browser asking for a file gets a small page that says so instead).

A small campaign's figures are computed in the request when not current, so they are always
current.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.http import http_date

from annotation.api.schema import RESULTS_STATUSES
from annotation.services.results_snapshots import PENDING_REFRESH_SECONDS
from annotation.services.snapshot_compute import Snapshotted

# How long a client waits before asking again for figures being computed or brought current.
RETRY_SECONDS = PENDING_REFRESH_SECONDS


def figures(snapshots: Sequence[Snapshotted[Any]]) -> dict[str, Any]:
    """How current ``snapshots`` are: ``current``, ``as_of`` (the oldest shown), ``judgments``
    (summed) and ``judgments_since`` (summed over those shown)."""
    shown = [s for s in snapshots if not s.pending]
    oldest = min(shown, key=lambda s: s.computed_at) if shown else None
    return {
        "current": all(s.current for s in snapshots),
        "as_of": oldest.computed_at if oldest is not None else None,
        "judgments": sum(s.judgments for s in snapshots),
        "judgments_since": sum(s.judgments_since for s in shown),
    }


def figures_headers(snapshots: Sequence[Snapshotted[Any]]) -> dict[str, str]:
    """``Retry-After`` unless every figure is current."""
    if all(s.current for s in snapshots):
        return {}
    return {"Retry-After": str(RETRY_SECONDS)}


def file_headers(snapshots: Sequence[Snapshotted[Any]]) -> dict[str, str]:
    """A file's answer (it cannot carry the fields): ``Last-Modified``, the time of its
    oldest figures, and ``Retry-After`` unless every figure is current."""
    shown = [s for s in snapshots if not s.pending]
    headers = figures_headers(snapshots)
    if shown:
        headers["Last-Modified"] = http_date(min(s.computed_at for s in shown).timestamp())
    return headers


def file_name(stem: str, extension: str, snapshots: Sequence[Snapshotted[Any]]) -> str:
    """``stem.extension``; of older figures ``stem-as-of-<UTC time>.extension``, so that a
    file saved from the page says what it is without being opened."""
    shown = [s for s in snapshots if not s.pending]
    if all(s.current for s in snapshots) or not shown:
        return f"{stem}.{extension}"
    oldest = min(s.computed_at for s in shown)
    return f"{stem}-as-of-{oldest:%Y%m%d-%H%M}Z.{extension}"


def older_note(snapshots: Sequence[Snapshotted[Any]]) -> str:
    """A line for a text file made of older figures ("" when current): as of when and how
    many judgments, and that newer figures are being computed."""
    shown = [s for s in snapshots if not s.pending]
    if all(s.current for s in snapshots) or not shown:
        return ""
    state = figures(snapshots)
    return (
        f"Figures as of {state['as_of']:%Y-%m-%d %H:%M} UTC ({state['judgments']} judgments, "
        f"{state['judgments_since']} more since): newer ones are being computed."
    )


def computing_body(snapshots: Sequence[Snapshotted[Any]]) -> dict[str, Any]:
    """The 202 answer's body: nothing to show yet, the refresh job (already asked) computes
    it."""
    judgments = sum(s.judgments for s in snapshots)
    return {
        "status": RESULTS_STATUSES[0],
        "judgments": judgments,
        "retry_after": RETRY_SECONDS,
        "message": f"The results of {judgments} judgments are being computed; "
        f"ask again in {RETRY_SECONDS} seconds.",
    }
