"""wargame.geo."""
