"""Automatic MT metrics on per-segment statistics: BLEU, chrF, chrF++ and TER (sacrebleu's
sufficient statistics) and the classic metrics of ``metrics.classic`` (METEOR, NIST, WER, PER,
RIBES, LEPOR, hLEPOR, ROUGE-L, GTM, ULC), one registry for all.

Each system is tokenised and matched against the references once per metric, giving a
per-segment statistics matrix. Corpus scores, bootstrap resamples and paired tests are then
computed from sums of its rows, without tokenising again.

Statistics matrix contract (what the service stores):

* ``numpy.float64``, C-contiguous, shape ``(n_segments, n_statistics(metric))``; the columns are
  sacrebleu's ``_extract_corpus_statistics`` output, in its order:

  - ``bleu`` (10): hypothesis length, closest reference length, matching 1..4-grams,
    hypothesis 1..4-grams;
  - ``chrf`` (18) / ``chrf++`` (24): (hypothesis, reference, matching) n-gram counts for
    character orders 1..6, then (chrF++) word orders 1..2;
  - ``ter`` (2): edits, average reference length;
  - the classic metrics: see ``metrics.classic`` and each metric's module (``n_statistics``
    gives the width; ``decomposes`` says whether the columns are sufficient statistics or a
    sentence score and a count).

* ``stats_to_bytes(stats)`` gives little-endian float64 bytes; ``stats_from_bytes(metric, data)``
  restores the matrix (the number of columns is fixed per metric). Several runs of one system
  are stacked as ``(n_runs, n_segments, n_statistics)`` and stored one run at a time.

Scores are on the 0-100 scale, except NIST. ``higher_is_better(metric)`` gives the direction.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from multiprocessing import get_context
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric

from metrics import classic, external, ulc
from metrics.sacrebleu_scores import BLEU_ORDER, FloatArray, bleu_columns, chrf_columns, ter_columns

SACREBLEU_METRICS: Final = ("bleu", "chrf", "chrf++", "ter")
METRICS: Final = (*SACREBLEU_METRICS, *classic.CLASSIC_METRICS, ulc.ULC)
TOKENIZERS: Final = tuple(BLEU.TOKENIZERS)
HIGHER_IS_BETTER: Final = {
    "bleu": True,
    "chrf": True,
    "chrf++": True,
    "ter": False,
    **{key: spec.higher_is_better for key, spec in classic.SPECS.items()},
    ulc.ULC: True,
}

# The one name of each metric, on the pages, in the downloads and in ``metrics score``
# (sacrebleu's signatures say chrF2: beta 2 is chrF's default, and the page says chrF).
LABELS: Final = {
    "bleu": "BLEU",
    "chrf": "chrF",
    "chrf++": "chrF++",
    "ter": "TER",
    **{key: spec.label for key, spec in classic.SPECS.items()},
    classic.ULC: "ULC",
}


def metric_label(metric: str) -> str:
    """``METEOR``, ``ULC`` for every ULC combination, or an uploaded metric's own name."""
    if external.is_external(metric):
        return external.name_of(metric)
    if classic.is_ulc(metric):
        return LABELS[classic.ULC]
    return LABELS.get(metric, metric)


_N_STATS: Final = {"bleu": 2 + 2 * BLEU_ORDER, "chrf": 3 * 6, "chrf++": 3 * (6 + 2), "ter": 2}


def check_metric(metric: str) -> str:
    """Return the lower-case metric key or raise ``ValueError`` for an unknown one; the key of
    an external metric (``metrics.external``) keeps its case."""
    if external.is_external(metric):
        return external.check_key(metric)
    key = metric.lower()
    if ulc.is_ulc(key):
        for name in ulc.names(key):
            check_metric(name)
        return key if key == ulc.ULC else "ulc:" + "+".join(ulc.components(key))
    if key not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    return key


