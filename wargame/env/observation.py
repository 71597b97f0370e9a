"""What one side's agent observes: a dictionary of arrays built from that side's
own view of the state (:meth:`wargame.engine.Game.state_for`), so hidden enemy
units, hands and face-down markers never reach it.

Keys (``H`` hexes of the scenario's map window, ``U`` units of the scenario,
``N`` action slots):

``hex_terrain`` (H,) int8
    generic terrain class (index into :data:`wargame.geo.terrain.TERRAIN_CLASSES`).
``hex_elevation`` (H,) float32
    mean elevation, metres.
``own_units``, ``enemy_units`` (H,) float32
    own units / enemy units the side can see, per hex.
``control`` (H,) float32
    +1 where the side controls a hex (objectives, rule-system control), -1 where
    the enemy does, 0 elsewhere.
``unit_side`` (U,) int8
    +1 own unit, -1 enemy unit in sight, 0 enemy not seen (or none) — in the
    scenario's unit order, so row ``i`` is always the same unit.
``unit_hex`` (U,) int32
    the unit's hex index, -1 off the map, destroyed or unseen.
``unit_destroyed`` (U,) int8
``scalars`` (4,) float32
    turn, turns in the scenario, 1 if this side decides now, number of legal
    actions.
``action_mask`` (N,) int8
    1 for the slots holding a legal action now (PettingZoo's masked-action
    convention, as in its classic games).
``action_features`` (N, 4) int32
    per slot: action type (1 + index in the rule system's sorted action types),
    unit (1 + scenario index), target unit (1 + index) and destination hex
    (1 + hex index); 0 = none. With these an agent can tell what a slot means.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from wargame.engine import Game, GameState, Point
from wargame.geo.terrain import TERRAIN_CLASSES

__all__ = ["Encoder"]

_UNIT_FIELDS = ("unit", "carrier")
_TARGET_FIELDS = ("target",)
_HEX_FIELDS = ("to", "hex")


class Encoder:
    """Turns a side's view of a game into the arrays of its observation.

    Built once per scenario (hex order, unit order, action types), then
    :meth:`encode` is called for every observation.
    """

    def __init__(self, game: Game, max_actions: int) -> None:
        m = game.map
        if m is None:
            raise ValueError(
                "wargame.env: the scenario has no map; the environment needs one"
            )
        hexes = m.hexes
        self.map = m
        self.labels: list[str] = [str(x) for x in hexes.index]
        self.hex_index = {lab: i for i, lab in enumerate(self.labels)}
        terrain = hexes["terrain"]
        codes = (
            terrain.cat.codes.to_numpy()
            if hasattr(terrain, "cat")
            else np.array([TERRAIN_CLASSES.index(str(t)) for t in terrain])
        )
        self.terrain = np.clip(codes, 0, len(TERRAIN_CLASSES) - 1).astype(np.int8)
        elev = hexes["elevation_m"] if "elevation_m" in hexes else np.zeros(len(hexes))
        self.elevation = np.nan_to_num(np.asarray(elev, dtype=np.float32))
        self.unit_ids: list[str] = list(game.initial_state.units)
        self.unit_index = {u: i for i, u in enumerate(self.unit_ids)}
        self.action_types = sorted(game.ruleset.action_types)
        self.type_index = {t: i for i, t in enumerate(self.action_types)}
        self.turns = int(game.scenario.turns)
        self.max_actions = max_actions
        n_h, n_u = len(self.labels), len(self.unit_ids)
        big = np.float32(1e6)
        self.space = spaces.Dict(
            {
                "hex_terrain": spaces.Box(0, len(TERRAIN_CLASSES) - 1, (n_h,), np.int8),
                "hex_elevation": spaces.Box(-big, big, (n_h,), np.float32),
                "own_units": spaces.Box(0, big, (n_h,), np.float32),
                "enemy_units": spaces.Box(0, big, (n_h,), np.float32),
                "control": spaces.Box(-1, 1, (n_h,), np.float32),
                "unit_side": spaces.Box(-1, 1, (n_u,), np.int8),
                "unit_hex": spaces.Box(-1, max(n_h - 1, 0), (n_u,), np.int32),
                "unit_destroyed": spaces.Box(0, 1, (n_u,), np.int8),
                "scalars": spaces.Box(0, big, (4,), np.float32),
                "action_mask": spaces.Box(0, 1, (max_actions,), np.int8),
                "action_features": spaces.Box(
                    0, max(n_h, n_u, len(self.action_types)), (max_actions, 4), np.int32
                ),
            }
        )

    def _hex_of(self, pos: Any) -> int:
        if isinstance(pos, str):
            return self.hex_index.get(pos, -1)
        if isinstance(pos, Point):
            try:
                return self.hex_index.get(self.map.hex_at_xy(pos.x, pos.y), -1)
            except ValueError:
                return -1
        return -1

    def features(self, action: Any) -> tuple[int, int, int, int]:
        """The four ``action_features`` of one action (see the module doc)."""
        t = self.type_index.get(action.type, -1) + 1
        unit = target = where = 0
        for f in _UNIT_FIELDS:
            v = getattr(action, f, None)
            if isinstance(v, str) and v in self.unit_index:
                unit = self.unit_index[v] + 1
                break
        for f in _TARGET_FIELDS:
            v = getattr(action, f, None)
            if isinstance(v, str) and v in self.unit_index:
                target = self.unit_index[v] + 1
        for f in _HEX_FIELDS:
            v = getattr(action, f, None)
            h = self._hex_of(v)
            if h >= 0:
                where = h + 1
                break
        return t, unit, target, where

    def encode(
        self, view: GameState, side: str, deciding: bool, legal: Sequence[Any]
    ) -> dict[str, np.ndarray]:
        """The observation of ``side`` from its own ``view`` of the state."""
        n_h, n_u = len(self.labels), len(self.unit_ids)
        own = np.zeros(n_h, np.float32)
        enemy = np.zeros(n_h, np.float32)
        unit_side = np.zeros(n_u, np.int8)
        unit_hex = np.full(n_u, -1, np.int32)
        destroyed = np.zeros(n_u, np.int8)
        for uid, u in view.units.items():
            i = self.unit_index.get(uid)
            if i is None:
                continue
            mine = u.side == side
            unit_side[i] = 1 if mine else -1
            if u.destroyed:
                destroyed[i] = 1
                continue
            h = self._hex_of(u.position)
            unit_hex[i] = h
            if h >= 0:
                (own if mine else enemy)[h] += 1
        control = np.zeros(n_h, np.float32)
        for where, owner in view.control.items():
            h = self.hex_index.get(where, -1)
            if h >= 0 and owner is not None:
                control[h] = 1.0 if owner == side else -1.0
        mask = np.zeros(self.max_actions, np.int8)
        feats = np.zeros((self.max_actions, 4), np.int32)
        for k, a in enumerate(legal[: self.max_actions]):
            mask[k] = 1
            feats[k] = self.features(a)
        scalars = np.array(
            [view.turn, self.turns, 1.0 if deciding else 0.0, min(len(legal), 1e6)],
            np.float32,
        )
        return {
            "hex_terrain": self.terrain.copy(),
            "hex_elevation": self.elevation.copy(),
            "own_units": own,
            "enemy_units": enemy,
            "control": control,
            "unit_side": unit_side,
            "unit_hex": unit_hex,
            "unit_destroyed": destroyed,
            "scalars": scalars,
            "action_mask": mask,
            "action_features": feats,
        }
