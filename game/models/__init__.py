"""The game app's models, one module per concern; every name is re-exported here so
that `from game.models import Game` works (migrations and the admin rely on it).

- rooms: Room, Membership, CPU levels and seat names;
- games: Game, GamePlayer, GameEvent (the engine state and its event log);
- history: the aggregates kept up to date when a game finishes;
- matches: Match, a fixed number of games played in a row.
"""

from game.models.games import Game, GameEvent, GamePlayer
from game.models.history import Counters, DobonTally, PlayerStats, RoomStanding
from game.models.matches import Match, MatchStanding
from game.models.rooms import (
    DEFAULT_SEATS,
    DEFAULT_TIMEOUT,
    MAX_SEATS,
    MAX_TIMEOUT,
    MIN_SEATS,
    MIN_TIMEOUT,
    CpuLevel,
    Membership,
    Room,
    cpu_display_name,
    new_invite_code,
    player_name,
)

__all__ = [
    "DEFAULT_SEATS", "DEFAULT_TIMEOUT", "MAX_SEATS", "MAX_TIMEOUT", "MIN_SEATS", "MIN_TIMEOUT",
    "Counters", "CpuLevel", "DobonTally", "Game", "GameEvent", "GamePlayer", "Match",
    "MatchStanding",
    "Membership", "PlayerStats", "Room", "RoomStanding", "cpu_display_name", "new_invite_code",
    "player_name",
]