def higher_is_better(metric: str) -> bool:
    """Direction of ``metric``: ``False`` for the error rates (TER, WER, PER)."""
    key = check_metric(metric)
    if external.is_external(key):
        return external.higher_is_better(key)
    return True if ulc.is_ulc(key) else HIGHER_IS_BETTER[key]


def decomposes(metric: str) -> bool:
    """Whether the statistics are sufficient statistics of the corpus score (``False``: they
    are sentence scores with a count, averaged; RIBES, LEPOR, hLEPOR, ROUGE-L, external)."""
    key = check_metric(metric)
    if external.is_external(key):
        return False
    if ulc.is_ulc(key):
        return all(decomposes(m) for m in ulc.components(key))
    return classic.SPECS[key].decomposes if key in classic.SPECS else True


def n_statistics(metric: str) -> int:
    """Number of columns of the statistics matrix of ``metric``."""
    key = check_metric(metric)
    if external.is_external(key):
        return external.N_STATS
    if ulc.is_ulc(key):
        return sum(n_statistics(m) for m in ulc.components(key))
    return classic.n_statistics(key) if key in classic.SPECS else _N_STATS[key]


def make_metric(
    metric: str,
    *,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    references: Sequence[Sequence[str]] | None = None,
) -> Metric:
    """The sacrebleu metric object for ``metric`` with our options.

    ``tokenize`` (BLEU only) is a sacrebleu tokeniser name, default ``13a``. ``lowercase=None``
    keeps sacrebleu's default case handling: case-sensitive BLEU and chrF, case-insensitive TER.
    """
    key = check_metric(metric)
    if key not in SACREBLEU_METRICS:
        raise ValueError(f"{key} is not a sacrebleu metric")
    if tokenize is not None and key != "bleu":
        raise ValueError(f"the tokenize option applies to BLEU and the classic metrics, not {key}")
    if tokenize is not None and tokenize not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenize!r}; expected one of {', '.join(TOKENIZERS)}")
    refs = None if references is None else [list(stream) for stream in references]
    if key == "bleu":
        return BLEU(tokenize=tokenize, lowercase=bool(lowercase), references=refs)
    if key in ("chrf", "chrf++"):
        word_order = 2 if key == "chrf++" else 0
        return CHRF(word_order=word_order, lowercase=bool(lowercase), references=refs)
    return TER(case_sensitive=lowercase is False, references=refs)


def _check_references(references: Sequence[Sequence[str]], n_hypotheses: int | None) -> None:
    if isinstance(references, str) or not references:
        raise ValueError("references must be a non-empty list of reference streams")
    for number, stream in enumerate(references, start=1):
        if isinstance(stream, str):
            raise ValueError("references must be a list of streams (lists of strings)")
        if n_hypotheses is not None and len(stream) != n_hypotheses:
            raise ValueError(
                f"reference stream {number} has {len(stream)} segments "
                f"but there are {n_hypotheses} hypotheses"
            )


def _extract(metric: Metric, width: int, systems: list[list[str]]) -> list[NDArray[np.float64]]:
    """sacrebleu's ``_extract_corpus_statistics`` of each system, segment by segment.

    A segment's statistics depend only on its hypothesis and its references, so systems that
    translate a segment alike (a quarter of WMT21 en-de's segments) share one computation.
    """
    compute = metric._compute_segment_statistics
    if isinstance(metric, BLEU):
        from metrics.segment_statistics import bleu_segment

        compute = partial(bleu_segment, metric)  # the same numbers, faster
    done: dict[tuple[int, str], list[float]] = {}
    out = []
    for hypotheses in systems:
        rows = []
        for i, (hypothesis, ref_kwargs) in enumerate(
            zip(hypotheses, metric._ref_cache, strict=True)
        ):
            row = done.get((i, hypothesis))
            if row is None:
                segment = metric._preprocess_segment(hypothesis)
                row = done[i, hypothesis] = compute(segment, ref_kwargs)
            rows.append(row)
        out.append(np.array(rows, dtype=np.float64).reshape(len(rows), width))
    return out


