"""The channel groups every push goes to (their names only: no imports, so that the
services and the sockets can both use them)."""


def room_group(room_id: int) -> str:
    """Every socket of the room: the room panel, presence."""
    return f"room.{room_id}"


def watch_group(room_id: int) -> str:
    """The room's sockets that do not play the running game: the spectator view."""
    return f"room.{room_id}.watch"


def user_group(user_id: int) -> str:
    """Every socket of one user: their seat's private view, access notices."""
    return f"user.{user_id}"


def fanout_group(room_id: int) -> str:
    """The server processes serving the room: one per process, each handing a move to
    its own sockets (game/live/fanout.py)."""
    return f"room.{room_id}.fanout"
