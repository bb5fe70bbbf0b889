"""Content-Security-Policy on every response, from ``settings.CONTENT_SECURITY_POLICY``.

Our own few lines rather than Django 6's built-in CSP, so that the same code runs on Django
5.2 LTS. The policy allows scripts and styles from our own origin only: the templates carry
no inline scripts, event handlers or style attributes (tests/browser/test_csp.py checks).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

DEFAULT_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy: str = getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_POLICY)
        # A view that sets its own policy keeps it; an empty setting turns the header off.
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response