def extract_statistics(
    metric: str,
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    language: str | None = None,
) -> NDArray[np.float64]:
    """Per-segment statistics of one system (see the module docstring for the layout).

    ``references`` is a list of reference streams, each as long as ``hypotheses``.
    ``tokenize`` applies to BLEU and the classic metrics (default 13a), ``language`` to
    METEOR's stemmer (default english).
    """
    return extract_statistics_many(
        metric,
        [hypotheses],
        references,
        tokenize=tokenize,
        lowercase=lowercase,
        language=language,
    )[0]


def _extract_chunk(
    metric: str,
    systems: list[list[str]],
    references: list[list[str]],
    tokenize: str | None,
    lowercase: bool | None,
    language: str | None = None,
) -> list[NDArray[np.float64]]:
    # The references are analysed once per chunk of systems.
    if ulc.is_ulc(metric):
        parts = [
            _extract_chunk(
                m,
                systems,
                references,
                tokenize if tokenize_applies(m) else None,
                lowercase,
                language,
            )
            for m in ulc.components(metric)
        ]
        return [np.hstack(columns) for columns in zip(*parts, strict=True)]
    if metric in classic.SPECS:
        return classic.extract_systems(
            metric, systems, references, tokenize=tokenize, lowercase=lowercase, language=language
        )
    if metric in ("chrf", "chrf++"):
        # sacrebleu's statistics, vectorised (metrics.segment_statistics).
        from metrics.segment_statistics import chrf_statistics

        fast = chrf_statistics(make_metric(metric, lowercase=lowercase), systems, references)
        if fast is not None:
            return fast
    sacre = make_metric(metric, tokenize=tokenize, lowercase=lowercase, references=references)
    return _extract(sacre, _N_STATS[metric], systems)


def tokenize_applies(key: str) -> bool:
    # chrF works on characters and TER has its own tokeniser, as in sacrebleu.
    return key == "bleu" or key in classic.SPECS


def extract_statistics_many(
    metric: str,
    systems: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    language: str | None = None,
    jobs: int = 1,
) -> list[NDArray[np.float64]]:
    """Statistics of several systems against the same references, in order.

    ``jobs > 1`` spreads the systems over that many spawned processes (not usable from a
    daemonic process such as a Celery prefork worker; keep ``jobs=1`` there).
    """
    key = check_metric(metric)
    n = len(systems[0]) if systems else None
    _check_references(references, n)
    for number, hypotheses in enumerate(systems, start=1):
        if isinstance(hypotheses, str):
            raise ValueError("each system must be a list of segments, not a string")
        if len(hypotheses) != n:
            raise ValueError(f"system {number} has {len(hypotheses)} segments, expected {n}")
    refs = [list(stream) for stream in references]
    hyps = [list(hypotheses) for hypotheses in systems]
    if tokenize is not None and tokenize not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenize!r}; expected one of {', '.join(TOKENIZERS)}")
    if tokenize is not None and not (tokenize_applies(key) or ulc.is_ulc(key)):
        raise ValueError(f"the tokenize option applies to BLEU and the classic metrics, not {key}")
    if not n:
        return [np.empty((0, n_statistics(key))) for _ in hyps]
    jobs = max(1, min(jobs, len(hyps)))
    if jobs == 1:
        return _extract_chunk(key, hyps, refs, tokenize, lowercase, language)
    chunks = [hyps[i::jobs] for i in range(jobs)]
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
        futures = [
            pool.submit(_extract_chunk, key, chunk, refs, tokenize, lowercase, language)
            for chunk in chunks
        ]
        parts = [future.result() for future in futures]
    # Undo the round-robin split.
    out: list[NDArray[np.float64]] = [np.empty(0)] * len(hyps)
    for i, part in enumerate(parts):
        out[i::jobs] = part
    return out


def stats_to_bytes(stats: ArrayLike) -> bytes:
    """Serialise a statistics matrix as little-endian float64 bytes."""
    return np.ascontiguousarray(stats, dtype="<f8").tobytes()


