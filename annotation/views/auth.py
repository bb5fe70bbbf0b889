"""Log-in pages (ours and the admin's) with the lockout of annotation/services/logins.py."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import authenticate
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse

from annotation.lib.client_ip import client_ip
from annotation.services.logins import Lockout, LoginLocked, login_attempt


class LockoutFormMixin:
    """Replaces AuthenticationForm.clean: the password is checked only when no lockout is in
    force, and the outcome is recorded."""

    request: HttpRequest | None
    cleaned_data: dict[str, Any]
    user_cache: Any
    lockout: Lockout | None = None

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            request = self.request
            try:
                self.user_cache = login_attempt(
                    username=username,
                    ip=client_ip(request) if request is not None else None,
                    authenticate=lambda: authenticate(
                        request, username=username, password=password
                    ),
                )
            except LoginLocked as locked:
                self.lockout = locked.lockout
                raise ValidationError(locked.lockout.message, code="locked") from None
            if self.user_cache is None:
                raise self.get_invalid_login_error()  # type: ignore[attr-defined]
            self.confirm_login_allowed(self.user_cache)  # type: ignore[attr-defined]
        return self.cleaned_data


class LoginForm(LockoutFormMixin, AuthenticationForm):
    pass


class AdminLoginForm(LockoutFormMixin, AdminAuthenticationForm):
    pass


def _too_many(response: HttpResponse, form: Any) -> HttpResponse:
    lockout = getattr(form, "lockout", None)
    if lockout is not None:
        response.status_code = 429
        response["Retry-After"] = str(lockout.retry_after)
    return response


class LockoutLoginView(LoginView):
    form_class = LoginForm
    template_name = "auth/login.html"
    redirect_authenticated_user = True

    def form_invalid(self, form: Any) -> HttpResponse:
        return _too_many(super().form_invalid(form), form)


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's login page (with ``admin.site.login_form = AdminLoginForm``, set in
    evalsite/urls.py), answering 429 while locked."""
    response = admin.site.login(request)
    context = getattr(response, "context_data", None) or {}
    return _too_many(response, context.get("form"))
