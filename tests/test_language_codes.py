"""Campaign language codes: BCP 47 tags (RFC 5646) with a known ISO 639 primary subtag."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation.lib.languages import LanguageCodeError, language_code_normalise
from annotation.models import Campaign
from annotation.services.campaigns import CampaignError, campaign_create

# Examples from RFC 5646, Appendix A, and the codes of WMT test sets; canonical letter case
# as section 2.1.1 of the RFC recommends.
VALID = {
    "en": "en",
    "DE": "de",
    "zh-Hant": "zh-Hant",
    "zh-hant-tw": "zh-Hant-TW",
    "sr-Latn-RS": "sr-Latn-RS",
    "es-419": "es-419",
    "de-CH-1996": "de-CH-1996",
    "sl-rozaj": "sl-rozaj",
    "pt-br": "pt-BR",
    "ckb": "ckb",  # Central Kurdish: ISO 639-3 only
    "deu": "deu",
    "ger": "ger",  # ISO 639-2/B
    "yue": "yue",
}
INVALID = {
    "English": "is not a language code",
    "xx": "'xx' is not an ISO 639 language code",
    "yy": "'yy' is not an ISO 639 language code",
    "qqq": "'qqq' is not an ISO 639 language code",
    "pt_BR": "separates subtags with '-'",
    "en-": "is not a language code",
    "de-DE-": "is not a language code",
    "e": "is not a language code",
    "": "enter a language code",
    "en de": "is not a language code",
}


@pytest.mark.parametrize(("code", "canonical"), VALID.items())
def test_valid_tags_are_accepted_in_canonical_case(code: str, canonical: str) -> None:
    assert language_code_normalise(code) == canonical


@pytest.mark.parametrize(("code", "message"), INVALID.items())
def test_invalid_codes_say_why(code: str, message: str) -> None:
    with pytest.raises(LanguageCodeError, match=message):
        language_code_normalise(code)


@pytest.mark.django_db
def test_campaign_create_refuses_english_to_xx_yy_and_stores_nothing(manager) -> None:
    with pytest.raises(CampaignError, match="source language: 'English' is not a language code"):
        campaign_create(name="c", source_language="English", target_language="de", owner=manager)
    with pytest.raises(CampaignError, match="target language: 'xx yy' is not a language code"):
        campaign_create(name="c", source_language="en", target_language="xx yy", owner=manager)
    assert not Campaign.objects.exists()
    made = campaign_create(name="c", source_language="en", target_language="pt-br", owner=manager)
    assert made.target_language == "pt-BR"


@pytest.mark.django_db
def test_form_and_api_show_the_message(client, manager) -> None:
    client.force_login(manager)
    page = client.post(
        "/campaigns/new/", {"name": "c", "source_language": "English", "target_language": "de"}
    )
    assert page.status_code == 200
    assert "&#x27;English&#x27; is not a language code" in page.content.decode()
    api = APIClient()
    api.force_authenticate(manager)
    response = api.post(
        "/api/v1/campaigns",
        {"name": "c", "source_language": "en", "target_language": "yy"},
        format="json",
    )
    assert response.status_code == 400 and "'yy' is not an ISO 639" in response.json()["error"]
    assert not Campaign.objects.exists()
