"""Creates a campaign (or adds to one) from files: a source, references and system outputs.

Files are plain text (one segment a line, as in the WMT text release), TSV with a header
(a ``text`` column, and ``doc_id`` for the source) or JSON Lines (``{"text": ..., "doc_id":
...}``), told apart by their ending; system outputs may also come as a zip or tar archive.
A plain-text source takes its document ids from ``--documents`` (one id a line). A WMT XML
test set (``--wmt-xml``) brings documents, the source, references and systems in one file.
Everything is validated first and imported in one transaction: all files or none.

    manage.py import_campaign "WMT21 en-de" --owner manager --languages en-de \\
        --source newstest2021.en-de.src.en --documents newstest2021.en-de.docids \\
        --reference A=newstest2021.en-de.ref.A.de --system-dir system-outputs/
    manage.py import_campaign "WMT21 de-fr" --owner manager --languages de-fr \\
        --wmt-xml newstest2021.de-fr.all.xml
"""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.lib.textfiles import UploadError
from annotation.models import Campaign
from annotation.services.campaigns import CampaignError, campaign_create
from annotation.services.imports import WMT_XML, upload_import


def named_file(value: str) -> tuple[str, Path]:
    name, sep, path = value.partition("=")
    if not sep or not name or not path:
        raise CommandError(f"expected NAME=FILE, got {value!r}")
    return name, Path(path)


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name; created if it does not exist")
        parser.add_argument("--owner", help="username of the manager (for a new campaign)")
        parser.add_argument("--languages", help="language pair of a new campaign, e.g. en-de")
        parser.add_argument("--source", type=Path, help="the source file")
        parser.add_argument(
            "--documents",
            type=Path,
            help="document ids of a plain-text source, one a line (as the source's lines)",
        )
        parser.add_argument(
            "--wmt-xml",
            type=Path,
            help="a WMT XML test set: documents, source, references and systems in one file",
        )
        parser.add_argument(
            "--reference", action="append", default=[], type=named_file, metavar="NAME=FILE"
        )
        parser.add_argument(
            "--system", action="append", default=[], type=named_file, metavar="NAME=FILE"
        )
        parser.add_argument(
            "--system-dir",
            type=Path,
            help="every file in this folder is a system, named after the file",
        )
        parser.add_argument(
            "--add-run",
            action="store_true",
            help="files of existing systems are new runs (other seeds)",
        )

    def handle(self, *args, **options):
        try:
            with transaction.atomic():
                campaign = self._campaign(options)
                self._import_all(campaign, options)
        except (UploadError, CampaignError, OSError) as error:
            raise CommandError(f"{error}\nNothing was imported.") from None

    def _campaign(self, options) -> Campaign:
        campaign = Campaign.objects.filter(name=options["campaign"]).first()
        if campaign is not None:
            return campaign
        if not options["owner"] or not options["languages"]:
            raise CommandError("a new campaign needs --owner and --languages (e.g. en-de)")
        owner = get_user_model().objects.filter(username=options["owner"]).first()
        if owner is None:
            raise CommandError(f"no user named {options['owner']!r}")
        source, sep, target = options["languages"].partition("-")
        if not sep:
            raise CommandError("--languages takes SOURCE-TARGET, e.g. en-de")
        self.stdout.write(f"creating campaign {options['campaign']!r}")
        return campaign_create(
            name=options["campaign"], source_language=source, target_language=target, owner=owner
        )

    def _import_all(self, campaign, options):
        owner = campaign.owner
        if options["documents"] and not options["source"]:
            raise CommandError("--documents gives the document ids of --source; add --source")
        if options["wmt_xml"]:
            if options["source"]:
                raise CommandError("--wmt-xml brings its own source; drop --source")
            self._report(
                upload_import(
                    campaign=campaign,
                    kind=WMT_XML,
                    user=owner,
                    files=[self._read(options["wmt_xml"])],
                )
            )
        if options["source"]:
            self._report(
                upload_import(
                    campaign=campaign,
                    kind="source",
                    user=owner,
                    files=[self._read(options["source"])],
                    documents=self._read(options["documents"]) if options["documents"] else None,
                )
            )
        for name, path in options["reference"]:
            self._report(
                upload_import(
                    campaign=campaign,
                    kind="reference",
                    name=name,
                    user=owner,
                    files=[self._read(path)],
                )
            )
        for name, path in options["system"]:
            self._report(
                upload_import(
                    campaign=campaign,
                    kind="system",
                    name=name,
                    user=owner,
                    files=[self._read(path)],
                    add_run=options["add_run"],
                )
            )
        if options["system_dir"]:
            paths = sorted(p for p in options["system_dir"].iterdir() if p.is_file())
            if not paths:
                raise CommandError(f"{options['system_dir']} holds no files")
            self._report(
                upload_import(
                    campaign=campaign,
                    kind="system",
                    user=owner,
                    files=[self._read(p) for p in paths],
                    add_run=options["add_run"],
                )
            )

    @staticmethod
    def _read(path: Path) -> tuple[str, bytes]:
        return path.name, path.read_bytes()

    def _report(self, results):
        for result in results:
            documents = f" in {result.documents} documents" if result.documents else ""
            self.stdout.write(
                f"{result.kind} {result.name}: {result.status}, {result.segments} segments"
                f"{documents}"
            )
            for warning in result.warnings:
                self.stdout.write(self.style.WARNING(f"  warning: {warning}"))
