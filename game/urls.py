from django.urls import URLPattern, path

from game import urls_history, urls_match, urls_play, views, views_cpu

app_name = "game"
urlpatterns: list[URLPattern] = [
    path("", views.lobby, name="lobby"),
    path("rooms/new/", views.create_room, name="create_room"),
    path("rooms/<int:room_id>/", views.room_detail, name="room"),
    path("rooms/<int:room_id>/seat/", views.take_seat, name="take_seat"),
    path("rooms/<int:room_id>/leave/", views.leave_room, name="leave_room"),
    path("rooms/<int:room_id>/settings/", views.room_settings, name="room_settings"),
    path(
        "rooms/<int:room_id>/members/<int:user_id>/remove/",
        views.remove_member,
        name="remove_member",
    ),
    path(
        "rooms/<int:room_id>/members/<int:user_id>/make-owner/",
        views.transfer_ownership,
        name="transfer_ownership",
    ),
    path("rooms/<int:room_id>/invite/rotate/", views.rotate_invite, name="rotate_invite"),
    path("how-to-play/", views.how_to_play, name="how_to_play"),
    path("rooms/<int:room_id>/cpu/", views_cpu.add_cpu, name="add_cpu"),
    path(
        "rooms/<int:room_id>/cpu/<int:seat_index>/remove/",
        views_cpu.remove_cpu,
        name="remove_cpu",
    ),
    path("play/cpu/", views_cpu.play_against_cpu, name="play_against_cpu"),
    path("join/", views.join_by_code, name="join_by_code"),
    path("join/<str:code>/", views.join_by_invite, name="join"),
]
urlpatterns += urls_play.urlpatterns
urlpatterns += urls_history.urlpatterns
urlpatterns += urls_match.urlpatterns
