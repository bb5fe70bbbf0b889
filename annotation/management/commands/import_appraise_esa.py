"""Imports Appraise's ESA score export into the ESA task of the same Appraise campaign.

    manage.py import_appraise manifest.json batches.json --owner manager   # the texts
    manage.py import_appraise_esa scores.csv --task ID

The export has no text: import the campaign's batches first (``import_appraise``); each
annotator's rows are matched to the batch they judged. Everything is checked first; on an
error nothing is written.
"""

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Task
from annotation.services.appraise_scores import appraise_scores_import
from annotation.services.span_imports import SpanImportError
from metrics.spans import read_appraise_esa
from metrics.wmt_csv import InputError


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("export", help="Appraise's ESA scores CSV (no header)")
        parser.add_argument("--task", type=int, required=True, help="the imported ESA task's id")

    def handle(self, *args, export: str, task: int, **options):
        found = Task.objects.filter(id=task).first()
        if found is None:
            raise CommandError(f"no task {task}")
        try:
            with open(export, encoding="utf-8", newline="") as lines:
                rows = list(read_appraise_esa(lines, name=export))
            result = appraise_scores_import(task=found, rows=rows)
        except (OSError, UnicodeDecodeError, InputError, SpanImportError) as error:
            raise CommandError(f"{error}\nNothing was imported.") from None
        self.stdout.write(
            f"imported {result.judgments} judgments with {result.spans} spans from "
            f"{result.annotators} annotators"
            + (f"; {result.superseded} rows superseded by a later one" if result.superseded else "")
        )
