"""URLs of live play (start a game, …); owned by the live-play layer."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
