"""WMT-style bad references, checked against str.split() and hand-worked cases; no database."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from annotation.lib.badref import (
    BadReference,
    NoDonorError,
    SegmentTooShortError,
    bad_reference,
    can_degrade,
    counts_characters,
    degrade,
    phrase_length,
    units,
)

WMT21_REFS = Path(__file__).parent / "data" / "wmt21-en-de" / "newstest2021.en-de.ref.A.de"

# The WMT table, written out: segment length in words -> phrase length.
WORD_BOUNDARIES = [
    (1, 2), (5, 2), (6, 3), (8, 3), (9, 4), (15, 4), (16, 5), (20, 5), (21, 6), (200, 6),
]  # fmt: skip

HEBREW = [
    "הממשלה החליטה אתמול להעלות את מחיר הדלק בחמישה אחוזים",
    "השחקנים יצאו למגרש מול קהל של אלפי אוהדים נלהבים",
    "מחקר חדש מראה שקפה מפחית את הסיכון למחלות לב",
    "הרכבת לירושלים תפסיק לפעול בסוף השבוע בגלל עבודות תשתית",
]
ARABIC = [
    "أعلنت الحكومة أمس عن خطة جديدة لدعم الشركات الصغيرة في المدن",
    "فاز الفريق المحلي بالمباراة النهائية بعد أداء رائع في الشوط الثاني",
    "يقول العلماء إن درجات الحرارة سترتفع بشكل كبير خلال العقود القادمة",
    "افتتح المتحف الوطني معرضا جديدا للفنون الإسلامية القديمة هذا الأسبوع",
]
CHINESE = [
    "政府昨天宣布了一项支持小企业的新计划。",
    "主队在决赛中凭借下半场的出色表现赢得了比赛。",
    "科学家说未来几十年气温将大幅上升。",
    "国家博物馆本周开设了一个新的古代艺术展览。",
]
JAPANESE = [
    "政府は昨日、中小企業を支援する新しい計画を発表した。",
    "地元チームは後半の素晴らしい活躍で決勝戦に勝利した。",
    "科学者によると、今後数十年で気温が大幅に上昇するという。",
    "国立博物館は今週、古代美術の新しい展覧会を開いた。",
]


def split_units(text: str, characters: bool) -> list[str]:
    """Independent of the module's regexes: str.split() words, or non-space characters."""
    return [c for c in text if not c.isspace()] if characters else text.split()


def contains_run(haystack: list[str], run: list[str]) -> bool:
    n = len(run)
    return any(haystack[i : i + n] == run for i in range(len(haystack) - n + 1))


def check(result: BadReference, donors: list[str], language: str) -> None:
    """Every property a bad reference must have, measured on the texts themselves."""
    characters = counts_characters(language)
    before = split_units(result.original, characters)
    after = split_units(result.text, characters)
    n, start = result.length, result.start
    assert n == phrase_length(len(before), language)
    assert len(after) == len(before)
    # One inner run: first and last unit kept, everything outside [start, start + n) kept.
    assert start >= 1 and start + n <= len(before) - 1
    assert after[0] == before[0] and after[-1] == before[-1]
    assert after[:start] == before[:start] and after[start + n :] == before[start + n :]
    run = after[start : start + n]
    donor = split_units(donors[result.donor], characters)
    assert donor[result.donor_start : result.donor_start + n] == run
    assert contains_run(donor, run)
    assert donors[result.donor] != result.original
    assert [u.casefold() for u in run] != [u.casefold() for u in before[start : start + n]]
    assert result.text != result.original


@pytest.mark.parametrize(("words", "expected"), WORD_BOUNDARIES)
def test_phrase_length_table_in_words(words: int, expected: int) -> None:
    assert phrase_length(words, "en") == expected
    assert phrase_length(words, "de-DE") == expected


@pytest.mark.parametrize(("characters", "expected"), WORD_BOUNDARIES)
@pytest.mark.parametrize("language", ["zh", "zh-Hant", "ja", "ja_JP", "cmn", "jpn", "zho"])
def test_phrase_length_table_in_characters_is_doubled(
    characters: int, expected: int, language: str
) -> None:
    assert phrase_length(characters, language) == 2 * expected


def test_chinese_japanese_korean_and_thai_count_characters() -> None:
    for code in ["zh", "ZH-cn", "zh_TW", "ja", "JA-jp", "cmn-Hans", "jpn", "zho", "ko", "th"]:
        assert counts_characters(code)
    for code in ["jpn_Jpan", "tha_Thai", "kor_Hang", "zho_Hant"]:  # WMT's codes
        assert counts_characters(code)
    # "jav" (Javanese) starts with "ja" but is a word language.
    for code in ["en", "de", "ar", "he", "jv", "jav", "", "zu", "thr"]:
        assert not counts_characters(code)


