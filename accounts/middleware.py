"""Language choice: Japanese unless the person picked English with the switcher."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers


class ChosenLanguageMiddleware:
    """Activate the language chosen through `set_language` (its cookie), else Japanese.

    Django's LocaleMiddleware would follow the browser's Accept-Language, so most
    visitors abroad — and every headless test browser — would never see the Japanese
    site. The product speaks Japanese by default; English is one click away.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.supported = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        language = chosen if chosen in self.supported else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        patch_vary_headers(response, ("Cookie",))  # the page depends on the language cookie
        return response
