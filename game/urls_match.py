"""URLs of matches (game/views_match.py)."""

from django.urls import URLPattern, path

from game import views_match

urlpatterns: list[URLPattern] = [
    path("rooms/<int:room_id>/match/", views_match.start_match, name="start_match"),
    path("matches/<int:match_id>/", views_match.match_detail, name="match"),
    path("matches/<int:match_id>/stop/", views_match.stop_match, name="stop_match"),
    path("matches/<int:match_id>.json", views_match.match_log, name="match_log"),
]
