"""Failed log-ins, kept only as long as the lockout window needs them."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class LoginFailure(models.Model):
    """One failed password check, by the username tried (whether or not it exists)."""

    username = models.CharField(max_length=150, help_text="normalised: NFKC, case-folded")
    ip = models.GenericIPAddressField(null=True, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["username", "at"], name="login_failure_username_at"),
            models.Index(fields=["ip", "at"], name="login_failure_ip_at"),
            models.Index(fields=["at"], name="login_failure_at"),
        ]
