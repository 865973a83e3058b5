"""Language choice: Japanese unless the person picked English with the switcher."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

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
        remember_language(request, response)
        response.headers.setdefault("Content-Language", language)
        patch_vary_headers(response, ("Cookie",))  # the page depends on the language cookie
        return response


def remember_language(request: HttpRequest, response: HttpResponse) -> None:
    """Keep a signed-in person's language with their account, so that it follows them to
    the next log-in on another browser (issue #33). The latest explicit choice wins: one
    made with the switcher now, or before logging in on this browser; a log-in on a
    browser that never chose gets the account's language (cookie and the next page)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return
    name = settings.LANGUAGE_COOKIE_NAME
    supported = {code for code, _name in settings.LANGUAGES}
    set_now = response.cookies.get(name)
    if set_now is not None and set_now.value in supported:
        _store_language(user, set_now.value)
    elif getattr(request, "logged_in_now", False):
        chosen_here = request.COOKIES.get(name, "")
        if chosen_here in supported:
            _store_language(user, chosen_here)
        elif user.language in supported:
            response.set_cookie(
                name, user.language, max_age=settings.LANGUAGE_COOKIE_AGE,
                path=settings.LANGUAGE_COOKIE_PATH, secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )


def _store_language(user: Any, language: str) -> None:
    if user.language != language:
        user.language = language
        user.save(update_fields=["language"])


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
