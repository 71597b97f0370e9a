"""World at War policies, beside the rules they play: ``greedy`` and ``doctrine``.

:class:`GreedyPolicy` fires at the target with the best expected result from the
exact odds, otherwise moves to cover within range; :class:`DoctrinePolicy` plays
by objectives (bounds through cover, overwatch, rally near the HQ, hold what was
taken, defer chits when waiting pays).  Both are registered by name in
:mod:`wargame.ai`; :mod:`._common` holds what they share (the side's view and
the values they weigh: the policies' own judgement, not rules).
"""

from __future__ import annotations

from .doctrine import DoctrinePolicy
from .greedy import GreedyPolicy

__all__ = ["DoctrinePolicy", "GreedyPolicy"]
