"""The site's own "not found" page, in its style, also with the laptop defaults.

With DEBUG on (the laptop default), Django answers a dead link with its technical 404
page: unstyled, in English, about URL patterns. People who play on a laptop server see
that page, so this middleware answers with templates/404.html instead (with the path,
for the developer). With DEBUG off, Django's own handler renders the same 404.html, and
500.html for errors (a page that needs no context: nothing else may have worked).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string


def not_found_page(request: HttpRequest) -> HttpResponse:
    context = {"request_path": request.path, "show_path": settings.DEBUG}
    html = render_to_string("404.html", context, request=request)
    return HttpResponse(html, status=404)


class FriendlyNotFoundMiddleware:
    """Place it outside CommonMiddleware, so APPEND_SLASH redirects still happen first."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # No URL pattern matched: Django's technical page (DEBUG) or its default view.
        if (
            settings.DEBUG
            and response.status_code == 404
            and getattr(request, "resolver_match", None) is None
            and not getattr(response, "streaming", False)
        ):
            return not_found_page(request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if settings.DEBUG and isinstance(exception, Http404):
            return not_found_page(request)
        return None
