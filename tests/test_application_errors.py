"""The one access decorator (``annotation.permissions.authorize``) and the one application
error with its one handler (``annotation.errors``), on pages and in the API; and the check
that a task belongs to the campaign named, made by the services rather than the views."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.test import RequestFactory
from rest_framework.response import Response
from rest_framework.test import APIClient, APIRequestFactory, force_authenticate
from rest_framework.views import APIView

from annotation.errors import KINDS, ApplicationError
from annotation.http_errors import error_status
from annotation.lib.textfiles import UploadError
from annotation.models import Task
from annotation.permissions import CAN_ANNOTATE, CAN_MANAGE, CAN_SEE_RESULTS, authorize
from annotation.services.campaigns import campaign_create, membership_set
from annotation.services.crowd import CrowdError, task_crowd_link_enable
from annotation.services.judgments import JudgmentError
from annotation.services.tasks import TaskError, task_create

pytestmark = pytest.mark.django_db


@authorize(CAN_SEE_RESULTS)
def results_view(request, campaign_id: int):
    return HttpResponse(f"{request.campaign.name}:{request.role}")


class ManagerApi(APIView):
    @authorize(CAN_MANAGE)
    def get(self, request, campaign_id: int):
        return Response({"campaign": request.campaign.id, "role": request.role})


class AnnotatorTaskApi(APIView):
    @authorize(CAN_ANNOTATE)
    def get(self, request, task_id: int):
        return Response({"task": request.task.id, "campaign": request.campaign.id})


def test_each_kind_has_its_status_and_service_errors_are_application_errors():
    assert [error_status(ApplicationError("x", kind=kind)) for kind in KINDS] == [
        400,
        403,
        404,
        409,
        503,
    ]
    assert error_status(TaskError("no source")) == 400
    assert error_status(TaskError("gone", kind="not_found")) == 404
    conflict = JudgmentError("conflict", "judged already")
    assert conflict.code == conflict.kind == "conflict" and error_status(conflict) == 409
    upload = UploadError("a.txt", "binary", line=3)
    assert isinstance(upload, ApplicationError) and str(upload) == "a.txt, line 3: binary"
    with pytest.raises(ValueError, match="unknown error kind"):
        ApplicationError("x", kind="teapot")


def test_authorize_sets_campaign_and_role_on_a_page(campaign, manager, django_user_model):
    factory = RequestFactory()
    request = factory.get("/")
    request.user = manager
    assert results_view(request, campaign_id=campaign.id).content == b"Test campaign:manager"
    stranger = django_user_model.objects.create_user("stranger")
    annotator = django_user_model.objects.create_user("annotator")
    membership_set(campaign=campaign, user=annotator, role="annotator")
    admin = django_user_model.objects.create_superuser("root")
    for user, error in ((stranger, Http404), (AnonymousUser(), Http404)):
        request.user = user
        with pytest.raises(error):
            results_view(request, campaign_id=campaign.id)
    request.user = annotator
    with pytest.raises(PermissionDenied):
        results_view(request, campaign_id=campaign.id)
    with pytest.raises(Http404):  # an unknown campaign is the same as one of others
        results_view(request, campaign_id=campaign.id + 1000)
    request.user = admin
    assert results_view(request, campaign_id=campaign.id).content == b"Test campaign:admin"


def test_authorize_on_api_methods_campaign_and_task_scoped(
    campaign, manager, launched, loaded_campaign, make_annotator, django_user_model
):
    factory = APIRequestFactory()
    view = ManagerApi.as_view()

    def get(user, **kwargs):
        request = factory.get("/")
        force_authenticate(request, user=user)
        return view(request, **kwargs)

    answer = get(manager, campaign_id=campaign.id)
    assert answer.status_code == 200 and answer.data == {"campaign": campaign.id, "role": "manager"}
    organiser = django_user_model.objects.create_user("org")
    membership_set(campaign=campaign, user=organiser, role="organiser")
    assert get(organiser, campaign_id=campaign.id).status_code == 403
    assert (
        get(django_user_model.objects.create_user("x"), campaign_id=campaign.id).status_code == 404
    )

    task = launched("adequacy")
    draft = task_create(campaign=loaded_campaign, task_type="fluency")
    annotator = make_annotator(loaded_campaign, "ann")
    task_view = AnnotatorTaskApi.as_view()

    def get_task(user, task_id):
        request = factory.get("/")
        force_authenticate(request, user=user)
        return task_view(request, task_id=task_id)

    found = get_task(annotator, task.id)
    assert found.status_code == 200 and found.data == {"task": task.id, "campaign": campaign.id}
    assert get_task(annotator, draft.id).status_code == 404  # annotators never see drafts
    assert get_task(manager, task.id).status_code == 403  # a manager does not annotate
    admin = django_user_model.objects.create_superuser("root")
    assert get_task(admin, task.id).status_code == 404  # nor an admin who is not a member


@pytest.fixture
def other_campaign_task(manager):
    """A draft task of a second campaign the same manager runs."""
    other = campaign_create(
        name="Other campaign", source_language="en", target_language="fr", owner=manager
    )
    return task_create(campaign=other, task_type="fluency")


def test_a_task_of_another_campaign_is_refused_by_the_services_api_and_pages(
    client, loaded_campaign, manager, other_campaign_task
):
    task = other_campaign_task
    api = APIClient()
    api.force_authenticate(manager)
    base = f"/api/v1/campaigns/{loaded_campaign.id}/tasks/{task.id}"
    for method, url in (
        ("post", f"{base}/launch"),
        ("post", f"{base}/pause"),
        ("post", f"{base}/continue"),
        ("patch", base),
        ("delete", base),
    ):
        answer = getattr(api, method)(url, {}, format="json")
        assert answer.status_code == 404, (method, url)
        assert answer.json() == {"error": "no such task in this campaign", "code": "not_found"}
    client.force_login(manager)
    page = f"/campaigns/{loaded_campaign.id}/tasks/{task.id}"
    launch = client.post(f"{page}/launch/", follow=True)
    assert "Not launched: no such task in this campaign." in launch.content.decode()
    crowd = client.post(f"{page}/state/crowd-link/", follow=True)
    assert "Not done: no such task in this campaign." in crowd.content.decode()
    task.refresh_from_db()
    assert task.state == Task.State.DRAFT and not task.crowd_secret
    with pytest.raises(CrowdError, match="no such task") as refused:
        task_crowd_link_enable(task_id=task.id, campaign=loaded_campaign)
    assert refused.value.kind == "not_found"


def test_a_page_error_without_a_way_back_is_the_styled_page_with_the_message(
    client, loaded_campaign, manager
):
    client.force_login(manager)
    answer = client.get(f"/campaigns/{loaded_campaign.id}/results/human/judgments.wmt")
    html = answer.content.decode()
    assert answer.status_code == 400 and "needs ?task= a pairwise or ranking task" in html
    assert 'class="topbar"' in html and "Not done" in html
    api = APIClient()
    api.force_authenticate(manager)
    refused = api.get(f"/api/v1/campaigns/{loaded_campaign.id}/results/human/judgments.wmt")
    assert refused.status_code == 400
    assert refused.json() == {
        "error": "the WMT ranking CSV needs ?task= a pairwise or ranking task",
        "code": "invalid",
    }


def test_an_exclusion_in_a_task_of_another_campaign_is_not_found(
    loaded_campaign, manager, other_campaign_task, launched, make_annotator
):
    annotator = make_annotator(loaded_campaign, "ann")
    api = APIClient()
    api.force_authenticate(manager)
    answer = api.post(
        f"/api/v1/campaigns/{loaded_campaign.id}/results/human/exclusions",
        {"annotator": annotator.id, "excluded": True, "task": other_campaign_task.id},
        format="json",
    )
    assert answer.status_code == 404
    assert answer.json() == {"error": "no such task in this campaign", "code": "not_found"}
