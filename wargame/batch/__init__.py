"""wargame.batch."""
