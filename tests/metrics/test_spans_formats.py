"""The span type and the three span formats: Appraise ESA CSV, Google's MQM TSV, JSON Lines."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from metrics.spans import (
    MqmRow,
    Span,
    SpanError,
    SpanItem,
    read_appraise_esa,
    read_mqm_tsv,
    read_spans_jsonl,
    write_appraise_esa,
    write_mqm_tsv,
    write_spans_jsonl,
)
from metrics.wmt_csv import InputError

DATA = Path(__file__).resolve().parents[1] / "data"
ESA_EXPORT = DATA / "esa-appraise-export" / "240521rc6ESA.scores.csv"
MQM_TSV = DATA / "mqm-ted-zh-en" / "mqm_ted_zhen.tsv"


def read_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# -- the span type --------------------------------------------------------------------------


def test_inclusive_end_conversion_points_at_the_same_characters():
    text = "Der Hund bellt."
    # Appraise's {"start_i": 4, "end_i": 7} covers "Hund" (characters 4..7 inclusive).
    span = Span.from_inclusive(4, 7, "minor")
    assert (span.start, span.end) == (4, 8)
    assert text[span.start : span.end] == "Hund"
    assert span.inclusive_end == 7
    assert span.length == 4


def test_missing_content_marker_has_no_position():
    marker = Span.missing("major")
    assert marker.is_missing and marker.start is None and marker.end is None
    assert marker.length == 0 and marker.inclusive_end is None
    zero_width = Span(3, 3, "minor")
    assert not zero_width.is_missing and zero_width.length == 0


@pytest.mark.parametrize(
    ("start", "end", "severity", "side"),
    [
        (5, 2, "minor", "target"),
        (-1, 2, "minor", "target"),
        (1, None, "minor", "target"),
        (0, 1, "", "target"),
        (0, 1, "minor", "reference"),
        (True, 2, "minor", "target"),
    ],
)
def test_impossible_spans_are_refused(start, end, severity, side):
    with pytest.raises(SpanError):
        Span(start, end, severity, side=side)


def test_a_span_past_the_text_is_refused():
    Span(0, 3, "minor").check_within("abc")
    with pytest.raises(SpanError, match="past the end"):
        Span(1, 4, "minor").check_within("abc")


# -- Appraise ESA export ---------------------------------------------------------------------


def test_appraise_export_round_trips_byte_for_byte_where_canonical():
    original = read_text(ESA_EXPORT)
    rows = list(read_appraise_esa(io.StringIO(original, newline="")))
    assert len(rows) == 1203
    written = "".join(write_appraise_esa(rows))
    assert [r for r in read_appraise_esa(io.StringIO(written, newline=""))] == rows
    differing = [
        (ours, theirs)
        for ours, theirs in zip(written.splitlines(), original.splitlines(), strict=True)
        if ours != theirs
    ]
    # Only the six rows whose spans lack "error_type" (a tutorial) are not canonical: the
    # writer adds "error_type": null and changes nothing else.
    assert len(differing) == 6
    for ours, theirs in differing:
        assert '"error_type"' not in theirs
        assert ours.replace(',""error_type"":null', "") == theirs


def test_appraise_spans_keep_offsets_severities_and_the_missing_marker():
    rows = list(read_appraise_esa(io.StringIO(read_text(ESA_EXPORT), newline="")))
    raw = list(csv.reader(io.StringIO(read_text(ESA_EXPORT), newline="")))
    spans = [span for row in rows for span in row.spans]
    entries = [entry for fields in raw for entry in json.loads(fields[9])]
    assert len(spans) == len(entries) == 962
    for span, entry in zip(spans, entries, strict=True):
        if entry["start_i"] == "missing":
            assert span.is_missing
        else:
            assert (span.start, span.end - 1) == (entry["start_i"], entry["end_i"])
        assert span.severity == entry["severity"]
    assert sum(span.is_missing for span in spans) == sum(
        entry["start_i"] == "missing" for entry in entries
    )
    assert {span.severity for span in spans} == {"minor", "major", "undecided"}


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("a,b,1,TGT,eng,deu,50,d#b,False,[],1,2,extra\n", "expected 12 fields"),
        ("a,b,x,TGT,eng,deu,50,d#b,False,[],1,2\n", "itemId"),
        ("a,b,1,TGT,eng,deu,high,d#b,False,[],1,2\n", "score is not a number"),
        ("a,b,1,TGT,eng,deu,50,d#b,maybe,[],1,2\n", "isCompleteDocument"),
        ('a,b,1,TGT,eng,deu,50,d#b,False,"[{""start_i"":5}",1,2\n', "not JSON"),
        (
            'a,b,1,TGT,eng,deu,50,d#b,False,"[{""start_i"":5,""end_i"":2,'
            '""severity"":""minor""}]",1,2\n',
            "before",
        ),
        (
            'a,b,1,TGT,eng,deu,50,d#b,False,"[{""start_i"":""missing"",""end_i"":3,'
            '""severity"":""minor""}]",1,2\n',
            "integers",
        ),
    ],
)
def test_bad_appraise_rows_name_their_line(line, problem):
    good = "a,b,1,TGT,eng,deu,50,d#b,False,[],1,2\n"
    with pytest.raises(InputError, match=rf"export.csv, line 2: .*{problem}"):
        list(read_appraise_esa(io.StringIO(good + line, newline=""), name="export.csv"))


# -- Google's MQM TSV ------------------------------------------------------------------------


def test_mqm_tsv_round_trips_the_ted_file():
    original = read_text(MQM_TSV)
    rows = list(read_mqm_tsv(io.StringIO(original, newline="")))
    assert len(rows) == 9915
    written = "".join(write_mqm_tsv(rows))
    assert list(read_mqm_tsv(io.StringIO(written, newline=""))) == rows
    differing = [
        theirs
        for ours, theirs in zip(written.splitlines(), original.splitlines(), strict=True)
        if ours != theirs
    ]
    # One row of Google's file opens <v> and never closes it; we close it at the end.
    assert len(differing) == 1 and "</v>" not in differing[0]


def test_mqm_spans_point_at_the_marked_text():
    fields = list(
        csv.reader(
            io.StringIO(read_text(MQM_TSV), newline=""), delimiter="\t", quoting=csv.QUOTE_NONE
        )
    )[1:]
    rows = list(read_mqm_tsv(io.StringIO(read_text(MQM_TSV), newline="")))
    marked = re.compile(r"<v>(.*?)(?:</v>|$)")
    sides = {"target": 0, "source": 0, "missing": 0, "none": 0}
    for row, raw in zip(rows, fields, strict=True):
        assert row.category == raw[7] and row.severity.lower() == raw[8].lower()
        if row.span is None:
            sides["none"] += 1
            assert raw[7] == "No-error"
        elif row.span.is_missing:
            sides["missing"] += 1
        else:
            sides[row.span.side] += 1
            text = row.target if row.span.side == "target" else row.source
            expected = marked.search(raw[6] if row.span.side == "target" else raw[5]).group(1)
            assert text[row.span.start : row.span.end] == expected
    # Omissions and source errors are marked in the source (349 rows), clean segments 4297.
    assert sides == {"target": 5269, "source": 349, "missing": 0, "none": 4297}


def test_mqm_tsv_writes_a_missing_marker_without_v_and_reads_it_back():
    text = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
    text += "s\td\t1\t7\tr1\tQuelle\tSource\tAccuracy/Omission\tMajor\tlost a word\n"
    rows = list(read_mqm_tsv(io.StringIO(text)))
    assert rows[0].span == Span.missing("major", "Accuracy/Omission")
    assert rows[0].comment == "lost a word"
    assert "".join(write_mqm_tsv(rows, with_comment=True)) == text


def test_mqm_tsv_writes_tabs_and_line_breaks_as_spaces_and_keeps_the_offsets():
    # A Pearmut source segment held a line break: the download stopped halfway with an error.
    source, target = "Zeile eins\nZeile\tzwei", "line one\r\nline two"
    span = Span(start=15, end=18, severity="minor", category="Fluency/Spelling", side="target")
    assert target[15:18] == "two"
    row = MqmRow("s", "d", "1", "7", "r1", source, target, span)
    written = "".join(write_mqm_tsv([row]))
    assert written.count("\n") == 2  # the header and one row
    (back,) = read_mqm_tsv(io.StringIO(written))
    assert back.source == "Zeile eins Zeile zwei"
    assert back.target == "line one  line two"
    assert back.span == span
    assert back.target[back.span.start : back.span.end] == "two"


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("s\td\t1\t7\tr1\tsrc\ttgt\tNo-error\n", "expected"),
        ("s\td\t1\t7\tr1\tsrc\t<v>a</v> <v>b</v>\tStyle/Awkward\tMinor\n", "more than one"),
        ("s\td\t1\t7\tr1\tsrc\tt</v>gt\tStyle/Awkward\tMinor\n", "without <v>"),
        ("s\td\t1\t7\tr1\tsrc\t<v>tgt</v>\tNo-error\tNo-error\n", "No-error row marks"),
    ],
)
def test_bad_mqm_rows_name_their_line(row, problem):
    header = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    with pytest.raises(InputError, match=rf"mqm.tsv, line 2: .*{problem}"):
        list(read_mqm_tsv(io.StringIO(header + row), name="mqm.tsv"))


def test_mqm_tsv_without_its_header_is_refused():
    with pytest.raises(InputError, match="line 1: expected the header"):
        list(read_mqm_tsv(io.StringIO("a\tb\n"), name="mqm.tsv"))


# -- JSON Lines ------------------------------------------------------------------------------


def test_jsonl_round_trips_every_kind_of_span():
    items = [
        SpanItem(
            {"item": "1", "system": "A", "source": "Ein Hund.", "target": "A dog bites."},
            (
                Span(2, 5, "minor", prefilled=True),
                Span(6, 11, "major", "Accuracy/Mistranslation"),
                Span.missing("major"),
                Span(4, 8, "minor", "Source error", side="source"),
                Span(11, 11, "minor"),
            ),
        ),
        SpanItem({"item": "2", "score": 100}, ()),
    ]
    text = "".join(write_spans_jsonl(items))
    assert list(read_spans_jsonl(io.StringIO(text))) == items
    first = json.loads(text.splitlines()[0])
    assert first["spans"][0] == {
        "start": 2,
        "end": 5,
        "severity": "minor",
        "category": None,
        "prefilled": True,
    }
    assert first["spans"][2]["start"] is None and first["spans"][3]["side"] == "source"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            '{"target": "abc", "spans": [{"start": 1, "end": 9, "severity": "minor"}]}',
            "past the end",
        ),
        (
            '{"spans": [{"start": 1, "end": 2, "severity": "minor", "colour": "red"}]}',
            "unknown span keys",
        ),
        ('{"spans": [{"start": "1", "end": 2, "severity": "minor"}]}', "integer or null"),
        ('{"spans": [{"start": 1, "end": 2}]}', "severity"),
        ('{"spans": {}}', "must be a list"),
        ("[1, 2]", "JSON object"),
        ("{nope", "not JSON"),
    ],
)
def test_bad_jsonl_lines_name_their_line(line, problem):
    good = '{"spans": []}\n'
    with pytest.raises(InputError, match=rf"items.jsonl, line 2: .*{problem}"):
        list(read_spans_jsonl(io.StringIO(good + line + "\n"), name="items.jsonl"))


def test_appraise_batch_spans_come_in_as_prefilled():
    from metrics.spans import parse_appraise_spans

    batch_field = [
        {"start_i": 0, "end_i": 2, "severity": "major"},
        {"start_i": "missing", "end_i": "missing", "severity": "minor"},
    ]
    spans = parse_appraise_spans(batch_field, prefilled=True)
    assert spans == (Span(0, 3, "major", prefilled=True), Span.missing("minor", prefilled=True))
    with pytest.raises(ValueError, match="list of objects"):
        parse_appraise_spans({"start_i": 0})  # type: ignore[arg-type]


def test_a_byte_order_mark_is_not_part_of_the_first_field():
    appraise = "\ufeffalice,A,1,TGT,eng,deu,70,d#A,False,[],1,2\n"
    (row,) = read_appraise_esa(io.StringIO(appraise, newline=""))
    assert row.login == "alice"
    tsv = "\ufeffsystem\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    assert list(read_mqm_tsv(io.StringIO(tsv + "s\td\t1\t1\tr\tx\ty\tNo-error\tNo-error\n")))
    (item,) = read_spans_jsonl(io.StringIO('\ufeff{"spans": []}\n'))
    assert item.spans == ()


def test_ratings_group_the_ted_rows_and_write_them_back():
    from metrics.spans import group_ratings, write_ratings

    original = read_text(MQM_TSV)
    rows = list(read_mqm_tsv(io.StringIO(original, newline="")))
    ratings = list(group_ratings(rows))
    # Google's file: 15 systems x 529 segments, one rater each; clean ratings have no span.
    assert len(ratings) == 15 * 529
    assert sum(not r.spans for r in ratings) == 4297
    assert sum(len(r.spans) for r in ratings) == 9915 - 4297
    again = list(group_ratings(read_mqm_tsv(io.StringIO("".join(write_ratings(ratings))))))
    assert again == ratings
