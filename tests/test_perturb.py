"""The attention checks' perturbations (annotation/lib/perturb.py): WMT26's shuffled
candidate and the HOTW error, against the rules they state."""

from __future__ import annotations

import random
import re

import pytest

from annotation.lib.perturb import (
    PerturbationError,
    can_inject,
    can_shuffle,
    hotw_error,
    hotw_units,
    shuffled,
    shuffled_count,
)

ENGLISH = "The committee approved the new budget after a long debate on Tuesday evening."
JAPANESE = "今日は天気がとても良いので公園に散歩に行きましょうと彼は言った"
CHINESE = "这是一个用来测试注意力检查的相当长的中文句子而且还有更多字"


def _words(text: str) -> list[str]:
    return re.findall(r"\S+", text)


@pytest.mark.parametrize("seed", range(30))
def test_five_words_rotated_the_rest_kept(seed: int) -> None:
    made = shuffled(ENGLISH, language="en", rng=random.Random(seed))
    before, after = _words(ENGLISH), _words(made.text)
    moved = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert sorted(before) == sorted(after)  # the same words, only their places changed
    assert 2 <= len(moved) <= 5  # five chosen; equal words may look unmoved
    assert len(made.spans) == 5
    assert made.text != ENGLISH
    # The spaces between the words stay as they were.
    assert re.findall(r"\s+", made.text) == re.findall(r"\s+", ENGLISH)
    for start, end in made.spans:
        assert made.text[start:end] in before


@pytest.mark.parametrize(("text", "language"), [(JAPANESE, "ja"), (CHINESE, "zh-Hans")])
def test_ten_characters_in_unspaced_languages(text: str, language: str) -> None:
    assert shuffled_count(language) == 10
    made = shuffled(text, language=language, rng=random.Random(7))
    assert len(made.spans) == 10
    assert all(end - start == 1 for start, end in made.spans)
    assert sorted(made.text) == sorted(text)
    assert made.text != text


def test_thai_counts_characters_and_korean_words_for_the_shuffle() -> None:
    assert shuffled_count("th") == 10 and shuffled_count("tha_Thai") == 10
    assert shuffled_count("ko") == 5 and shuffled_count("en") == 5


def test_json_brackets_and_code_fences_never_move() -> None:
    text = "```json\n{ a b c d e f g h }\n```"
    for seed in range(20):
        made = shuffled(text, language="en", rng=random.Random(seed))
        assert made.text.startswith("```json\n{ ") and made.text.endswith(" }\n```")


def test_too_short_refused_with_the_reason() -> None:
    assert not can_shuffle("one two three four five", "en")  # needs more than five
    assert can_shuffle("one two three four five six", "en")
    with pytest.raises(PerturbationError, match="more than 5"):
        shuffled("one two three four five", language="en", rng=random.Random(1))
    with pytest.raises(PerturbationError, match="alike"):
        shuffled("la la la la la la la", language="en", rng=random.Random(1))


def test_same_seed_same_result() -> None:
    first = shuffled(ENGLISH, language="en", rng=random.Random(5))
    assert shuffled(ENGLISH, language="en", rng=random.Random(5)) == first


@pytest.mark.parametrize("seed", range(30))
def test_hotw_reverses_an_inner_run_and_says_where(seed: int) -> None:
    made = hotw_error(ENGLISH, language="en", rng=random.Random(seed))
    before, after = _words(ENGLISH), _words(made.text)
    assert after[0] == before[0] and after[-1] == before[-1]
    start, end = made.extent
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed and made.text != ENGLISH
    # The damage lies inside the reported extent, which covers hotw_units words.
    assert len(made.spans) == hotw_units("en") == 4
    assert made.text[:start] == ENGLISH[:start] and made.text[end:] == ENGLISH[end:]
    run = _words(ENGLISH[start:end])
    assert _words(made.text[start:end]) == run[::-1]


def test_hotw_in_characters_for_cjk_and_thai() -> None:
    assert hotw_units("ko") == hotw_units("ja") == hotw_units("th") == 8
    made = hotw_error(CHINESE, language="zh", rng=random.Random(1))
    start, end = made.extent
    assert end - start == 8
    assert made.text[start:end] == CHINESE[start:end][::-1]


def test_hotw_too_short_or_palindromic_refused() -> None:
    assert not can_inject("one two three four five", "en")
    with pytest.raises(PerturbationError):
        hotw_error("a b c d e", language="en", rng=random.Random(1))
    with pytest.raises(PerturbationError, match="reversed"):
        hotw_error("x a a a a a a y", language="en", rng=random.Random(1))
