"""wargame.render."""
