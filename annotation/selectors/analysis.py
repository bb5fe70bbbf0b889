"""Error analysis of two systems on the automatic results page (``metrics.analysis``)."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import Campaign, Output, ReferenceSegment, Segment, SystemRun
from annotation.selectors.references import metric_reference_names
from annotation.selectors.systems import first_runs
from metrics.analysis import Comparison, compare_systems, tokenise

# BLEU's default tokeniser, so the words compared are the words BLEU counts.
ANALYSIS_TOKENIZER = "13a"
NGRAMS_SHOWN = 15
SENTENCES_SHOWN = 5


@dataclass(frozen=True)
class SentencePair:
    line: int  # 1-based
    source: str
    reference: str
    output_1: str
    output_2: str
    bleu_1: float
    bleu_2: float


@dataclass(frozen=True)
class SystemComparison:
    name_1: str
    name_2: str
    reference: str
    comparison: Comparison
    sentences_better_1: list[SentencePair]
    sentences_better_2: list[SentencePair]


def _first_run_texts(run: SystemRun) -> list[str]:
    return list(
        Output.objects.filter(run=run).order_by("segment__index").values_list("text", flat=True)
    )


def system_comparison(campaign: Campaign, system_1: int, system_2: int) -> SystemComparison | None:
    """compare-mt's analysis of the first runs of two systems against the first reference
    the metrics use; None if either system or the reference is missing."""
    runs = {
        run.system_id: run
        for run in first_runs(campaign)
        .filter(system_id__in=[system_1, system_2])
        .select_related("system")
    }
    names = metric_reference_names(campaign)
    if system_1 == system_2 or len(runs) != 2 or not names:
        return None
    reference = list(
        ReferenceSegment.objects.filter(reference__campaign=campaign, reference__name=names[0])
        .order_by("segment__index")
        .values_list("text", flat=True)
    )
    out_1, out_2 = _first_run_texts(runs[system_1]), _first_run_texts(runs[system_2])
    if not reference or len(out_1) != len(reference) or len(out_2) != len(reference):
        return None
    words = [tokenise(lines, tokenize=ANALYSIS_TOKENIZER) for lines in (reference, out_1, out_2)]
    comparison = compare_systems(*words, ngram_top=NGRAMS_SHOWN, sentence_top=SENTENCES_SHOWN)
    sources = list(
        Segment.objects.filter(campaign=campaign).order_by("index").values_list("source", flat=True)
    )

    def pairs(differences) -> list[SentencePair]:
        return [
            SentencePair(
                d.index + 1,
                sources[d.index] if d.index < len(sources) else "",
                reference[d.index],
                out_1[d.index],
                out_2[d.index],
                d.bleu_1,
                d.bleu_2,
            )
            for d in differences
        ]

    return SystemComparison(
        runs[system_1].system.name,
        runs[system_2].system.name,
        names[0],
        comparison,
        pairs(comparison.sentences_better_1),
        pairs(comparison.sentences_better_2),
    )