def test_the_damage_is_the_replaced_phrase_in_characters() -> None:
    donors = ["alpha beta gamma delta epsilon zeta eta theta"]
    text = "one two three four five six seven eight"
    made = bad_reference(text, donors, rng=random.Random(1), language="en")
    start, end = made.damage
    assert made.text[start:end] == made.phrase
    assert made.text[:start] == text[:start]
    thai = "วันนี้อากาศดีมากเราไปเดินเล่นที่สวนสาธารณะกันเถอะ"
    made = bad_reference(
        thai, ["ฉันชอบกินข้าวผัดกุ้งกับน้ำปลาพริกมากที่สุด"], rng=random.Random(2), language="th"
    )
    start, end = made.damage
    assert end - start == made.length == phrase_length(len(units(thai, "th")), "th")


@pytest.mark.parametrize(("words", "expected"), WORD_BOUNDARIES[1:-1])
def test_replaced_run_has_table_length_at_every_boundary(words: int, expected: int) -> None:
    # Text and donor share no word, so every replaced word is visibly different.
    text = " ".join(f"w{i}" for i in range(words))
    donors = [" ".join(f"d{i}" for i in range(30))]
    for seed in range(20):
        result = bad_reference(text, donors, rng=random.Random(seed), language="en")
        changed = [
            i for i, (a, b) in enumerate(zip(text.split(), result.text.split(), strict=True))
            if a != b
        ]  # fmt: skip
        assert len(changed) == expected
        assert changed == list(range(changed[0], changed[0] + expected))
        assert changed[0] >= 1 and changed[-1] <= words - 2
        check(result, donors, "en")


# 9 characters take a phrase of 8, which needs 10: the first character length past the boundary
# that can be degraded is 10 (see the too-short test).
@pytest.mark.parametrize(("characters", "expected"), [(8, 3), (10, 4), (15, 4), (16, 5), (20, 5)])
def test_replaced_run_has_doubled_length_in_characters(characters: int, expected: int) -> None:
    text = "".join(chr(0x4E00 + i) for i in range(characters))
    donors = ["".join(chr(0x6000 + i) for i in range(40))]
    for seed in range(20):
        result = degrade(text, donors, rng=random.Random(seed), language="zh")
        changed = [i for i, (a, b) in enumerate(zip(text, result, strict=True)) if a != b]
        assert len(changed) == 2 * expected
        assert changed == list(range(changed[0], changed[0] + 2 * expected))
        assert changed[0] >= 1 and changed[-1] <= characters - 2
    # 21 characters: over 20, a run of 12.
    text = "".join(chr(0x4E00 + i) for i in range(21))
    result = degrade(text, donors, rng=random.Random(0), language="ja")
    assert sum(a != b for a, b in zip(text, result, strict=True)) == 12


def test_real_german_references() -> None:
    refs = WMT21_REFS.read_text(encoding="utf-8").split("\n")[:300]
    refs = [r for r in refs if r]
    rng = random.Random(7)
    degraded = 0
    for i, text in enumerate(refs):
        donors = refs[:i] + refs[i + 1 :]
        if not can_degrade(text, "de"):
            with pytest.raises(SegmentTooShortError):
                bad_reference(text, donors, rng=rng, language="de")
            continue
        check(bad_reference(text, donors, rng=rng, language="de"), donors, "de")
        degraded += 1
    assert degraded > 250


@pytest.mark.parametrize(("language", "texts"), [("he", HEBREW), ("ar", ARABIC)])
def test_right_to_left_text_is_handled_in_logical_order(language: str, texts: list[str]) -> None:
    for seed in range(30):
        rng = random.Random(seed)
        for i, text in enumerate(texts):
            donors = texts[:i] + texts[i + 1 :]
            result = bad_reference(text, donors, rng=rng, language=language)
            check(result, donors, language)
            # The first and last words in reading order are the first and last in storage.
            assert result.text.startswith(text.split()[0] + " ")
            assert result.text.endswith(" " + text.split()[-1])


@pytest.mark.parametrize(("language", "texts"), [("zh", CHINESE), ("ja", JAPANESE)])
def test_chinese_and_japanese_replace_a_run_of_characters(language: str, texts: list[str]) -> None:
    for seed in range(30):
        rng = random.Random(seed)
        for i, text in enumerate(texts):
            donors = texts[:i] + texts[i + 1 :]
            result = bad_reference(text, donors, rng=rng, language=language)
            check(result, donors, language)
            assert len(result.text) == len(text)  # no spaces anywhere: same number of chars
            assert text[result.start + result.length :] in result.text
            assert result.phrase in donors[result.donor]


