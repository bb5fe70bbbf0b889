"""`python -m metrics compare`, run in-process on compare-mt's TED example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from metrics.cli import main

TED = Path(__file__).resolve().parents[1] / "data" / "compare-mt-ted"
FILES = ["--ref", str(TED / "ted.ref.eng"), "--sys1", str(TED / "ted.sys1.eng")]


def ted(name: str) -> list[str]:
    return (TED / name).read_text(encoding="utf-8").split("\n")[:-1]


def sacrebleu_bleu(hypotheses: list[str], references: list[str]) -> str:
    """sacrebleu's BLEU, to four places, on the already tokenised TED files (tokenize="none",
    as compare-mt scores them)."""
    from sacrebleu.metrics import BLEU

    bleu = BLEU(tokenize="none", force=True)
    return f"{bleu.corpus_score(hypotheses, [references]).score:.4f}"


def test_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", *FILES, "--sys2", str(TED / "ted.sys2.eng"), "--json", "--ngrams", "5"]
    assert main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["sentences"] == 2445
    expected = sacrebleu_bleu(ted("ted.sys2.eng"), ted("ted.ref.eng"))
    assert expected == "24.0389"
    assert f"{document['bleu']['sys2']:.4f}" == expected
    words = {row["bucket"]: row for row in document["word_f_measure_by_reference_frequency"]}
    # compare-mt's report: frequency 1 -> 0.3680 / 0.2548
    assert round(words["1"]["sys1"]["f_measure"], 4) == 0.3680
    assert round(words["1"]["sys2"]["f_measure"], 4) == 0.2548
    assert document["ngrams_sys1_better"][0] == {
        "ngram": "phantom",
        "score": pytest.approx(35 / 37),
        "sys1": 34,
        "sys2": 1,
    }
    assert len(document["ngrams_sys2_better"]) == 5
    assert document["sentences_sys1_better"][0]["line"] == 1435
    assert document["sentences_sys1_better"][0]["sys1_minus_sys2"] == pytest.approx(
        83.8501, abs=1e-4
    )


def test_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", *FILES, "--sys2", str(TED / "ted.sys2.eng"), "--sentences", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    # The bucket of references of 10 to 19 words: sacrebleu on those 979 sentences.
    reference, sys1, sys2 = ted("ted.ref.eng"), ted("ted.sys1.eng"), ted("ted.sys2.eng")
    rows = [i for i, line in enumerate(reference) if 10 <= len(line.split()) < 20]
    bleus = [
        sacrebleu_bleu([run[i] for i in rows], [reference[i] for i in rows]) for run in (sys1, sys2)
    ]
    assert (len(rows), *bleus) == (979, "22.0624", "24.8458")
    assert f"[10,20)\t979\t{bleus[0]}\t{bleus[1]}" in out
    assert "\n-5\t107\t93\n" in out  # compare-mt's length-difference counts
    assert "sys2: This is a thrill of self ." in out


def test_detokenised_input_with_a_tokeniser(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "compare",
        "--ref", str(TED / "ted.ref.detok.eng"),
        "--sys1", str(TED / "ted.sys1.detok.eng"),
        "--sys2", str(TED / "ted.sys2.detok.eng"),
        "--tokenize", "13a", "--json", "--ngrams", "1", "--sentences", "1",
    ]  # fmt: skip
    assert main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["sentences"] == 2445
    assert 20 < document["bleu"]["sys1"] < document["bleu"]["sys2"] < 30


def test_refusals(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    assert main(["compare", *FILES, "--sys2", str(short)]) == 2
    assert "system 2 has 1 lines, the reference 2445" in capsys.readouterr().err
    assert main(["compare", *FILES, "--sys2", str(tmp_path / "none.txt")]) == 2
    assert "none.txt" in capsys.readouterr().err
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    assert main(["compare", *FILES, "--sys2", str(binary)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
