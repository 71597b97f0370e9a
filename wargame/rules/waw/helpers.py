"""World at War public helpers: read-only questions for policies and notebooks.

Unit facts, movement left and paths (WaW 5.0), morale and leadership, weapon
reach (6.1.1), and exact odds computed from the same rule code as the dice
(6.1 fire, 1.3.4.3 mortars and the off-map support chits): ``shot_odds``,
``area_fire_odds`` and :func:`unit_odds`.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from wargame.engine import (
    GameState,
    Unit,
)

from ._common import (
    _ALLOWED,
    STACK_LIMIT,
    UnitInfo,
    _Queries,
)
from .catalog import (
    UnitSide,
    UnitType,
)
from .combat import (
    Strength,
    UnitState,
)
from .unit_attrs import disrupted

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from wargame.engine import Game

#: Exact result odds by (scenario overrides, units, states, range, terrain...).
_ODDS_CACHE: dict[tuple[Any, ...], dict[str, float]] = {}
#: Shared memos per board, then per (overrides, unit ids and types).
_SHARED_MEMOS: weakref.WeakKeyDictionary[Any, dict[Any, dict[Any, Any]]] = (
    weakref.WeakKeyDictionary()
)


class _Helpers(_Queries):
    """Public read-only helpers (mixin of :class:`~.ruleset.WawRuleset`)."""

    _odds_token: str

    # ------------------------------------------------------------------ #
    # public helpers (for AI policies, notebooks and tests): read-only
    # ------------------------------------------------------------------ #
    def unit_info(self, unit_id: str) -> UnitInfo:
        """Static facts of a unit: type, HQ, infantry, carrier, recon, mobility.

        Examples:
            >>> from wargame.engine import Game
            >>> g = Game.from_scenario("test_remagen")
            >>> g.ruleset.unit_info("SU-B1").is_carrier
            True
        """
        return self.info[unit_id]

    def side_values(self, unit: Unit) -> UnitSide:
        """The counter side in use (full or reduced) of a unit."""
        return self._side_vals(unit)

    def movement_left(self, unit: Unit) -> float:
        """Movement points the unit has left this turn (WaW 5.0)."""
        return self._mp(unit) - self._spent(unit)

    def hq_of(self, state: GameState, formation: str | None) -> Unit | None:
        """The HQ unit of a formation (``None`` if it has none)."""
        return self._hq_unit(state, formation)

    def morale(self, state: GameState, formation: str | None) -> int:
        """The morale a formation's units test against (WaW Morale)."""
        return self._morale(state, formation)

    def leadership(self, hq: Unit) -> int:
        """Leadership of an HQ on its current side."""
        return self._leadership(hq)

    def paths(
        self, state: GameState, unit: Unit, *, start: str | None = None
    ) -> Mapping[str, tuple[float, tuple[str, ...]]]:
        """Where a unit can still move this turn: ``hex -> (MP, path)``.

        Cheapest paths (WaW 5.0 costs) within its remaining movement points,
        avoiding enemy hexes and friendly stacks it could not enter (stacking,
        one HQ per hex); boarding a ferry ends a path.  Opportunity fire on the
        way is not foreseen.
        """
        snap = self._snap(state)
        here = start or unit.position
        if not isinstance(here, str):
            return {}
        left = self.movement_left(unit)
        key = ("paths", unit.id, here, left, unit.attrs.get("deployed"))
        hit = snap.memo.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        i = self.info[unit.id]
        enemy = self.enemy_of(unit.side)
        blocked = {h for (h, side), n in snap.combat.items() if side == enemy and n}
        if i.counts:
            blocked |= {
                h
                for (h, side), n in snap.count.items()
                if side == unit.side and n >= STACK_LIMIT and h != here
            }
        hit = snap.memo[key] = self.board.reachable(
            here,
            i.mobility,
            left,
            sorted(blocked),
            self._enter_costs(state, unit),
        )
        return hit

    def area_fire_odds(
        self,
        state: GameState,
        firepower: int,
        to_hit: int,
        weapon: str,
        h: str,
        side: str,
    ) -> list[tuple[Unit, dict[str, float]]]:
        """Exact result odds of indirect or off-map fire at every enemy of ``h``.

        Same rule code as the dice (WaW 1.3.4.3 mortars, support chits): one
        entry per unit of the hex that such fire attacks.
        """
        from .odds import support_result_probabilities

        snap = self._snap(state)
        out = []
        for t in self._combatants(snap, h, self.enemy_of(side)):
            if (
                self.info[t.id].is_helicopter
                or (
                    weapon,
                    self._target_type(t),
                )
                not in _ALLOWED
            ):
                continue
            probs = support_result_probabilities(
                firepower,
                to_hit,
                self.info[t.id].utype,
                kind=weapon,
                terrain_dice=self.board.defence_dice(h)
                + (1 if self._hidden(state, t) else 0),
                target_state=self._ustate(t),
            )
            out.append((t, {k: float(v) for k, v in probs.items()}))
        return out

    def shot_odds(
        self,
        state: GameState,
        attacker: Unit,
        target: Unit,
        *,
        at: str | None = None,
        target_at: str | None = None,
        moving: bool = False,
        weapons: tuple[str, ...] | None = None,
    ) -> tuple[str, dict[str, float]] | None:
        """The attacker's best weapon against a target, and its result odds.

        The exact odds of :func:`~wargame.rules.waw.result_odds` (same rule code
        as the dice) for each weapon that may fire (WaW 6.1: weapon kind, range,
        LOS from ``at`` to ``target_at``; 6.1.3 on the move), keeping the one
        most likely to reduce or destroy.  Positions default to where the units
        are, so "what if I stood there?" can be asked too.  Whose turn it is, Ops
        Complete and disruption are not checked (see ``legal_actions``).

        Returns:
            ``(weapon, {"no effect": p, "disrupted": p, "reduced": p,
            "destroyed": p})`` or ``None`` if no weapon can fire.

        Examples:
            >>> from wargame.engine import Game
            >>> g = Game.from_scenario("test_remagen")
            >>> st = g.state
            >>> w, p = g.ruleset.shot_odds(st, st.units["SU-T1"], st.units["US-INF2"])
            >>> w, round(sum(p.values()), 9)
            ('he', 1.0)
        """
        frm = at or attacker.position
        to = target_at or target.position
        if not isinstance(frm, str) or not isinstance(to, str):
            return None
        # The answer depends on nothing else (see _shot_odds): remembered (a
        # pure function of its key, so play stays the same).
        a_attrs, t_attrs = attacker.attrs, target.attrs
        hidden = bool(t_attrs.get("hiding")) and self._hidden(state, target, target_at)
        smoke = state.vars.get("smoke")
        key = (
            attacker.id,
            attacker.strength,
            a_attrs.get("sw"),
            a_attrs.get("mode"),
            a_attrs.get("mp") if moving else None,
            target.id,
            target.strength,
            disrupted(target),
            t_attrs.get("mode"),
            hidden,
            frm,
            to,
            moving,
            weapons,
            frozenset(h for h, _level in smoke) if smoke else None,
        )
        memo = self.__dict__.get("_shot_memo")
        if memo is None:
            memo = self.__dict__["_shot_memo"] = self._shared_memos().setdefault(
                "shot_odds", {}
            )
        if key in memo:
            return memo[key]  # type: ignore[no-any-return]
        out = memo[key] = self._shot_odds(
            state, attacker, target, frm, to, moving, weapons, hidden
        )
        return out

    def _shared_memos(self) -> dict[str, dict[Any, Any]]:
        """Memos of pure functions (by name) shared by every game in this
        process on this board with the same units (ids and types) and the
        same unit/terrain overrides: :meth:`shot_odds`, the AI's sums."""
        hit = self.__dict__.get("_memos")
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        units = tuple(sorted((uid, i.utype.id) for uid, i in self.info.items()))
        per_board = _SHARED_MEMOS.get(self.board)
        if per_board is None:
            per_board = _SHARED_MEMOS[self.board] = {}
        scope = (self._odds_token, units)
        memos = per_board.get(scope)
        if memos is None or sum(len(m) for m in memos.values()) > 400_000:
            if len(per_board) > 16:
                per_board.clear()
            memos = per_board[scope] = {}
        self.__dict__["_memos"] = memos
        return memos

    def _shot_odds(
        self,
        state: GameState,
        attacker: Unit,
        target: Unit,
        frm: str,
        to: str,
        moving: bool,
        weapons: tuple[str, ...] | None,
        hidden: bool,
    ) -> tuple[str, dict[str, float]] | None:
        """:meth:`shot_odds` from ``frm`` to ``to``, the target ``hidden`` or not.

        What it reads: both units' types, strengths, modes (WaW 9.0) and the
        attacker's SW (1.3.5); the target's Disrupted marker; when ``moving``,
        the attacker's MP spent (6.1.3); the two hexes; and the smoke hexes
        (ground LOS, :meth:`_ground_los`).
        """
        d = self.board.distance(frm, to)
        if d == 0:
            return None
        best: tuple[float, str, dict[str, float]] | None = None
        seen: bool | None = None
        t_type = self.info[target.id].utype
        for kind, real, reach, underlined, a_type, is_sw in self._shot_plan(
            attacker, self._target_type(target)
        ):
            if weapons is not None and kind not in weapons:
                continue
            if d > 1 and d - 1 > reach:
                continue
            if moving and (
                not underlined or self._spent(attacker) > self._mp(attacker) / 2
            ):
                continue
            if seen is None:
                # _los with the distance known (WaW 6.1, 7.0, 9.0 modes, smoke)
                seen = (
                    d <= 1
                    or self._high(attacker)
                    or self._high(target)
                    or (
                        self.board.visible(frm, to) and not self._smoked(state, frm, to)
                    )
                )
            if not seen:
                return None
            p = self._result_odds(
                a_type,
                "full" if is_sw else attacker.strength,
                real,
                t_type,
                target.strength,
                disrupted(target),
                d,
                self.board.terrain[to],
                moving,
                None if is_sw else attacker.attrs.get("mode"),
                hidden,
            )
            score = p["reduced"] + p["destroyed"] + 0.3 * p["disrupted"]
            if best is None or score > best[0]:
                best = (score, kind, p)
        return None if best is None else (best[1], best[2])

    def _result_odds(
        self,
        attacker: UnitType,
        a_strength: str,
        kind: str,
        target: UnitType,
        t_strength: str,
        t_disrupted: bool,
        d: int,
        terrain: str,
        moving: bool,
        mode: str | None = None,
        hidden: bool = False,
    ) -> dict[str, float]:
        key = (
            self._odds_token,
            mode,
            hidden,
            attacker.id,
            a_strength,
            kind,
            target.id,
            t_strength,
            t_disrupted,
            d,
            terrain,
            moving,
        )
        hit = _ODDS_CACHE.get(key)
        if hit is None:
            from .odds import result_probabilities

            probs = result_probabilities(
                attacker,
                target,
                d - 1,
                terrain,
                target_state=UnitState(Strength(t_strength), t_disrupted),
                kind=kind,
                moving=moving,
                attacker_reduced=a_strength == "reduced",
                adjacent=d == 1,
                chart=self.chart,
                attacker_mode=mode,
                concealment_dice=1 if hidden else 0,
            )
            hit = {k: float(v) for k, v in probs.items()}
            if len(_ODDS_CACHE) > 200_000:
                _ODDS_CACHE.clear()
            _ODDS_CACHE[key] = hit
        return hit


