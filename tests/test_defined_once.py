""" "A system's first run" and "the reference shown", each defined once
(``annotation/selectors/systems.first_runs``, ``annotation/selectors/references.references_shown``)
and used by every page that needs them."""

from __future__ import annotations

import pytest

from annotation.models import SystemRun
from annotation.selectors.references import references_shown
from annotation.selectors.systems import first_runs
from annotation.services.imports import upload_import

pytestmark = pytest.mark.django_db


def _add_run(campaign, manager, system: str, text: bytes) -> None:
    upload_import(
        campaign=campaign,
        kind="system",
        name=system,
        files=[(f"{system}.seed2.de", text)],
        user=manager,
        add_run=True,
    )


def test_a_systems_first_run_is_its_lowest_number_even_once_run_1_is_gone(loaded_campaign, manager):
    lines = b"".join(b"seed two %d\n" % i for i in range(12))
    _add_run(loaded_campaign, manager, "UEdin", lines)
    first = {run.system.name: run.number for run in first_runs(loaded_campaign)}
    assert first == {"Online-B": 1, "UEdin": 1, "happypoet": 1}
    SystemRun.objects.filter(system__name="UEdin", number=1).delete()
    first = {run.system.name: run.number for run in first_runs(loaded_campaign)}
    assert first == {"Online-B": 1, "UEdin": 2, "happypoet": 1}


def test_the_reference_shown_is_the_first_by_name(loaded_campaign, manager):
    lines = b"".join(b"zero %d\n" % i for i in range(12))
    upload_import(
        campaign=loaded_campaign,
        kind="reference",
        name="0-first",
        files=[("ref.0.de", lines)],
        user=manager,
    )
    assert [ref.name for ref in references_shown(loaded_campaign.id)] == ["0-first", "A"]