def stats_from_bytes(metric: str, data: bytes) -> NDArray[np.float64]:
    """Inverse of ``stats_to_bytes``: a writable ``(n_segments, n_statistics)`` float64 array."""
    flat = np.frombuffer(data, dtype="<f8").astype(np.float64)
    return flat.reshape(-1, n_statistics(metric))


def scores_from_columns(metric: str, columns: FloatArray) -> FloatArray:
    """``scores_from_sums`` for sums laid out column-major, ``(n_statistics, n_rows)``.

    float32 or float64 only; resampling code builds this layout to avoid a transpose.
    """
    key = check_metric(metric)
    width = n_statistics(key)
    if columns.ndim != 2 or len(columns) != width:
        raise ValueError(f"{key} needs {width} statistics, got shape {columns.shape}")
    if external.is_external(key):
        return external.score_columns(columns)
    if ulc.is_ulc(key):
        parts = ulc.components(key)
        widths = np.cumsum([0] + [n_statistics(m) for m in parts])
        scores = [
            scores_from_columns(m, columns[start:end])
            for m, start, end in zip(parts, widths[:-1], widths[1:], strict=True)
        ]
        return ulc.combine(scores, [higher_is_better(m) for m in parts])
    if key in classic.SPECS:
        return classic.score_function(key)(columns)
    if key == "bleu":
        return bleu_columns(columns)
    if key == "ter":
        return ter_columns(columns)
    return chrf_columns(columns)


def _columns(sums: ArrayLike) -> FloatArray:
    array = np.asarray(sums)
    if array.ndim != 2:
        raise ValueError(f"expected a 2-D matrix of sums, got shape {array.shape}")
    dtype = np.float32 if array.dtype == np.float32 else np.float64
    return np.ascontiguousarray(array.T, dtype=dtype)


def scores_from_sums(metric: str, sums: ArrayLike) -> FloatArray:
    """Corpus scores from an ``(n_rows, n_statistics)`` matrix of summed statistics.

    Equal to sacrebleu's ``_compute_score_from_stats`` row by row. float32 sums reproduce
    sacrebleu's float32 bootstrap arithmetic exactly (BLEU still returns float64, as sacrebleu's
    final log/exp is in double precision); other dtypes are computed in float64.
    """
    return scores_from_columns(metric, _columns(sums))


def corpus_score(metric: str, stats: ArrayLike) -> float:
    """Corpus score of one system from its per-segment statistics (sums in float64)."""
    array = np.asarray(stats, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"expected (n_segments, n_statistics) statistics, got {array.shape}")
    return float(scores_from_sums(metric, array.sum(axis=0, keepdims=True))[0])


def sentence_scores(metric: str, stats: ArrayLike) -> NDArray[np.float64]:
    """Sentence-level score of every row of a statistics matrix.

    chrF, chrF++ and TER equal sacrebleu's ``sentence_score``. BLEU is BLEU+1 (Lin and Och
    2004): one is added to the matching and total n-gram counts for n > 1, with the usual
    brevity penalty (sacrebleu's ``smooth_method="add-k", smooth_value=1``).
    """
    key = check_metric(metric)
    columns = _columns(np.asarray(stats, dtype=np.float64))
    if len(columns) != n_statistics(key):
        raise ValueError(f"{key} needs {n_statistics(key)} statistics, got {len(columns)}")
    if key == "bleu":
        return bleu_columns(columns, plus_one=True)
    return np.asarray(scores_from_columns(key, columns), dtype=np.float64)


def sentence_bleu_plus_one(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    tokenize: str | None = None,
    lowercase: bool | None = None,
) -> NDArray[np.float64]:
    """BLEU+1 of every segment (see ``sentence_scores``), extracting the statistics first."""
    stats = extract_statistics(
        "bleu", hypotheses, references, tokenize=tokenize, lowercase=lowercase
    )
    return sentence_scores("bleu", stats)
