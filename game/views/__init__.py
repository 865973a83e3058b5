"""Page views, one module per concern: rooms (lobby, room pages, joining), play (starting
a game), cpu (CPU seats and playing alone), matches, history (game pages, logs, the
leaderboard). URLs are in game/urls.py."""
