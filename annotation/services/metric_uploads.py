"""Per-segment scores of a metric computed elsewhere (COMET, MetricX, ...), uploaded.

Two layouts, told apart by their column count:

* TSV ``system<TAB>segment<TAB>score``, segments numbered from 1, in any order (a first line
  ``system<TAB>segment<TAB>score`` is a header);
* mt-metrics-eval's ``.seg.score``: ``system<TAB>score``, one line per segment, in order.

The file is validated whole (unknown system, missing, repeated or out-of-range segment,
wrong segment count, non-numeric score) before anything is written. Each system's scores go
to its first run as an external metric (``metrics.external``): stored sentence scores with
a bootstrap interval, and paired tests against every other system that has them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db import transaction

from annotation.errors import ApplicationError
from annotation.models import Campaign, RunScore, RunStatistics, Segment
from annotation.selectors.references import UPLOADED_SCORES_KEY
from annotation.selectors.systems import first_runs as first_runs_of
from annotation.services.scoring import campaign_significance_update
from metrics import external
from metrics.automatic import stats_to_bytes
from metrics.resampling import BOOTSTRAP_SAMPLES, SACREBLEU_SEED, bootstrap_ci

TSV_HEADER = ("system", "segment", "score")


class MetricUploadError(ApplicationError):
    """A clear reason, naming the line, why nothing was stored."""


@dataclass(frozen=True)
class MetricUploadResult:
    metric: str  # the stored key, ext:NAME or ext-lower:NAME
    name: str
    systems: list[str]
    segments: int
    layout: str  # "tsv" or "seg.score"


def decode_scores(*, data: bytes) -> str:
    """The file's text (UTF-8, with or without a byte-order mark)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise MetricUploadError(f"the file is not UTF-8 text (byte {error.start})") from None


def _number(text: str, line_number: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise MetricUploadError(
            f"line {line_number}: score {text[:40]!r} is not a number"
        ) from None
    if not math.isfinite(value) or abs(value) > external.SCORE_LIMIT:
        raise MetricUploadError(
            f"line {line_number}: score {text[:40]!r} is not a finite number between "
            f"-{external.SCORE_LIMIT:,.0f} and {external.SCORE_LIMIT:,.0f}"
        )
    return value


def parse_metric_scores(
    *, text: str, systems: set[str], n_segments: int
) -> tuple[str, dict[str, list[float]]]:
    """(layout, system → one score per segment), or ``MetricUploadError``."""
    lines = [(n, line.rstrip("\r")) for n, line in enumerate(text.split("\n"), start=1)]
    lines = [(n, line) for n, line in lines if line.strip()]
    if not lines:
        raise MetricUploadError("the file has no scores")
    first = tuple(field.strip().lower() for field in lines[0][1].split("\t"))
    if first == TSV_HEADER:
        lines = lines[1:]
    widths = {len(line.split("\t")) for _, line in lines}
    if not lines or len(widths) != 1 or widths - {2, 3}:
        raise MetricUploadError(
            "expected every line as system<TAB>segment<TAB>score, or every line as "
            "system<TAB>score (mt-metrics-eval .seg.score)"
        )
    layout = "tsv" if widths == {3} else "seg.score"
    by_system: dict[str, dict[int, float]] = {}
    for line_number, line in lines:
        fields = line.split("\t")
        system = fields[0].strip()
        if system not in systems:
            raise MetricUploadError(f"line {line_number}: unknown system {system[:100]!r}")
        scores = by_system.setdefault(system, {})
        if layout == "tsv":
            segment_text = fields[1].strip()
            # ASCII digits only: "²" is a digit to str.isdigit, not to int().
            if not (segment_text.isascii() and segment_text.isdecimal()) or not (
                1 <= int(segment_text) <= n_segments
            ):
                raise MetricUploadError(
                    f"line {line_number}: segment {segment_text[:20]!r} is not a number "
                    f"from 1 to {n_segments}"
                )
            segment = int(segment_text)
            if segment in scores:
                raise MetricUploadError(
                    f"line {line_number}: segment {segment} of {system!r} is given twice"
                )
        else:
            segment = len(scores) + 1
        scores[segment] = _number(fields[-1].strip(), line_number)
    for system, scores in by_system.items():
        if len(scores) != n_segments:
            raise MetricUploadError(
                f"system {system!r} has {len(scores)} scores; the campaign has "
                f"{n_segments} segments"
            )
    return layout, {
        s: [scores[i] for i in range(1, n_segments + 1)] for s, scores in by_system.items()
    }


@transaction.atomic
def metric_scores_upload(
    *, campaign: Campaign, name: str, higher_is_better: bool, text: str
) -> MetricUploadResult:
    """Stores the uploaded scores of metric ``name``, replacing an earlier upload of it."""
    try:
        key = external.key_for(name.strip(), higher_is_better=higher_is_better)
    except ValueError as error:
        raise MetricUploadError(str(error)) from None
    first_runs = {run.system.name: run for run in first_runs_of(campaign).select_related("system")}
    n_segments = Segment.objects.filter(campaign=campaign).count()
    if not n_segments or not first_runs:
        raise MetricUploadError("upload the source and the systems before their metric scores")
    layout, scores = parse_metric_scores(text=text, systems=set(first_runs), n_segments=n_segments)
    names = [external.key_for(name.strip(), higher_is_better=h) for h in (True, False)]
    RunStatistics.objects.filter(run__campaign=campaign, metric__in=names).delete()
    RunScore.objects.filter(run__campaign=campaign, metric__in=names).delete()
    signature = external.signature(key, origin="uploaded")
    for system, values in scores.items():
        stats = external.as_statistics(values)
        estimate = bootstrap_ci(key, stats, n_samples=BOOTSTRAP_SAMPLES, seed=SACREBLEU_SEED)
        run = first_runs[system]
        RunStatistics.objects.create(
            run=run,
            metric=key,
            references=UPLOADED_SCORES_KEY,
            rows=stats.shape[0],
            columns=stats.shape[1],
            data=stats_to_bytes(stats),
        )
        RunScore.objects.create(
            run=run,
            metric=key,
            references=UPLOADED_SCORES_KEY,
            score=estimate.score,
            ci_low=estimate.low,
            ci_high=estimate.high,
            signature=signature,
            samples=BOOTSTRAP_SAMPLES,
            seed=SACREBLEU_SEED,
        )
    campaign_significance_update(campaign_id=campaign.id, metrics=names)
    return MetricUploadResult(key, name.strip(), sorted(scores), n_segments, layout)
