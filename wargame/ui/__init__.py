"""wargame.ui."""
