"""The game app's models, one module per concern; every name is re-exported here so
that `from game.models import Game` works (migrations and the admin rely on it).

- rooms: Room, Membership, CPU levels and seat names;
- games: Game, GamePlayer, GameEvent (the engine state and its event log);
- history: the aggregates kept up to date when a game finishes, and ended §H14 sessions;
- matches: Match, a fixed number of games played in a row;
- ratings: skill ratings per game and track, and each rated game's changes.
"""

from game.models.games import Game, GameEvent, GamePlayer
from game.models.history import (
    Counters,
    DobonTally,
    PlayerStats,
    RoomSession,
    RoomStanding,
    TrumpPlayerStats,
)
from game.models.matches import Match, MatchStanding
from game.models.ratings import RatedGame, Rating, RatingChange, RatingTrack
from game.models.rooms import (
    DEFAULT_ROUNDS,
    DEFAULT_SEATS,
    DEFAULT_START_POINTS,
    DEFAULT_TIMEOUT,
    MAX_ROUNDS,
    MAX_SEATS,
    MAX_START_POINTS,
    MAX_TIMEOUT,
    MIN_ROUNDS,
    MIN_SEATS,
    MIN_START_POINTS,
    MIN_TIMEOUT,
    TRUMP_SEATS,
    CpuLevel,
    GameKind,
    Membership,
    Room,
    TrumpPreset,
    cpu_display_name,
    new_invite_code,
    player_name,
)

__all__ = [
    "DEFAULT_SEATS", "DEFAULT_TIMEOUT", "MAX_SEATS", "MAX_TIMEOUT", "MIN_SEATS", "MIN_TIMEOUT",
    "DEFAULT_ROUNDS", "DEFAULT_START_POINTS", "MAX_ROUNDS", "MAX_START_POINTS", "MIN_ROUNDS",
    "MIN_START_POINTS", "TRUMP_SEATS", "GameKind", "TrumpPreset",
    "Counters", "CpuLevel", "DobonTally", "Game", "GameEvent", "GamePlayer", "Match",
    "MatchStanding", "RatedGame", "Rating", "RatingChange", "RatingTrack",
    "Membership", "PlayerStats", "Room", "RoomSession", "RoomStanding", "TrumpPlayerStats",
    "cpu_display_name", "new_invite_code", "player_name",
]
