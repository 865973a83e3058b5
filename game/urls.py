"""The game app's URLs (these paths are part of the site's contract)."""

from django.urls import URLPattern, path

from game.views import cpu, docs, history, matches, play, ratings, rooms

app_name = "game"
urlpatterns: list[URLPattern] = [
    # rooms, the lobby and joining (game/views/rooms.py)
    path("", rooms.lobby, name="lobby"),
    path("rooms/new/", rooms.create_room, name="create_room"),
    path("rooms/<int:room_id>/", rooms.room_detail, name="room"),
    path("rooms/<int:room_id>/seat/", rooms.take_seat, name="take_seat"),
    path("rooms/<int:room_id>/leave/", rooms.leave_room, name="leave_room"),
    path("rooms/<int:room_id>/settings/", rooms.room_settings, name="room_settings"),
    path(
        "rooms/<int:room_id>/members/<int:user_id>/remove/",
        rooms.remove_member,
        name="remove_member",
    ),
    path(
        "rooms/<int:room_id>/members/<int:user_id>/make-owner/",
        rooms.transfer_ownership,
        name="transfer_ownership",
    ),
    path("rooms/<int:room_id>/invite/rotate/", rooms.rotate_invite, name="rotate_invite"),
    path("how-to-play/", rooms.how_to_play, name="how_to_play"),
    # documents for program authors (game/views/docs.py)
    path("docs/bot-client.py", docs.bot_client, name="bot_client"),
    path("docs/<slug:name>/", docs.doc, name="doc"),
    path("join/", rooms.join_by_code, name="join_by_code"),
    path("join/<str:code>/", rooms.join_by_invite, name="join"),
    # CPU seats and playing alone (game/views/cpu.py)
    path("rooms/<int:room_id>/cpu/", cpu.add_cpu, name="add_cpu"),
    path(
        "rooms/<int:room_id>/cpu/<int:seat_index>/remove/",
        cpu.remove_cpu,
        name="remove_cpu",
    ),
    path("play/cpu/", cpu.play_against_cpu, name="play_against_cpu"),
    # live play (game/views/play.py; the table itself is a websocket: game/live/)
    path("rooms/<int:room_id>/start/", play.start_game, name="start"),
    # history (game/views/history.py)
    path("rooms/<int:room_id>/history/", history.room_history, name="room_history"),
    path("games/<int:game_id>/", history.game_detail, name="game"),
    path("games/<int:game_id>.json", history.game_json, name="game_json"),
    path("leaderboard/", history.leaderboard, name="leaderboard"),
    # skill ratings (game/views/ratings.py, docs/ratings.md)
    path("ratings/", ratings.rating_board, name="ratings"),
    path("leaderboard.json", ratings.leaderboard_json, name="leaderboard_json"),
    # matches (game/views/matches.py)
    path("rooms/<int:room_id>/match/", matches.start_match, name="start_match"),
    path("matches/<int:match_id>/", matches.match_detail, name="match"),
    path("matches/<int:match_id>/stop/", matches.stop_match, name="stop_match"),
    path("matches/<int:match_id>.json", matches.match_log, name="match_log"),
]
