"""The members page of a campaign: who is in it, adding existing accounts, invitations."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.exports import csv_stream, streaming_response
from annotation.forms import InvitationsCreateForm, MemberAddForm
from annotation.permissions import CAN_MANAGE, CAN_SEE_RESULTS, campaign_for
from annotation.selectors.members import campaign_members, pending_invitations
from annotation.services.campaigns import CampaignError, membership_add
from annotation.services.invitations import InvitationError, invitation_revoke, invitations_create


def invitation_link(request, token: str) -> str:
    # The token goes in the fragment, which browsers never send to a server or in a Referer.
    return request.build_absolute_uri(reverse("invitation-accept")) + "#" + token


def _page(request, campaign, role, *, member_form=None, invitation_form=None):
    can_manage = role in CAN_MANAGE or role == "admin"
    return render(
        request,
        "campaigns/members.html",
        {
            "campaign": campaign,
            "can_manage": can_manage,
            "members": campaign_members(campaign),
            "invitations": pending_invitations(campaign),
            "member_form": member_form or MemberAddForm(),
            "invitation_form": invitation_form or InvitationsCreateForm(),
        },
    )


@login_required
def members_page(request, campaign_id: int):
    campaign, role = campaign_for(request.user, campaign_id, CAN_SEE_RESULTS)
    return _page(request, campaign, role)


@login_required
@require_POST
def member_add(request, campaign_id: int):
    campaign, role = campaign_for(request.user, campaign_id, CAN_MANAGE)
    form = MemberAddForm(request.POST)
    if form.is_valid():
        try:
            membership = membership_add(campaign=campaign, **form.cleaned_data)
        except CampaignError as error:
            form.add_error("username", str(error))
        else:
            messages.success(
                request, f"{membership.user.username} joined as {membership.get_role_display()}."
            )
            return redirect("campaign-members", campaign.id)
    return _page(request, campaign, role, member_form=form)


@login_required
@require_POST
def invitation_add(request, campaign_id: int):
    """One link or many; shown once on a page, or downloaded as CSV (Appraise's manifest)."""
    campaign, role = campaign_for(request.user, campaign_id, CAN_MANAGE)
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
        except InvitationError as error:
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
            return render(
                request,
                "campaigns/invitation.html",
                {"campaign": campaign, "rows": rows, "role": data["role"], "days": data["days"]},
            )
    return _page(request, campaign, role, invitation_form=form)


@login_required
@require_POST
def invitation_revoke_view(request, campaign_id: int, invitation_id: int):
    campaign, _ = campaign_for(request.user, campaign_id, CAN_MANAGE)
    try:
        invitation_revoke(campaign=campaign, invitation_id=invitation_id)
    except InvitationError as error:
        messages.error(request, f"Not revoked: {error}.")
    else:
        messages.success(request, "Invitation revoked: its link no longer works.")
    return redirect("campaign-members", campaign.id)
