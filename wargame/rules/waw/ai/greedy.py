"""The greedy policy: best shot now, else the best firing position in cover.

It looks one action ahead.  Chits are always activated.  In opportunity fire
and in its own activation it fires the legal shot with the highest expected
damage (exact odds from :meth:`WawRuleset.shot_odds`, the same rule code as the
dice) if that is worth a shot; otherwise it rallies disrupted units and moves a
unit to the reachable hex that best combines firepower on the enemy, cover and
little exposure, then ends the activation.
"""

from __future__ import annotations

from typing import Any

from wargame.engine import Decision

from .. import (
    Activate,
    Dismount,
    EndActivation,
    Fire,
    HoldSupport,
    IndirectFire,
    LayBridge,
    Move,
    Pass,
    Rally,
    RemoveSW,
    ReplaceHQ,
)
from ._common import (
    SideView,
    at,
    best_destination,
    fallback,
    fire_gain,
    indirect_gain,
    replace_hq_choice,
    support_choice,
    sw_removal_choice,
    waw_rules,
)

__all__ = ["GreedyPolicy"]


class GreedyPolicy:
    """Fires at the target with the best expected result; moves to cover and range.

    Args:
        seed: seed for the random fallback (other rule systems); ``None`` uses
            the game seed.
        fire_threshold: least expected damage (in unit values) worth a shot.

    Examples:
        >>> from wargame.engine import Game
        >>> g = Game.from_scenario("test_remagen", seed=1,
        ...                        policies={"pact": GreedyPolicy()})
        >>> g.run(turns=1) is None
        True
    """

    def __init__(self, seed: int | None = None, fire_threshold: float = 0.1) -> None:
        if seed is not None and seed < 0:
            raise ValueError("seed must be >= 0")
        self.seed = seed
        self.fire_threshold = float(fire_threshold)

    def __repr__(self) -> str:
        return f"GreedyPolicy(seed={self.seed})"

    def choose(self, decision: Decision) -> Any:
        """The greedy choice (see the module docstring)."""
        rules = waw_rules(decision)
        acts = list(decision.legal_actions)
        if rules is None:
            return fallback(decision, self.seed)
        for a in acts:
            if isinstance(a, Activate):
                return a
        view = SideView(decision, rules)
        if any(isinstance(a, ReplaceHQ) for a in acts):
            # WaW 1.3.3.3: where the destroyed HQ comes back
            return replace_hq_choice(view, acts)
        if any(isinstance(a, RemoveSW) for a in acts):
            return sw_removal_choice(view, acts)  # the enemy's unplaced SW (1.3.5)
        if any(isinstance(a, HoldSupport) for a in acts):
            # off-map fire support: the best hex a spotter sees, or hold it
            return support_choice(view, acts, 3 * self.fire_threshold)
        fires = [a for a in acts if isinstance(a, Fire)]
        best = max(fires, key=lambda a: fire_gain(view, a), default=None)
        mortar = max(
            (a for a in acts if isinstance(a, IndirectFire)),
            key=lambda a: indirect_gain(view, a),
            default=None,
        )
        if mortar is not None and indirect_gain(view, mortar) >= max(
            self.fire_threshold, fire_gain(view, best) if best is not None else 0.0
        ):
            return mortar  # mortar fire called through a spotter (1.3.4.3)
        if best is not None and fire_gain(view, best) >= self.fire_threshold:
            return best
        if any(isinstance(a, Pass) for a in acts):
            return next(a for a in acts if isinstance(a, Pass))
        return self._act(view, acts)

    def _act(self, view: SideView, acts: list[Any]) -> Any:
        st = view.state
        acting = st.vars.get("acting")
        moves = {
            (a.unit, a.to): a for a in acts if isinstance(a, Move) and not a.with_hq
        }
        if acting is not None and st.units[acting].side == view.side:
            step = self._step(view, st.units[acting], moves)
            if step is not None:
                return step
        for a in acts:
            if isinstance(a, Rally | LayBridge):
                return a  # rally; an MTU-55 on the water lays its bridge
        for a in acts:
            if isinstance(a, Dismount):
                u = st.units[a.unit]
                near, _ = view.nearest(at(u), [at(t) for t in view.targets])
                if near <= 5:
                    return a
        movers = sorted({a.unit for a in moves.values()} - {acting})
        best: tuple[float, Any] | None = None
        for uid in movers:
            u = st.units[uid]
            here = u.position
            score, costly = self._score(view, u)
            gain, _h, path = best_destination(view, u, score, costly=costly)
            gain -= score(here) + costly(here)
            if len(path) > 1 and gain > 0.05 and (best is None or gain > best[0]):
                best = (gain, moves.get((uid, path[1])))
        if best is not None and best[1] is not None:
            return best[1]
        return next(a for a in acts if isinstance(a, EndActivation))

    def _step(self, view: SideView, u: Any, moves: dict[Any, Any]) -> Any:
        score, costly = self._score(view, u)
        _s, _h, path = best_destination(view, u, score, costly=costly)
        if len(path) > 1:
            return moves.get((u.id, path[1]))
        return None

    @staticmethod
    def _score(view: SideView, u: Any) -> Any:
        targets = [at(t) for t in view.targets]

        reach: int = max(view.rules.weapon_reach(u), 1)

        def score(h: str) -> float:
            near, _ = view.nearest(h, targets)
            cover: int = view.board.defence_dice(h)
            # cover, and close to weapon range of the nearest enemy
            return 0.15 * cover - 0.05 * max(0, near - reach)

        def costly(h: str) -> float:
            return view.firepower_at(u, h) - 0.5 * view.threat(u, h)

        return score, costly
