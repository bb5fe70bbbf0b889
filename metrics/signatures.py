"""sacrebleu-style signatures of every metric: tokeniser, case, options, matching modules,
resampling settings and version, as stored beside each score."""

from __future__ import annotations

from metrics import classic, external, ulc
from metrics.automatic import check_metric, make_metric


def signature(
    metric: str,
    *,
    n_refs: int = 1,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    bs: int | None = None,
    ar: int | None = None,
    seed: int | None = None,
    language: str | None = None,
) -> str:
    """sacrebleu's signature string, e.g. ``nrefs:1|case:mixed|eff:no|tok:13a|...``.

    ``bs`` (bootstrap resamples), ``ar`` (randomisation trials) and ``seed`` are added as
    sacrebleu does for ``--confidence`` and its paired tests. The classic metrics say their
    options, their matching modules (METEOR), whether their statistics are sufficient or
    sentence scores, and ``version:evalsite-...``.
    """
    key = check_metric(metric)
    if external.is_external(key):
        return external.signature(key, origin="external")
    if classic.is_classic(key):
        return _classic_signature(key, n_refs, tokenize, lowercase, language, bs, ar, seed)
    sacre = make_metric(key, tokenize=tokenize, lowercase=lowercase)
    sacre.num_refs = n_refs  # sacrebleu sets this when it reads the references
    sig = sacre.get_signature()
    if bs is not None:
        sig.update("bs", bs)
    if ar is not None:
        sig.update("ar", ar)
    if seed is not None:
        sig.update("seed", str(seed))
    return str(sig.format())


def _classic_signature(
    key: str,
    n_refs: int,
    tokenize: str | None,
    lowercase: bool | None,
    language: str | None,
    bs: int | None,
    ar: int | None,
    seed: int | None,
) -> str:
    if ulc.is_ulc(key):
        parts = ulc.components(key)
        fields = [f"ulc:{'+'.join(parts)}", "norm:range", f"tok:{tokenize or '13a'}"]
        if "meteor" in parts and language is not None:
            from metrics.classic.meteor import check_language

            fields.append(f"lang:{check_language(language)}")  # METEOR's stemmer
    else:
        fields = classic.signature_fields(key, lowercase=lowercase, tokenize=tokenize)
        if key == "meteor":
            from metrics.classic.meteor import check_language, modules

            lang = check_language(language or "english")
            fields += [f"lang:{lang}", f"mod:{'+'.join(modules(lang))}"]
    tests = [f"{k}:{v}" for k, v in (("bs", bs), ("ar", ar), ("seed", seed)) if v is not None]
    return "|".join([f"nrefs:{n_refs}", *fields, *tests, f"version:evalsite-{classic.VERSION}"])
