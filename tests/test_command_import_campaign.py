"""manage.py import_campaign: the WMT text release in one command, all files or none."""

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Campaign, Output, Segment, SystemRun
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
WMT21 = DATA / "wmt21-en-de"


def test_wmt21_release_imports(manager, tmp_path):
    systems = tmp_path / "systems"
    systems.mkdir()
    for name in ("Online-B", "UEdin"):
        source = WMT21 / "system-outputs" / f"newstest2021.en-de.hyp.{name}.de"
        (systems / source.name).write_bytes(source.read_bytes())
    call_command(
        "import_campaign",
        "WMT21",
        "--owner",
        "manager",
        "--languages",
        "en-de",
        "--source",
        str(WMT21 / "newstest2021.en-de.src.en"),
        "--reference",
        f"A={WMT21 / 'newstest2021.en-de.ref.A.de'}",
        "--system-dir",
        str(systems),
    )
    campaign = Campaign.objects.get(name="WMT21")
    assert campaign.language_pair == "en-de"
    assert Segment.objects.filter(campaign=campaign).count() == 1002
    assert sorted(SystemRun.objects.values_list("system__name", flat=True)) == ["Online-B", "UEdin"]
    assert Output.objects.count() == 2004


def test_a_bad_file_imports_nothing(manager, tmp_path):
    short = tmp_path / "short.de"
    short.write_text("only one line\n")
    with pytest.raises(CommandError, match=r"short.de: 1 lines, but the source has 1002"):
        call_command(
            "import_campaign",
            "WMT21",
            "--owner",
            "manager",
            "--languages",
            "en-de",
            "--source",
            str(WMT21 / "newstest2021.en-de.src.en"),
            "--system",
            f"short={short}",
        )
    assert not Campaign.objects.exists()
    assert not Segment.objects.exists()
