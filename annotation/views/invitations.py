"""The invitation landing page: create an account, log in, or join as the user logged in.

The token travels in the link's fragment, which browsers never send; the page's script puts
it in the forms (and asks what it is for with a POST), so no token is ever in a URL a server
sees or logs.
"""

from __future__ import annotations

from datetime import UTC

from django.contrib import messages
from django.contrib.auth import login
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotation.forms import InvitationAcceptForm, InvitationTokenForm
from annotation.http_errors import error_json
from annotation.models import Role
from annotation.services.invitations import (
    InvitationError,
    invitation_accept,
    invitation_join,
    invitation_usable,
)
from annotation.views.auth import LoginForm, _too_many

BACKEND = "django.contrib.auth.backends.ModelBackend"


def _invitation_or_none(token: str):
    try:
        return invitation_usable(token=token) if token else None
    except InvitationError:
        return None


def _joined(request, user, campaign, role: str):
    messages.success(request, f"Welcome, {user.username}: you joined {campaign.name} as {role}.")
    if role == Role.ANNOTATOR:
        return redirect("task-list")
    return redirect("campaign-detail", campaign.id)


def invitation_accept_view(request):
    """GET shows the page; POST ``action`` is ``create`` (a new account, the default),
    ``login`` (an existing account's credentials) or ``join`` (the user logged in)."""
    action = request.POST.get("action", "create") if request.method == "POST" else None
    token = request.POST.get("token", "").strip()
    create_form = InvitationAcceptForm(request.POST if action == "create" else None)
    login_form = LoginForm(
        request, data=request.POST if action == "login" else None, prefix="login"
    )
    join_form = InvitationTokenForm(request.POST if action == "join" else None)
    if action is not None:
        try:
            if action == "create" and create_form.is_valid():
                invitation = invitation_usable(token=token)
                user = invitation_accept(**create_form.cleaned_data)
                login(request, user, backend=BACKEND)
                return _joined(request, user, invitation.campaign, invitation.role)
            if action == "login" and login_form.is_valid():
                invitation = invitation_usable(token=token)
                user = login_form.get_user()
                invitation_join(token=token, user=user)
                login(request, user, backend=BACKEND)
                return _joined(request, user, invitation.campaign, invitation.role)
            if action == "join" and join_form.is_valid():
                if not request.user.is_authenticated:
                    raise InvitationError("log in first, or create an account")
                invitation = invitation_usable(token=token)
                invitation_join(token=token, user=request.user)
                return _joined(request, request.user, invitation.campaign, invitation.role)
        except InvitationError as error:
            form = {"create": create_form, "login": login_form, "join": join_form}.get(action)
            (form or create_form).add_error(None, str(error))
    response = render(
        request,
        "auth/invitation.html",
        {
            "form": create_form,
            "login_form": login_form,
            "join_form": join_form,
            "token": token,
            "invitation": _invitation_or_none(token),
            "action": action,
        },
    )
    return _too_many(response, login_form) if action == "login" else response


@require_POST
def invitation_details(request):
    """What an invitation is for, so the landing page can say it; the token comes in the body."""
    try:
        invitation = invitation_usable(token=request.POST.get("token", ""))
    except InvitationError as error:
        return error_json(str(error), status=404)
    return JsonResponse(
        {
            "campaign": invitation.campaign.name,
            "role": invitation.role,
            "expires_at": invitation.expires_at.astimezone(UTC).isoformat(timespec="seconds"),
        }
    )
