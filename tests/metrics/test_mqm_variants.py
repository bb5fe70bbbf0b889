"""Google's MQM TSV variants: Anthea's export in Marot's layout (metadata JSON column, optional
header, side-by-side rows, HOTW-test attention checks, Source issue rows), hand-checked."""

from __future__ import annotations

import io
import json

import pytest

from metrics.cli import main
from metrics.spans import group_ratings, hotw_by_rater, rating_scores, read_mqm_tsv
from metrics.wmt_csv import InputError
from tests.conftest import DATA

ANTHEA = DATA / "mqm-anthea-marot" / "anthea_sxs_export.tsv"
RATER1, RATER2 = "Demo-Project:rater1", "Demo-Project:rater2"


def rows_of(text: str):
    return list(read_mqm_tsv(io.StringIO(text), name="anthea.tsv"))


def test_anthea_export_rows_by_hand():
    rows = rows_of(ANTHEA.read_text(encoding="utf-8"))
    # 15 data lines, one of them metadata only (no rater, category, severity): skipped.
    assert len(rows) == 14
    assert sum(1 for row in rows if row.span is not None) == 8
    assert [row.hotw for row in rows if row.hotw] == ["found", "missed", "found", "missed"]
    first = rows[0]
    assert (first.doc_id, first.seg_id) == ("1", "doc1:English-German:1")
    assert first.target == "Die Hund saß." and (first.span.start, first.span.end) == (4, 8)
    assert first.metadata["evaluation"]["template"] == "MQM-SxS"
    source_issue = rows[3]
    assert source_issue.category == "Source issue" and source_issue.span.side == "source"
    assert source_issue.comment == "typo in the source?"
    assert rows[2].severity == "HOTW-test" and rows[2].category == "Found"


def test_hotw_rows_are_never_errors_and_are_counted_per_rater():
    rows = rows_of(ANTHEA.read_text(encoding="utf-8"))
    assert all(row.span is None for row in rows if row.hotw)
    assert hotw_by_rater(rows) == {RATER1: (2, 1), RATER2: (0, 1)}
    ratings = list(group_ratings(rows))
    assert len(ratings) == 8 and all(rating.rated for rating in ratings)
    checks = {(r.system, r.seg_id, r.rater): [c.found for c in r.checks] for r in ratings}
    assert checks[("sysA", "doc1:English-German:1", RATER1)] == [True]
    assert checks[("sysA", "doc1:English-German:2", RATER1)] == [False]
    assert checks[("sysB", "doc1:English-German:2", RATER2)] == []
    hotw = next(r for r in ratings if r.checks and not r.checks[0].found)
    assert hotw.checks[0].injected == "Es war wram." and hotw.checks[0].kind == "letters-swapped"


def test_scores_by_hand_with_source_issue_weighed_by_severity():
    rows = rows_of(ANTHEA.read_text(encoding="utf-8"))
    ratings = rating_scores(
        (r.system, r.seg_id, r.rater, r.severity, r.category) for r in rows if r.hotw is None
    )
    scores = {
        (system, segment[-1], rater[-1]): score
        for system, segment, rater, score in zip(
            ratings.system, ratings.segment, ratings.rater, ratings.score, strict=True
        )
    }
    assert scores == pytest.approx(
        {
            ("sysA", "1", "1"): 5.1,  # Major + Minor Fluency/Punctuation
            ("sysA", "2", "1"): 1.0,  # Minor Source issue
            ("sysB", "1", "1"): 0.0,
            ("sysB", "2", "1"): 5.0,
            ("sysA", "1", "2"): 0.0,
            ("sysA", "2", "2"): 1.0,
            ("sysB", "1", "2"): 5.0,  # Major Source issue
            ("sysB", "2", "2"): 1.0,  # Minor + Neutral
        }
    )


def test_a_hotw_row_counted_as_an_error_would_change_the_score():
    # Fails if HOTW rows reached the scores: a Found check would weigh nothing, but a
    # rating made only of checks would register a clean rating.
    header = "system\tdoc\tdocSegId\tglobalSegId\trater\tsource\ttarget\tcategory\tseverity\n"
    text = header + "s\td\t1\t1\tr\tsrc\ttgt\tMissed\tHOTW-test\n"
    rows = rows_of(text)
    assert [row.hotw for row in rows] == ["missed"]
    (rating,) = group_ratings(rows)
    assert not rating.rated and rating.spans == ()


def test_marot_file_without_header_and_with_a_legacy_note():
    lines = ANTHEA.read_text(encoding="utf-8").splitlines(keepends=True)[1:]
    fields = lines[1].rstrip("\n").split("\t")
    fields[9] = "a plain legacy note"
    lines[1] = "\t".join(fields) + "\n"
    rows = rows_of("".join(lines))
    assert len(rows) == 14
    assert rows[1].comment == "a plain legacy note" and rows[1].metadata is None
    assert hotw_by_rater(rows) == {RATER1: (2, 1), RATER2: (0, 1)}


def test_ted_layout_still_reads_the_same():
    ted = DATA / "mqm-ted-zh-en" / "mqm_ted_zhen.tsv"
    with ted.open(encoding="utf-8") as handle:
        rows = list(read_mqm_tsv(handle))
    assert not any(row.hotw for row in rows)
    assert sum(1 for row in rows if row.category == "Source error") == 38


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("s\td\t1\t1\tr\tsrc\ttgt\tMaybe\tHOTW-test\t{}\n", "Found or Missed"),
        ("s\td\t1\t1\tr\tsrc\ttgt\tNo-error\tNo-error\t{oops\n", "not JSON"),
        ("s\td\t1\t1\tr\tsrc\ttgt\tNo-error\tNo-error\t[1]\n", "expected"),
    ],
)
def test_bad_marot_rows_name_their_line(row, problem):
    names = "system doc docSegId globalSegId rater source target category severity metadata"
    header = names.replace(" ", "\t") + "\n"
    if problem == "expected":
        row = row.replace("\t[1]", "\t[1]\textra")
    with pytest.raises(InputError, match=rf"anthea.tsv, line 2: .*{problem}"):
        rows_of(header + row)


def test_cli_reports_hotw_per_rater_and_leaves_it_out_of_the_scores(capsys):
    code = main(["mqm", "--tsv", str(ANTHEA), "--json", "--bootstrap", "0"])
    out = capsys.readouterr().out
    assert code == 0
    report = json.loads(out)
    scores = {row["system"]: row["score"] for row in report["systems"]}
    assert scores == pytest.approx({"sysA": 1.775, "sysB": 2.75})
    assert report["hotw"] == [
        {"rater": RATER1, "found": 2, "missed": 1, "checks": 3, "rate": pytest.approx(2 / 3)},
        {"rater": RATER2, "found": 0, "missed": 1, "checks": 1, "rate": 0.0},
    ]
    assert "HOTW" not in json.dumps(report["errors"])
    code = main(["mqm", "--tsv", str(ANTHEA), "--bootstrap", "0"])
    text = capsys.readouterr().out
    assert code == 0 and f"{RATER1}\t2 / 3 (0.67)" in text
