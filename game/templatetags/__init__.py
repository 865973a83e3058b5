"""Template tags and filters: history (the history pages' card chips, signed points and the
room page's standings panel) and house (naming a room's or a stored game's house rules)."""
