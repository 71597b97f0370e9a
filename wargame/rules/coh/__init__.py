"""Conflict of Heroes: Awakening the Bear!, 2nd edition (ruleset ``coh-2e``)."""
