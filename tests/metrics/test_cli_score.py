"""`python -m metrics score`, run in-process, against sacrebleu's Python API."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from nltk.translate.nist_score import corpus_nist
from nltk.translate.ribes_score import corpus_ribes
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.significance import PairedTest

from metrics.automatic import extract_statistics
from metrics.classic._text import tokenize
from metrics.cli import main
from metrics.resampling import paired_approximate_randomization

WMT17 = Path(__file__).resolve().parents[1] / "data" / "wmt17-en-de"
N = 200  # segments: enough for non-trivial tests, small enough to be quick
NAMES = ("LIUM-NMT", "online-B", "xmu")


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


@pytest.fixture(autouse=True)
def _sacrebleu_default_seed(monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict[str, tuple[Path, list[str]]]:
    """The first N lines of the reference and three systems, written to files."""
    folder = tmp_path_factory.mktemp("score")
    out = {}
    sources = {"ref": WMT17 / "reference.txt"}
    sources |= {n: next(WMT17.glob(f"newstest2017.{n}.*.en-de.txt")) for n in NAMES}
    for name, source in sources.items():
        lines = read_lines(source)[:N]
        path = folder / f"{name}.txt"
        path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        out[name] = (path, lines)
    return out


def run_json(capsys, *args: str) -> dict:
    assert main(["score", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def system_args(data, names=NAMES) -> list[str]:
    return [arg for n in names for arg in ("-s", f"{n}={data[n][0]}")]


def test_scores_intervals_and_signatures_equal_sacrebleu(capsys, data):
    ref_path, ref = data["ref"]
    out = run_json(capsys, "-r", str(ref_path), *system_args(data), "--metrics", "bleu,chrf,ter")
    assert [s["name"] for s in out["systems"]] == list(NAMES)
    assert out["pairs"] == [] and out["test"] is None
    for system in out["systems"]:
        hyps = data[system["name"]][1]
        for key, sacre in (("bleu", BLEU()), ("chrf", CHRF()), ("ter", TER())):
            # sacrebleu --confidence: bootstrap of 1000 resamples, seed 12345.
            expected = sacre.corpus_score(hyps, [ref], n_bootstrap=1000)
            got = system["scores"][key]
            assert got["score"] == pytest.approx(expected.score, abs=1e-9)
            assert got["mean"] == pytest.approx(float(expected._mean), abs=1e-6)
            low, high = got["ci"]
            assert (high - low) / 2 == pytest.approx(float(expected._ci), abs=1e-6)
            assert got["signature"] == sacre.get_signature().format()


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_paired_every_pair_and_sacrebleu_p_values(capsys, data, test):
    ref_path, ref = data["ref"]
    out = run_json(capsys, "-r", str(ref_path), *system_args(data), "--paired", test)
    assert out["test"]["type"] == test
    assert [(p["a"], p["b"], p["metric"]) for p in out["pairs"]] == [
        (a, b, m)
        for m in ("bleu", "chrf")
        for a, b in (("LIUM-NMT", "online-B"), ("LIUM-NMT", "xmu"), ("online-B", "xmu"))
    ]
    named = [(n, data[n][1]) for n in NAMES]
    for key, sacre in (("bleu", BLEU(references=[ref])), ("chrf", CHRF(references=[ref]))):
        _, table = PairedTest(named, {key: sacre}, None, test_type=test, n_samples=0)()
        (column,) = (k for k in table if k != "System")
        pairs = [p for p in out["pairs"] if p["metric"] == key and p["a"] == "LIUM-NMT"]
        for pair, result in zip(pairs, table[column][1:], strict=True):
            assert pair["p_value"] == pytest.approx(result.p_value, abs=1e-6)
            assert pair["win_a"] + pair["win_b"] + pair["tie"] == pytest.approx(1.0)


def test_runs_as_comma_list_or_repeated_name(capsys, data):
    ref_path, ref = data["ref"]
    a, b = str(data["online-B"][0]), str(data["xmu"][0])
    common = ["-r", str(ref_path), "-s", f"base={data['LIUM-NMT'][0]}", "--paired", "bs"]
    listed = run_json(capsys, *common, "-s", f"runs={a},{b}", "--metrics", "bleu")
    repeated = run_json(capsys, *common, "-s", f"runs={a}", "-s", f"runs={b}", "--metrics", "bleu")
    reordered = run_json(capsys, *common, "-s", f"runs={b},{a}", "--metrics", "bleu")
    assert listed == repeated
    assert listed["pairs"] == reordered["pairs"]
    runs = listed["systems"][1]
    assert runs["runs"] == 2
    per_run = [BLEU().corpus_score(data[n][1], [ref]).score for n in ("online-B", "xmu")]
    assert runs["scores"]["bleu"]["run_scores"] == pytest.approx(per_run, abs=1e-9)
    assert runs["scores"]["bleu"]["run_std"] == pytest.approx(statistics.stdev(per_run))
    assert listed["systems"][0]["scores"]["bleu"]["run_std"] is None


def test_options_reach_sacrebleu(capsys, data):
    ref_path, ref = data["ref"]
    out = run_json(
        capsys,
        *("-r", str(ref_path), "-r", str(ref_path), *system_args(data, NAMES[:1])),
        *("--tokenize", "intl", "--lowercase", "--samples", "200", "--seed", "5", "--half"),
    )
    bleu = BLEU(tokenize="intl", lowercase=True)
    expected = bleu.corpus_score(data[NAMES[0]][1], [ref, ref])
    got = out["systems"][0]["scores"]["bleu"]
    assert got["score"] == pytest.approx(expected.score, abs=1e-9)
    assert got[
        "signature"
    ] == "nrefs:2|bs:200|seed:5|" + bleu.get_signature().format().removeprefix("nrefs:2|")


def test_same_seed_same_output(capsys, data):
    args = ["-r", str(data["ref"][0]), *system_args(data), "--paired", "ar", "--trials", "999"]
    assert run_json(capsys, *args) == run_json(capsys, *args)


def test_text_table(capsys, data):
    args = ["score", "-r", str(data["ref"][0]), *system_args(data), "--paired", "bs"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "BLEU" in out and "chrF" in out and "p-value" in out
    assert all(name in out for name in NAMES)
    assert "nrefs:1|bs:1000|seed:12345" in out


def bad_input(capsys, *args: str) -> str:
    assert main(["score", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    return captured.err


def test_missing_file(capsys, data, tmp_path):
    missing = tmp_path / "nothere.txt"
    err = bad_input(capsys, "-r", str(data["ref"][0]), "-s", f"x={missing}")
    assert str(missing) in err


def test_line_count_mismatch_names_counts_and_file(capsys, data, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("".join(f"{line}\n" for line in data["xmu"][1][:-1]), encoding="utf-8")
    err = bad_input(capsys, "-r", str(data["ref"][0]), "-s", f"x={short}")
    assert str(short) in err and f"{N - 1} lines" in err and f"has {N}" in err


def test_invalid_utf8_names_line(capsys, data, tmp_path):
    broken = tmp_path / "broken.txt"
    broken.write_bytes(b"fine\nstill fine\nbad \xff byte\n" + b"x\n" * (N - 3))
    err = bad_input(capsys, "-r", str(data["ref"][0]), "-s", f"x={broken}")
    assert str(broken) in err and "line 3" in err and "UTF-8" in err


def test_other_bad_input(capsys, data):
    ref = str(data["ref"][0])
    assert "unknown metric" in bad_input(capsys, "-r", ref, *system_args(data), "--metrics", "x")
    assert "two systems" in bad_input(
        capsys, "-r", ref, *system_args(data, NAMES[:1]), "--paired", "bs"
    )
    assert "positive" in bad_input(capsys, "-r", ref, *system_args(data), "--samples", "0")


CLASSIC = "bleu,chrf,ter,meteor,nist,wer,per,ribes,lepor,rougel,gtm,ulc"


def test_every_metric_with_paired_tests(capsys, data):
    ref_path, ref = data["ref"]
    args = ["-r", str(ref_path), *system_args(data), "--metrics", CLASSIC, "--paired", "bs"]
    out = run_json(capsys, *args, "--language", "german", "--jobs", "2")
    metrics = CLASSIC.split(",")
    assert {p["metric"] for p in out["pairs"]} == set(metrics)
    assert len(out["pairs"]) == 3 * len(metrics)
    tokens_ref = [[tokenize(line, tokenizer="13a", lowercase=True)] for line in ref]
    for system in out["systems"]:
        scores = system["scores"]
        assert list(scores) == metrics
        hyps = data[system["name"]][1]
        tokens = [tokenize(line, tokenizer="13a", lowercase=True) for line in hyps]
        # Independent implementations: nltk's NIST (mteval-v13a) and RIBES (case-sensitive
        # by default, so compared on lower-cased text with --lowercase below).
        assert scores["nist"]["score"] == pytest.approx(corpus_nist(tokens_ref, tokens), rel=1e-9)
        for key in metrics:
            low, high = scores[key]["ci"]
            assert low <= scores[key]["score"] <= high
        assert not scores["wer"]["higher_is_better"] and scores["ribes"]["higher_is_better"]
        assert scores["ribes"]["resamples"] == "sentence scores"
        assert scores["meteor"]["resamples"] == "statistics"
        assert "lang:german" in scores["meteor"]["signature"]
        # ULC: the mean of the other metrics but NIST, each on 0-1, error rates inverted.
        parts = [m for m in metrics if m not in ("nist", "ulc")]
        units = [
            scores[m]["score"] / 100
            if scores[m]["higher_is_better"]
            else 1 - min(scores[m]["score"], 100) / 100
            for m in parts
        ]
        assert scores["ulc"]["score"] == pytest.approx(100 * statistics.fmean(units))
        assert (
            "ulc:bleu+chrf+ter+meteor+wer+per+ribes+lepor+rougel+gtm"
            in (scores["ulc"]["signature"])
        )


def test_lowercase_ribes_equals_nltk_and_ar_p_values_equal_the_library(capsys, data):
    ref_path, ref = data["ref"]
    args = ["-r", str(ref_path), *system_args(data), "--metrics", "ribes,wer", "--lowercase"]
    out = run_json(capsys, *args, "--paired", "ar", "--trials", "999")
    tokens_ref = [[tokenize(line, tokenizer="13a", lowercase=True)] for line in ref]
    stats = {}
    for system in out["systems"]:
        hyps = data[system["name"]][1]
        tokens = [tokenize(line, tokenizer="13a", lowercase=True) for line in hyps]
        expected = 100 * corpus_ribes(tokens_ref, tokens)
        assert system["scores"]["ribes"]["score"] == pytest.approx(expected, rel=1e-9)
        stats[system["name"]] = extract_statistics("ribes", hyps, [ref], lowercase=True)
    library = paired_approximate_randomization("ribes", stats, n_trials=999)
    pairs = [p for p in out["pairs"] if p["metric"] == "ribes"]
    assert [p["p_value"] for p in pairs] == [c.p_value for c in library.pairs]


def test_classic_bad_input(capsys, data):
    ref = str(data["ref"][0])
    systems = system_args(data)
    assert "ULC needs" in bad_input(capsys, "-r", ref, *systems, "--metrics", "nist,ulc")
    assert "no stemmer" in bad_input(
        capsys, "-r", ref, *systems, "--metrics", "meteor", "--language", "klingon"
    )
    assert "no upper bound" in bad_input(capsys, "-r", ref, *systems, "--metrics", "ulc:nist")
