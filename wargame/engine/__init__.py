"""wargame.engine."""
