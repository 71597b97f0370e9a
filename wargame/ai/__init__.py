"""wargame.ai."""
