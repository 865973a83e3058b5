"""Websocket URLs: one socket per room page."""

from django.urls import path

from game.live.consumers import RoomConsumer

websocket_urlpatterns = [
    path("ws/rooms/<int:room_id>/", RoomConsumer.as_asgi()),
]
