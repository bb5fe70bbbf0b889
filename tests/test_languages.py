"""Writing direction and lang of segments from the campaign's language codes."""

from html.parser import HTMLParser

import pytest
from django.template import Context, Template

from annotation.lib.languages import language_tag, text_direction


def test_every_cldr_locale_has_its_cldr_direction():
    """Checked against the Unicode CLDR (Babel's copy): each of its ~1,000 locales."""
    from babel import Locale, localedata

    identifiers = localedata.locale_identifiers()
    assert len(identifiers) > 500
    wrong = []
    for identifier in identifiers:
        cldr = Locale.parse(identifier).text_direction
        expected = "rtl" if cldr == "rtl" else "ltr"  # Mongolian's top-to-bottom: ltr in HTML
        if text_direction(identifier.replace("_", "-")) != expected:
            wrong.append(identifier)
    assert wrong == []


# Directions of codes as campaigns spell them, the brief's examples among them.
RIGHT_TO_LEFT = ["ar", "he", "fa", "ur", "ps", "yi", "ckb", "dv", "sd", "ug", "iw", "ar-EG"]
LEFT_TO_RIGHT = ["en", "de", "zh", "ja", "ru", "hi", "tr", "ku", "az", "en-GB", "zh-Hant", ""]


@pytest.mark.parametrize("code", RIGHT_TO_LEFT)
def test_right_to_left_languages(code):
    assert text_direction(code) == "rtl"


@pytest.mark.parametrize("code", LEFT_TO_RIGHT)
def test_left_to_right_languages(code):
    assert text_direction(code) == "ltr"


@pytest.mark.parametrize(
    ("code", "direction"),
    [
        ("pa-Arab", "rtl"),  # Punjabi in Shahmukhi
        ("pa", "ltr"),  # Punjabi in Gurmukhi
        ("az-Arab", "rtl"),
        ("ku-Arab", "rtl"),
        ("ckb-Latn", "ltr"),  # a script subtag decides over the language
        ("uz-Arab-AF", "rtl"),
        ("AR", "rtl"),
        ("fa_IR", "rtl"),
    ],
)
def test_a_script_subtag_decides(code, direction):
    assert text_direction(code) == direction


@pytest.mark.parametrize(
    ("code", "tag"),
    [("ar", "ar"), ("fa_IR", "fa-IR"), (" he ", "he"), ('x" onload="y', ""), ("", "")],
)
def test_language_tag(code, tag):
    assert language_tag(code) == tag


def test_the_template_tag_writes_both_attributes_escaped():
    template = Template("{% load evalsite %}<p {% text_attrs code %}>")
    assert template.render(Context({"code": "ar"})) == '<p lang="ar" dir="rtl">'
    assert template.render(Context({"code": "de"})) == '<p lang="de" dir="ltr">'
    assert template.render(Context({"code": '"><script>'})) == '<p lang="" dir="ltr">'


# -- every segment of every annotate page ----------------------------------------------------


class SegmentAttributes(HTMLParser):
    """(role, lang, dir) of every element with the class "segment"."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "segment" in (attrs.get("class") or "").split():
            self.found.append((attrs.get("lang"), attrs.get("dir")))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "task_type", ["adequacy", "fluency", "adequacy_fluency", "pairwise", "ranking", "postedit"]
)
def test_every_segment_has_its_languages_direction(client, manager, task_type):
    from annotation.services.campaigns import campaign_create, membership_set
    from annotation.services.imports import upload_import
    from annotation.services.tasks import task_create, task_launch

    campaign = campaign_create(
        name="ar-en", source_language="ar", target_language="en", owner=manager
    )
    source = "".join(f"doc-1\tNASA جملة {i}\n" for i in range(4)).encode()
    upload_import(
        campaign=campaign,
        kind="source",
        files=[("s.tsv", b"doc_id\ttext\n" + source)],
        user=manager,
    )
    upload_import(
        campaign=campaign, kind="reference", name="R", files=[("r.en", b"r\n" * 4)], user=manager
    )
    for name in ("one", "two"):
        data = "".join(f"{name} {i}\n" for i in range(4)).encode()
        upload_import(campaign=campaign, kind="system", files=[(f"{name}.en", data)], user=manager)
    settings = {"ranking_size": 2} if task_type == "ranking" else {}
    if task_type != "fluency":
        settings.update(context_size=1, show_reference=True)
    task = task_create(seed=12345, campaign=campaign, task_type=task_type, **settings)
    task_launch(task_id=task.id)
    membership_set(campaign=campaign, user=manager, role="annotator")
    client.force_login(manager)
    parser = SegmentAttributes()
    parser.feed(client.get(f"/annotate/{task.id}/").content.decode())
    arabic = [found for found in parser.found if found == ("ar", "rtl")]
    english = [found for found in parser.found if found == ("en", "ltr")]
    assert len(arabic) + len(english) == len(parser.found)  # every segment has both attributes
    assert len(english) >= (2 if task_type in ("pairwise", "ranking") else 1)
    if task_type == "fluency":
        assert arabic == []  # the translation alone
    else:
        assert len(arabic) >= 2  # the source and its context
