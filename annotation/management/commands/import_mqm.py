"""python manage.py import_mqm FILE.tsv --name NAME --owner USER [--languages zh-en]

Reads Google's TED/WMT layout and Anthea's export (Marot's layout, with its ``metadata``
column and ``HOTW-test`` attention checks, which are stored as checks, never as errors).
"""

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from annotation.selectors.hotw import hotw_results
from annotation.services.span_imports import SpanImportError, mqm_ratings_import
from metrics.spans import group_ratings, read_mqm_tsv
from metrics.wmt_csv import InputError


class Command(BaseCommand):
    help = "Import Google's MQM TSV ratings as a campaign with an MQM task and its judgments."

    def add_arguments(self, parser):
        parser.add_argument("tsv")
        parser.add_argument("--name", required=True)
        parser.add_argument("--owner", required=True)
        parser.add_argument(
            "--languages", required=True, help="source-target, e.g. zh-en (the TSV does not say)"
        )

    def handle(self, *args, **options):
        owner = User.objects.filter(username=options["owner"]).first()
        if owner is None:
            raise CommandError(f"no user {options['owner']!r}")
        source, _, target = options["languages"].partition("-")
        try:
            with open(options["tsv"], encoding="utf-8", newline="") as lines:
                ratings = list(group_ratings(read_mqm_tsv(lines, name=options["tsv"])))
            task = mqm_ratings_import(
                ratings=ratings,
                name=options["name"],
                source_language=source,
                target_language=target or source,
                owner=owner,
            )
        except (OSError, InputError, SpanImportError, ValueError) as error:
            raise CommandError(str(error)) from None
        rated = sum(1 for rating in ratings if rating.rated)
        self.stdout.write(f"imported {rated} ratings into task {task.id}")
        for result in hotw_results(task=task):
            self.stdout.write(
                f"HOTW checks of {result.rater}: {result.found} found, {result.missed} missed"
                f" ({result.rate:.0%})"
            )
