"""The members page of a campaign: who is in it, adding existing accounts, invitations."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.exports import csv_stream, streaming_response
from annotation.forms import InvitationsCreateForm, MemberAddForm
from annotation.permissions import CAN_MANAGE, CAN_SEE_RESULTS, authorize, can_manage
from annotation.selectors.members import campaign_members, pending_invitations
from annotation.services.campaigns import CampaignError, membership_add
from annotation.services.invitations import InvitationError, invitation_revoke, invitations_create
from annotation.views.errors import refused_to


def invitation_link(request, token: str) -> str:
    # The token goes in the fragment, which browsers never send to a server or in a Referer.
    return request.build_absolute_uri(reverse("invitation-accept")) + "#" + token


def _page(request, *, member_form=None, invitation_form=None):
    campaign = request.campaign
    return render(
        request,
        "campaigns/members.html",
        {
            "campaign": campaign,
            "can_manage": can_manage(request.role),
            "members": campaign_members(campaign),
            "invitations": pending_invitations(campaign),
            "member_form": member_form or MemberAddForm(),
            "invitation_form": invitation_form or InvitationsCreateForm(),
        },
    )


@login_required
@authorize(CAN_SEE_RESULTS)
def members_page(request, campaign_id: int):
    return _page(request)


@login_required
@require_POST
@authorize(CAN_MANAGE)
def member_add(request, campaign_id: int):
    form = MemberAddForm(request.POST)
    if form.is_valid():
        try:
            membership = membership_add(campaign=request.campaign, **form.cleaned_data)
        except CampaignError as error:  # beside the field, the manager's choices kept
            form.add_error("username", str(error))
        else:
            messages.success(
                request, f"{membership.user.username} joined as {membership.get_role_display()}."
            )
            return redirect("campaign-members", campaign_id)
    return _page(request, member_form=form)


@login_required
@require_POST
@authorize(CAN_MANAGE)
def invitation_add(request, campaign_id: int):
    """One link or many; shown once on a page, or downloaded as CSV (Appraise's manifest)."""
    campaign = request.campaign
    form = InvitationsCreateForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            created = invitations_create(
                campaign=campaign,
                created_by=request.user,
                count=data["count"],
                role=data["role"],
                days=data["days"],
                note=data["note"],
            )
        except InvitationError as error:  # beside the form, the manager's choices kept
            form.add_error(None, str(error))
        else:
            rows = [
                (
                    invitation.id,
                    invitation.role,
                    invitation_link(request, token),
                    invitation.expires_at.isoformat(timespec="seconds"),
                    invitation.note,
                )
                for invitation, token in created
            ]
            if data["csv"]:
                table = [("invitation", "role", "link", "expires_at", "note"), *rows]
                return streaming_response(
                    csv_stream(table), filename=f"evalsite-{campaign.id}-invitations.csv"
                )
            # Post/redirect/get, so that reloading the links page creates no more invitations.
            # The links wait in the session for that one page, which takes them out.
            request.session[_CREATED] = {
                "campaign": campaign.id,
                "rows": rows,
                "role": data["role"],
                "days": data["days"],
            }
            return redirect("invitations-created", campaign_id)
    return _page(request, invitation_form=form)


_CREATED = "invitations_created"


@login_required
@authorize(CAN_MANAGE)
def invitations_created(request, campaign_id: int):
    """The links just created, shown once: only their hashes are stored."""
    created = request.session.pop(_CREATED, None)
    if not created or created["campaign"] != request.campaign.id:
        messages.warning(
            request,
            "Invitation links are shown once, right after they are made, and not stored: "
            "revoke any you did not send, and create new ones.",
        )
        return redirect("campaign-members", campaign_id)
    return render(
        request,
        "campaigns/invitation.html",
        {
            "campaign": request.campaign,
            "rows": created["rows"],
            "role": created["role"],
            "days": created["days"],
        },
    )


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("campaign-members", "Not revoked: {error}.")
def invitation_revoke_view(request, campaign_id: int, invitation_id: int):
    invitation_revoke(campaign=request.campaign, invitation_id=invitation_id)
    messages.success(request, "Invitation revoked: its link no longer works.")
    return redirect("campaign-members", campaign_id)
