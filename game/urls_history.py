"""URLs of the match history (these paths are part of the site's contract)."""

from django.urls import URLPattern, path

from game import views_history

urlpatterns: list[URLPattern] = [
    path("rooms/<int:room_id>/history/", views_history.room_history, name="room_history"),
    path("games/<int:game_id>/", views_history.game_detail, name="game"),
    path("games/<int:game_id>.json", views_history.game_json, name="game_json"),
    path("leaderboard/", views_history.leaderboard, name="leaderboard"),
]
