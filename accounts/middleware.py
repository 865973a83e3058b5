"""Language choice: Japanese unless the person picked English with the switcher."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers


def chosen_language(cookies: Mapping[str, str]) -> str:
    """The language picked with the switcher (its cookie) if the site speaks it, else
    Japanese. Pages and the live table's messages both follow this."""
    chosen = cookies.get(settings.LANGUAGE_COOKIE_NAME, "")
    supported = {code for code, _name in settings.LANGUAGES}
    return chosen if chosen in supported else settings.LANGUAGE_CODE


class ChosenLanguageMiddleware:
    """Activate the language chosen through `set_language` (its cookie), else Japanese.

    Django's LocaleMiddleware would follow the browser's Accept-Language, so most
    visitors abroad — and every headless test browser — would never see the Japanese
    site. The product speaks Japanese by default; English is one click away.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = chosen_language(request.COOKIES)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        patch_vary_headers(response, ("Cookie",))  # the page depends on the language cookie
        return response


class PrivateCacheMiddleware:
    """Pages shown to a signed-in person are theirs alone: `Cache-Control: private`, so
    no shared cache (a proxy, a CDN) keeps one and hands it to someone else."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True)
        return response
