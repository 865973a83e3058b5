"""The service layer: verb-named functions that do the work views and consumers ask for,
each state change in one transaction, the engines reached through one registry.

- play and lean_moves: starting games, applying actions and timeouts, pushing each
  person their own table (lean_moves: a person's common move on the event loop);
- rooms, house, invites, invite_guesses, stamps, panel: rooms, sitting down, the owner's
  powers, house rules, invites and the limit on guessing them, stamps and the live room
  panel;
- engines: the registry of game kinds (Dobon UNO, trump Dobon) and what each does
  around its engine;
- clock, cpu, limits, matches, programs: the clock of every running game, CPU players,
  the limits on unattended work, matches of N games, seats played by programs;
- history, access, changes, wiring: history aggregates and who may read them, telling
  open sockets about access changes, and the port through which "a game changed"
  reaches the parts that react to it;
- ratings: skill ratings written with a rated game's result, in the transaction that
  settles it (and rebuilt from the stored games);
- health: what /readyz checks (the database and its migrations, Redis, the clock);
- fixed_setups: tests only (a game from a fixed deal).
"""