def unit_odds(
    game: Game,
    attacker: str,
    target: str,
    *,
    weapon: str | None = None,
    with_hq: bool = False,
    results: bool = False,
) -> pd.Series:
    """Exact odds of one unit of a game firing at another, as things stand.

    Range (from the grid), the target's terrain, both units' strength, fire on the
    move and HQ leadership come from the game; the numbers come from
    :func:`~wargame.rules.waw.odds` / :func:`~wargame.rules.waw.result_odds`, the
    same rule code the dice path uses.  Line of sight and whose turn it is are not
    checked (use :meth:`wargame.engine.Game.legal_actions` for that).

    Args:
        game: a ``waw-classic`` game.
        attacker: firing unit id.
        target: target unit id.
        weapon: ``"ap"``, ``"he"`` or ``"aa"`` (default: the rules' usual choice).
        with_hq: add the leadership of the attacker's HQ in its hex.
        results: P(no effect / disrupted / reduced / destroyed) instead of
            P(net hits).

    Examples:
        >>> from wargame.engine import Game
        >>> g = Game.from_scenario("test_remagen", seed=1)
        >>> p = unit_odds(g, "SU-T1", "US-M1")
        >>> round(float(p.sum()), 9), p.index.name
        (1.0, 'net_hits')
    """
    rules = game.ruleset
    if not isinstance(rules, _Helpers):  # a WawRuleset
        raise TypeError("unit_odds needs a waw-classic game")
    return state_odds(
        rules,
        game.state,
        attacker,
        target,
        weapon=weapon,
        with_hq=with_hq,
        results=results,
    )


