"""Error spans (ESA and MQM): the span type, file formats, scores, rankings and agreement.

Pure: plain Python and NumPy, no Django; scipy is imported inside the functions that test.
"""

from metrics.spans.agreement import (
    ScoreAgreement,
    SpanOverlap,
    annotator_pairs,
    corpus_span_f1,
    score_agreement,
    span_f1,
    span_overlap,
)
from metrics.spans.appraise import (
    AppraiseScore,
    appraise_segments,
    format_appraise_spans,
    parse_appraise_spans,
    read_appraise_esa,
    write_appraise_esa,
)
from metrics.spans.breakdown import ErrorBreakdown, error_breakdown
from metrics.spans.esa import EsaRanking, EsaSystemScore, rank_esa
from metrics.spans.jsonl import (
    SpanItem,
    read_spans_jsonl,
    span_from_dict,
    span_to_dict,
    write_spans_jsonl,
)
from metrics.spans.mqm import (
    DEFAULT_MQM_WEIGHTS,
    GOOGLE_MQM_CATEGORIES,
    MqmRanking,
    MqmSystemScore,
    MqmWeights,
    Ratings,
    rank_mqm,
    rating_scores,
)
from metrics.spans.mqm_tsv import (
    HotwCheck,
    MqmRating,
    MqmRow,
    group_ratings,
    hotw_by_rater,
    read_mqm_tsv,
    write_mqm_tsv,
    write_ratings,
)
from metrics.spans.significance import combine_stouffer, paired_wilcoxon_greater
from metrics.spans.span import MAJOR, MINOR, Span, SpanError

__all__ = [
    "DEFAULT_MQM_WEIGHTS",
    "GOOGLE_MQM_CATEGORIES",
    "MAJOR",
    "MINOR",
    "AppraiseScore",
    "ErrorBreakdown",
    "EsaRanking",
    "EsaSystemScore",
    "HotwCheck",
    "MqmRanking",
    "MqmRating",
    "MqmRow",
    "MqmSystemScore",
    "MqmWeights",
    "Ratings",
    "ScoreAgreement",
    "Span",
    "SpanError",
    "SpanItem",
    "SpanOverlap",
    "annotator_pairs",
    "appraise_segments",
    "combine_stouffer",
    "corpus_span_f1",
    "error_breakdown",
    "format_appraise_spans",
    "group_ratings",
    "hotw_by_rater",
    "paired_wilcoxon_greater",
    "parse_appraise_spans",
    "rank_esa",
    "rank_mqm",
    "rating_scores",
    "read_appraise_esa",
    "read_mqm_tsv",
    "read_spans_jsonl",
    "score_agreement",
    "span_f1",
    "span_from_dict",
    "span_overlap",
    "span_to_dict",
    "write_appraise_esa",
    "write_mqm_tsv",
    "write_ratings",
    "write_spans_jsonl",
]
