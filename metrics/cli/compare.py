"""`python -m metrics compare`: compare-mt style error analysis of two systems."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from metrics.analysis import Comparison

# Not a list of choices: that would import sacrebleu whenever the parser is built.
TOKENIZE_HELP = "a sacrebleu tokeniser applied first (13a, intl, char, zh, ...)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare-mt style analysis of two systems against a reference",
        description="For two systems and one reference (plain text, one segment per line):"
        " BLEU by reference length, word F-measure by reference word frequency, the n-grams"
        " one system matches and the other does not, and the sentences whose sentence BLEU"
        " (BLEU+1) differs most. Buckets and matching follow compare-mt (Neubig et al. 2019);"
        " BLEU is sacrebleu's.",
    )
    parser.add_argument("--ref", required=True, metavar="FILE")
    parser.add_argument("--sys1", required=True, metavar="FILE")
    parser.add_argument("--sys2", required=True, metavar="FILE")
    parser.add_argument(
        "--tokenize",
        default="none",
        metavar="NAME",
        help=TOKENIZE_HELP + "; the default, none, means the text is tokenised already and"
        " words are split on whitespace, as compare-mt expects",
    )
    parser.add_argument("--lowercase", action="store_true")
    parser.add_argument("--ngrams", type=int, default=50, metavar="N", help="n-grams listed")
    parser.add_argument("--sentences", type=int, default=10, metavar="N", help="sentences listed")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.set_defaults(func=run)


def _read_lines(path: str) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ValueError(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None


def run(args: argparse.Namespace) -> int:
    from metrics.analysis import compare_systems, tokenise  # imports sacrebleu

    if args.ngrams < 0 or args.sentences < 0:
        print("error: --ngrams and --sentences must be at least 0", file=sys.stderr)
        return 2
    try:
        texts = [_read_lines(path) for path in (args.ref, args.sys1, args.sys2)]
        reference, output_1, output_2 = (
            tokenise(lines, tokenize=args.tokenize, lowercase=args.lowercase) for lines in texts
        )
        result = compare_systems(
            reference, output_1, output_2, ngram_top=args.ngrams, sentence_top=args.sentences
        )
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        document = result.as_dict()
        document["files"] = {"ref": args.ref, "sys1": args.sys1, "sys2": args.sys2}
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return 0
    _print_report(result, reference, output_1, output_2)
    return 0


def _print_report(
    result: Comparison,
    reference: list[list[str]],
    output_1: list[list[str]],
    output_2: list[list[str]],
) -> None:
    print(f"BLEU\tsys1 {result.bleu_1:.4f}\tsys2 {result.bleu_2:.4f}")
    print("\n--- BLEU by reference length (words)\nlength\tsentences\tsys1\tsys2")
    for bucket in result.length_buckets:
        print(f"{bucket.label}\t{bucket.sentences}\t{bucket.bleu_1:.4f}\t{bucket.bleu_2:.4f}")
    print("\n--- sentences by output length minus reference length (words)\ndifference\tsys1\tsys2")
    for label, count in result.length_differences_1.items():
        print(f"{label}\t{count}\t{result.length_differences_2[label]}")
    print("\n--- word F-measure by frequency in the reference\nfrequency\tsys1\tsys2")
    for first, second in zip(result.word_buckets_1, result.word_buckets_2, strict=True):
        print(f"{first.label}\t{first.f_measure:.4f}\t{second.f_measure:.4f}")
    for title, items in (
        ("n-grams sys1 matches more than sys2", result.ngrams_better_1),
        ("n-grams sys2 matches more than sys1", result.ngrams_better_2),
    ):
        print(f"\n--- {len(items)} {title} (score = (m1+1)/(m1+m2+2))")
        for item in items:
            ngram = " ".join(item.ngram)
            print(f"{ngram}\t{item.score:.4f} (sys1={item.matches_1}, sys2={item.matches_2})")
    for title, sentences in (
        ("sentences where sys1 > sys2 at sentence BLEU", result.sentences_better_1),
        ("sentences where sys2 > sys1 at sentence BLEU", result.sentences_better_2),
    ):
        print(f"\n--- {len(sentences)} {title}")
        for sentence in sentences:
            index = sentence.index
            print(
                f"line {index + 1}: sys1-sys2={sentence.difference:.4f}, "
                f"sys1={sentence.bleu_1:.4f}, sys2={sentence.bleu_2:.4f}"
            )
            print(f"Ref:  {' '.join(reference[index])}")
            print(f"sys1: {' '.join(output_1[index])}")
            print(f"sys2: {' '.join(output_2[index])}\n")
