"""Error pages: API clients get JSON, whatever URL they got wrong."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404 for URLs that match no route (an id that is not a number, a typo): JSON under
    /api/, as the API's own 404s are; the usual page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)
