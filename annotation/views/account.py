"""The user's own account page: the API token, how to send it, and a new one on request."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotation.services.logins import token_expires, token_rotate


@login_required
def account_token(request):
    """GET shows the token (none until asked for); POST makes a new one, the old one void."""
    if request.method == "POST":
        had = Token.objects.filter(user=request.user).exists()
        token_rotate(user=request.user)
        messages.success(
            request, "New token made: the old one no longer works." if had else "Token made."
        )
        return redirect("account-token")
    token = Token.objects.filter(user=request.user).first()
    expires = token_expires(created=token.created) if token else None
    return render(
        request,
        "auth/api_token.html",
        {
            "token": token,
            "expires": expires,
            "expired": expires is not None and expires <= timezone.now(),
            "campaigns_url": request.build_absolute_uri(reverse("api-campaigns")),
            "token_url": request.build_absolute_uri(reverse("api-token")),
        },
    )
