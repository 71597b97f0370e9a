"""wargame.rules."""
