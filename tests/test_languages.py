"""Writing direction and lang of segments from the campaign's language codes."""

import pytest
from django.template import Context, Template

from annotation.languages import language_tag, text_direction


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
