"""URLs of live play (start a game, …); owned by the live-play layer."""

from django.urls import URLPattern, path

from game import views_play

urlpatterns: list[URLPattern] = [
    path("rooms/<int:room_id>/start/", views_play.start_game, name="start"),
]
