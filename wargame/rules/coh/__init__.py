"""Conflict of Heroes: Awakening the Bear!, 2nd edition (``coh-2e``)."""
