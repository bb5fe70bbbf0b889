"""Error pages: styled, with the site's navigation, for people; JSON for the API."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from annotation.views.errors import server_error

NAV = ('href="/"', 'class="topbar"')


@pytest.mark.django_db
def test_404_page_extends_the_site_with_navigation(client, manager) -> None:
    client.force_login(manager)
    response = client.get("/no/such/page/")
    html = response.content.decode()
    assert response.status_code == 404 and "Not found" in html
    assert all(mark in html for mark in NAV) and 'href="/annotate/"' in html
    assert "manager" in html  # the user's name in the top bar: they know they are logged in


@pytest.mark.django_db
def test_403_page_for_a_role_that_may_not(client, campaign, django_user_model) -> None:
    from annotation.services.campaigns import membership_set

    annotator = django_user_model.objects.create_user("ann")
    membership_set(campaign=campaign, user=annotator, role="annotator")
    client.force_login(annotator)
    response = client.get(f"/campaigns/{campaign.id}/members/")
    html = response.content.decode()
    assert response.status_code == 403 and "Not allowed" in html
    assert "your role in this campaign does not allow this" in html
    assert all(mark in html for mark in NAV)


@pytest.mark.django_db
def test_get_on_a_post_only_url_shows_a_page_not_an_empty_405(client, campaign, manager) -> None:
    client.force_login(manager)
    response = client.get(f"/campaigns/{campaign.id}/invitations/")
    html = response.content.decode()
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert "Not available this way" in html and all(mark in html for mark in NAV)
    logout = client.get("/logout/")  # Django's LogoutView, POST only
    assert logout.status_code == 405 and "Not available this way" in logout.content.decode()


@pytest.mark.django_db
def test_api_errors_stay_json(client, manager) -> None:
    client.force_login(manager)
    missing = client.get("/api/v1/no-such-thing")
    assert missing.status_code == 404 and missing.json() == {
        "error": "Not found.",
        "code": "not_found",
    }
    wrong_method = client.get("/api/v1/judgments")
    assert wrong_method.status_code == 405
    assert wrong_method.json() == {
        "error": 'Method "GET" not allowed.',
        "code": "method_not_allowed",
    }


def test_500_page_needs_no_database_and_api_gets_json() -> None:
    """No django_db mark: a query here (a context processor, the session) would fail."""
    page = server_error(RequestFactory().get("/campaigns/1/"))
    html = page.content.decode()
    assert page.status_code == 500 and "Something went wrong" in html
    assert all(mark in html for mark in NAV) and 'href="/login/"' in html
    api = server_error(RequestFactory().get("/api/v1/campaigns"))
    assert api.status_code == 500 and api["Content-Type"] == "application/json"
