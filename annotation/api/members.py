"""REST API for a campaign's members and invitations, and for joining with an invitation."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.fields import StrictCharField, StrictIntegerField
from annotation.models import Role
from annotation.permissions import CAN_MANAGE, CAN_SEE_RESULTS, authorize
from annotation.selectors.members import campaign_members, pending_invitations
from annotation.services.campaigns import membership_add
from annotation.services.invitations import (
    INVITATION_DAYS,
    MAX_INVITATIONS_AT_ONCE,
    invitation_join,
    invitation_revoke,
    invitations_create,
)
from annotation.views.members import invitation_link


class MemberSerializer(serializers.Serializer):
    user_id = serializers.IntegerField()
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=Role.choices)
    judgments = serializers.IntegerField(help_text="Judgments in this campaign")
    last_active = serializers.DateTimeField(
        allow_null=True, help_text="The last judgment in this campaign, else the last log-in"
    )
    joined_at = serializers.DateTimeField()


class MemberListApi(APIView):
    class MemberAddInputSerializer(serializers.Serializer):
        username = StrictCharField(max_length=150)
        role = serializers.ChoiceField(choices=Role.choices)

    @extend_schema(responses=MemberSerializer(many=True))
    @authorize(CAN_SEE_RESULTS)
    def get(self, request, campaign_id: int):
        return Response(MemberSerializer(campaign_members(request.campaign), many=True).data)

    @extend_schema(request=MemberAddInputSerializer, responses={201: MemberSerializer})
    @authorize(CAN_MANAGE)
    def post(self, request, campaign_id: int):
        """Adds an existing account; a member already in the campaign is refused (400)."""
        campaign = request.campaign
        data = self.MemberAddInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = membership_add(campaign=campaign, **data.validated_data)
        (member,) = [m for m in campaign_members(campaign) if m.user_id == membership.user_id]
        return Response(MemberSerializer(member).data, status=status.HTTP_201_CREATED)


class InvitationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    role = serializers.ChoiceField(choices=Role.choices)
    note = serializers.CharField()
    created_by = serializers.CharField(source="created_by.username")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class CreatedInvitationSerializer(InvitationSerializer):
    link = serializers.CharField(help_text="The link to send; the code is in its fragment")
    token = serializers.CharField(help_text="Shown only now: only its hash is stored")


class InvitationListApi(APIView):
    class InvitationCreateInputSerializer(serializers.Serializer):
        role = serializers.ChoiceField(choices=Role.choices, default=Role.ANNOTATOR)
        count = StrictIntegerField(min_value=1, max_value=MAX_INVITATIONS_AT_ONCE, default=1)
        days = StrictIntegerField(min_value=1, max_value=365, default=INVITATION_DAYS)
        note = StrictCharField(max_length=200, required=False, allow_blank=True, default="")

    @extend_schema(responses=InvitationSerializer(many=True))
    @authorize(CAN_SEE_RESULTS)
    def get(self, request, campaign_id: int):
        """The pending invitations: unused and unexpired."""
        invitations = pending_invitations(request.campaign)
        return Response(InvitationSerializer(invitations, many=True).data)

    @extend_schema(
        request=InvitationCreateInputSerializer,
        responses={201: CreatedInvitationSerializer(many=True)},
    )
    @authorize(CAN_MANAGE)
    def post(self, request, campaign_id: int):
        """Creates ``count`` single-use links at once (one by default)."""
        data = self.InvitationCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        created = invitations_create(
            campaign=request.campaign, created_by=request.user, **data.validated_data
        )
        rows = []
        for invitation, token in created:
            invitation.link = invitation_link(request._request, token)
            invitation.token = token
            rows.append(invitation)
        return Response(
            CreatedInvitationSerializer(rows, many=True).data, status=status.HTTP_201_CREATED
        )


class InvitationDetailApi(APIView):
    @extend_schema(request=None, responses={204: None})
    @authorize(CAN_MANAGE)
    def delete(self, request, campaign_id: int, invitation_id: int):
        """Revokes an unused invitation: its link stops working."""
        invitation_revoke(campaign=request.campaign, invitation_id=invitation_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class InvitationJoinApi(APIView):
    """Joins the authenticated user to the invitation's campaign, with its role."""

    class JoinInputSerializer(serializers.Serializer):
        token = StrictCharField(max_length=100)

    class JoinedSerializer(serializers.Serializer):
        campaign = serializers.IntegerField(source="campaign_id")
        role = serializers.ChoiceField(choices=Role.choices)

    @extend_schema(request=JoinInputSerializer, responses={201: JoinedSerializer})
    def post(self, request):
        data = self.JoinInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = invitation_join(token=data.validated_data["token"], user=request.user)
        return Response(self.JoinedSerializer(membership).data, status=status.HTTP_201_CREATED)