def state_odds(
    rules: _Helpers,
    st: GameState,
    attacker: str,
    target: str,
    *,
    weapon: str | None = None,
    with_hq: bool = False,
    results: bool = False,
) -> pd.Series:
    """:func:`unit_odds` for a state of a game of ``rules`` (e.g. a side's view
    or a replayed state)."""
    from .odds import odds, result_odds

    u, t = st.units[attacker], st.units[target]
    if u.destroyed or t.destroyed:
        raise ValueError("both units must be in play")
    d = rules.board.distance(u.position, t.position)  # type: ignore[arg-type]
    lead = 0
    if with_hq:
        snap = rules._snap(st)
        why = rules._why_no_leader(snap, u)
        if why:
            raise ValueError(why)
        lead = rules._leadership(snap.hq[u.position])  # type: ignore[index]
    common: dict[str, Any] = {
        "kind": weapon,
        "moving": rules._spent(u) > 0,
        "attacker_reduced": u.strength == "reduced",
        "leadership": lead,
        "adjacent": d == 1,
        "chart": rules.chart,
        "attacker_mode": u.attrs.get("mode"),
        # WaW 6.1.5: a hiding target's extra defence die
        "concealment_dice": 1 if rules._hidden(st, t) else 0,
    }
    a_type, t_type = rules.info[u.id].utype, rules.info[t.id].utype
    terrain = rules.board.terrain[t.position]  # type: ignore[index]
    if results:
        return result_odds(
            a_type, t_type, d - 1, terrain, target_state=rules._ustate(t), **common
        )
    return odds(
        a_type, t_type, d - 1, terrain, target_reduced=t.strength == "reduced", **common
    )
