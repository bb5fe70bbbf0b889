"""The client's IP address, for the per-address login limit."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """REMOTE_ADDR, or behind ``TRUSTED_PROXY_COUNT`` proxies the address the outermost of
    them saw: each proxy appends to X-Forwarded-For, so entries further left are whatever the
    client chose to send and are not trusted. None if there is no valid address."""
    proxies: int = settings.TRUSTED_PROXY_COUNT
    if proxies > 0:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [h for h in hops if h]
        candidate = hops[-proxies] if len(hops) >= proxies else ""
    else:
        candidate = request.META.get("REMOTE_ADDR", "")
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return None
