"""The Dobon UNO engine (RULES.md); its public names are re-exported by ``game.rules``."""