def test_whitespace_outside_the_phrase_is_kept_and_the_phrase_is_single_spaced() -> None:
    text = "  one  two\tthree four   five six  "  # 6 words: a phrase of 3 starting at word 1 or 2
    donors = ["alpha beta\tgamma"]  # exactly 3 words: the whole donor is the phrase
    outcomes = {
        "  one  alpha beta gamma   five six  ",
        "  one  two\talpha beta gamma six  ",
    }
    seen = {degrade(text, donors, rng=random.Random(seed), language="en") for seed in range(40)}
    assert seen == outcomes


def test_a_donor_phrase_equal_to_the_replaced_one_is_avoided() -> None:
    # 5 words, phrase of 2, inner starts 1 ("b c") and 2 ("c d"); the donor only offers "B  c",
    # equal to the phrase at start 1 but for case and spacing, so only start 2 is usable.
    text = "a b c d e"
    for seed in range(30):
        assert degrade(text, ["B  c"], rng=random.Random(seed), language="en") == "a b B c e"
    # With a usable donor next to an unusable one, the usable one is always taken.
    for seed in range(30):
        result = bad_reference("x y y y z", ["Y y", "p q"], rng=random.Random(seed), language="en")
        assert result.donor == 1
        assert result.text in {"x p q y z", "x y p q z"}


def test_the_text_itself_is_never_a_donor() -> None:
    text = "the quick brown fox jumps over the lazy dog"
    donors = [text, " the quick  brown fox jumps over the lazy dog ", "one two three four five"]
    for seed in range(30):
        result = bad_reference(text, donors, rng=random.Random(seed), language="en")
        assert result.donor == 2
        check(result, donors, "en")


def test_donor_choice_is_random_among_donors_long_enough() -> None:
    text = " ".join(f"w{i}" for i in range(10))  # phrase of 4
    donors = ["a b c", "d e f g", "h i j k l", "m n", "o p q r s t"]
    chosen = {
        bad_reference(text, donors, rng=random.Random(seed), language="en").donor
        for seed in range(200)
    }
    assert chosen == {1, 2, 4}


def test_a_single_usable_donor_among_many_is_found() -> None:
    text = " ".join(f"w{i}" for i in range(12))  # phrase of 4
    donors = ["too short"] * 5000
    donors[3210] = "one two three four"
    for seed in range(5):
        result = bad_reference(text, donors, rng=random.Random(seed), language="en")
        assert result.donor == 3210
        assert result.phrase == "one two three four"


def test_same_seed_same_output() -> None:
    refs = [r for r in WMT21_REFS.read_text(encoding="utf-8").split("\n")[:100] if r]
    text, donors = refs[0], refs[1:]
    runs = [
        [degrade(text, donors, rng=random.Random(seed), language="de") for seed in range(20)]
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    assert len(set(runs[0])) > 10  # and the seed does matter


def test_too_short_segments_raise_a_clear_value_error() -> None:
    donors = ["plenty of words in this donor sentence here"]
    for text in ["", "one", "one two", "one two three"]:  # a phrase of 2 needs 4 words
        assert not can_degrade(text, "en")
        with pytest.raises(SegmentTooShortError, match="needs at least 4"):
            degrade(text, donors, rng=random.Random(0), language="en")
    assert can_degrade("one two three four", "en")
    assert degrade("one two three four", donors, rng=random.Random(0), language="en") != ""
    # Characters: up to 5 → 4 (needs 6, so never), 6-8 → 6 (needs 8), 9-15 → 8 (needs 10).
    for n in [*range(1, 8), 9]:
        text = "".join(chr(0x4E00 + i) for i in range(n))
        assert not can_degrade(text, "zh")
        with pytest.raises(ValueError, match="characters"):
            degrade(text, [CHINESE[0]], rng=random.Random(0), language="zh")
    for n in [8, 10]:
        assert can_degrade("".join(chr(0x4E00 + i) for i in range(n)), "zh")


def test_no_usable_donor_raises_a_clear_value_error() -> None:
    text = "a b c d e f g h i j"  # phrase of 4
    no_donors: list[list[str]] = [
        [],
        ["a b c", "", "x y z"],  # all too short
        [text, "a  b c d e f g h i j "],  # only the text itself
    ]
    for donors in no_donors:
        with pytest.raises(NoDonorError, match="phrase of 4 words"):
            degrade(text, donors, rng=random.Random(0), language="en")
    # A donor phrase equal to one inner phrase ("c d e f") still leaves the other positions.
    for seed in range(10):
        assert degrade(text, ["C d E f"], rng=random.Random(seed), language="en") != text
    # Every donor phrase equals every inner phrase of the text: nothing can differ.
    with pytest.raises(ValueError, match="differs"):
        degrade("x y y y z", ["y Y", "Y y y"], rng=random.Random(0), language="en")
