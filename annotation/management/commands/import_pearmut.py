"""Imports a Pearmut campaign file, and optionally its annotations.

    manage.py import_pearmut CAMPAIGN.json --owner USER [--annotations ANNOTATIONS.jsonl]
        [--name NAME] [--languages en-de]
    manage.py import_pearmut TUTORIAL.json --tutorial-for TASK_ID [--language de]
        [--pass-share 0.8] [--attempts 3]

The second form stores the file's items as the tutorial of an existing task (its
``validation`` the expected answers, each rule's ``warning`` the explanation; instructions
kept as text, a ``<script>`` dropped with a note): annotation/lib/tutorials.py.

How protocols, assignment modes and options map: annotation/lib/pearmut.py. Unknown options
and what evalsite does not run are refused with the reason; the whole file (and the
annotations) is checked first, and on an error nothing is written. Media sources named by a
path are read beside the campaign file (annotation/services/pearmut_media.py); web URLs are
refused, naming them.
"""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.errors import ApplicationError
from annotation.models import Task
from annotation.services.pearmut_answers import pearmut_annotation_lines
from annotation.services.pearmut_imports import PearmutImportError, pearmut_import, pearmut_load
from annotation.services.tutorial_uploads import tutorial_upload


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("campaign", type=Path)
        parser.add_argument("--owner", help="username of the campaign's manager")
        parser.add_argument("--annotations", type=Path, help="Pearmut's outputs JSONL")
        parser.add_argument("--name", default="", help="campaign name (default: campaign_id)")
        parser.add_argument("--languages", help="source-target, when the item ids do not say")
        parser.add_argument("--tutorial-for", type=int, help="store as this task's tutorial")
        parser.add_argument("--language", default="", help="the tutorial's target language")
        parser.add_argument("--pass-share", type=float, help="share of graded items to pass")
        parser.add_argument("--attempts", type=int, help="attempts allowed (0: no limit)")

    def handle(self, *args, campaign: Path, owner: str, annotations, name, languages, **options):
        if options["tutorial_for"] is not None:
            return self._tutorial(campaign, options)
        if not owner:
            raise CommandError("--owner is required to import a campaign")
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"no user named {owner!r}")
        pair = None
        if languages:
            source, _, target = languages.partition("-")
            if not source or not target:
                raise CommandError("--languages is source-target, e.g. en-de")
            pair = (source, target)
        try:
            parsed = pearmut_load(text=campaign.read_text(encoding="utf-8"), name=str(campaign))
            lines = (
                pearmut_annotation_lines(
                    text=annotations.read_text(encoding="utf-8"), name=str(annotations)
                )
                if annotations
                else []
            )
            task = pearmut_import(
                parsed=parsed,
                owner=user,
                name=name,
                languages=pair,
                annotations=lines,
                annotations_name=str(annotations),
                media_directory=campaign.resolve().parent,
            )
        except (PearmutImportError, OSError, UnicodeDecodeError) as error:
            raise CommandError(f"{error}\nNothing was imported.") from None
        checks = task.items.filter(item_type="CHK").count()
        judged = task.judgments.count()
        self.stdout.write(
            f"campaign {task.campaign.name!r}: {task.get_task_type_display()} task with"
            f" {task.items.count()} items ({checks} checks or tutorials), {judged} judgments"
        )
        for note in parsed.notes:
            self.stdout.write(f"note: {note}")

    def _tutorial(self, path: Path, options) -> None:
        task = Task.objects.filter(id=options["tutorial_for"]).first()
        if task is None:
            raise CommandError(f"no task {options['tutorial_for']}")
        try:
            stored = tutorial_upload(
                task=task,
                name=path.name,
                data=path.read_bytes(),
                language=options["language"],
                pass_share=options["pass_share"],
                attempts=options["attempts"],
            )
        except (ApplicationError, OSError) as error:
            raise CommandError(f"{error}\nNothing was imported.") from None
        languages = ", ".join(language or "default" for language in stored.languages)
        self.stdout.write(
            f"task {task.id} ({task.name}): {stored.items} tutorial items ({languages})"
        )
        for note in stored.notes:
            self.stdout.write(f"note: {note}")
