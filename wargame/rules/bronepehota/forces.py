"""Бронепехота 2008: the forces of a scenario — squads and machines of the
2008 armlists, each machine's pilot (rank at least the machine's, §2.3, taken
out of his squad, §3.2 note 3) and loadout from its arsenal (§2.2), set up on
the map with full tracks (§1.6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wargame.engine import (
    GameState,
    Model,
    Side,
    Unit,
)
from wargame.engine.state import Formation

from .actions import loadout_keys
from .damage import can_pilot
from .data import Weapon, choose_loadout
from .table import Table


class Forces(Table):
    """The scenario's units checked and set up (the module docstring)."""

    def _side_of(self, raw: Mapping[str, Any]) -> str | None:
        if raw.get("side"):
            return str(raw["side"])
        for f in self.scenario.formations:
            if f.get("id") == raw.get("formation"):
                return str(f.get("side"))
        return None

    def _armlist_ids(self) -> list[str]:
        return [*self.arm.squads, *self.arm.machines, *self.arm.guns]

    def _unit_problems(self) -> list[str]:
        """Unit types, pilots (rank, §2.3) and loadouts (§2.2) of the scenario."""
        sc = self.scenario
        problems: list[str] = []
        squads = {
            str(r.get("id")): r for r in sc.units if r.get("type") in self.arm.squads
        }
        self.pilots: dict[str, tuple[str, int]] = {}
        self.loadouts: dict[str, tuple[Weapon, ...]] = {}
        taken: dict[str, str] = {}
        for i, raw in enumerate(sc.units):
            uid, t = str(raw.get("id")), raw.get("type")
            where = f"units[{i}] ({uid!r})"
            if t in self.arm.guns:
                continue  # a gun and its crew: :mod:`.guns`
            if t in self.arm.squads:
                for k in ("pilot", "loadout"):
                    if k in raw:
                        problems.append(
                            sc.problem(f"{where}.{k}", "only machines have it")
                        )
                continue
            mach = self.arm.machines.get(str(t))
            if mach is None:
                problems.append(
                    sc.problem(
                        f"{where}.type",
                        f"{t!r} is not a squad, machine or gun of the 2008 "
                        f"armlists; use one of {sorted(self._armlist_ids())}",
                    )
                )
                continue
            pilot = raw.get("pilot")
            sq_id, _, num = str(pilot).rpartition(".")
            sq = squads.get(sq_id)
            if sq is None or not num.isdigit() or not 1 <= int(num) <= 6:
                problems.append(
                    sc.problem(
                        f"{where}.pilot",
                        f"{pilot!r}: name a soldier of a squad of the scenario, "
                        "'<squad id>.<1-6>' (every machine starts with a pilot, §1.6)",
                    )
                )
            else:
                soldier = self.arm.squads[sq["type"]].soldiers[int(num) - 1]
                if self._side_of(sq) != self._side_of(raw):
                    problems.append(
                        sc.problem(f"{where}.pilot", f"{pilot!r} is not on its side")
                    )
                elif not can_pilot(soldier.rank, mach.rank):
                    problems.append(
                        sc.problem(
                            f"{where}.pilot",
                            f"{pilot!r} has rank {soldier.rank}, below {mach.name}'s "
                            f"rank {mach.rank} (§2.3)",
                        )
                    )
                elif str(pilot) in taken:
                    problems.append(
                        sc.problem(
                            f"{where}.pilot",
                            f"{pilot!r} already pilots {taken[str(pilot)]!r}",
                        )
                    )
                else:
                    taken[str(pilot)] = uid
                    self.pilots[uid] = (sq_id, int(num))
            names = raw.get("loadout")
            if names is None:  # ASSUMPTION: the whole arsenal but equipment
                names = [
                    w.name
                    for w in mach.weapons
                    if w.kind != "equipment"
                    for _ in range(w.count)
                ]
            if not isinstance(names, list) or not all(
                isinstance(n, str) for n in names
            ):
                problems.append(
                    sc.problem(f"{where}.loadout", "must be a list of names")
                )
                continue
            try:
                self.loadouts[uid] = choose_loadout(mach, names)
            except ValueError as exc:
                problems.append(sc.problem(f"{where}.loadout", str(exc)))
        return problems

    # -- set-up ------------------------------------------------------------- #
    def initial_state(self) -> GameState:
        st = GameState(ruleset=self.id, phase="setup")
        st.sides = {
            s["id"]: Side(s["id"], s.get("name", s["id"])) for s in self.scenario.sides
        }
        st.formations = {
            f["id"]: Formation(f["id"], f["side"], f.get("name", f["id"]), f.get("hq"))
            for f in self.scenario.formations
        }
        piloting = {v: k for k, v in self.pilots.items()}
        for raw in self.scenario.units:
            uid = raw["id"]
            if raw["type"] in self.arm.guns:
                continue  # set up by :mod:`.guns`
            side = raw.get("side") or st.formations[raw["formation"]].side
            pu = self.placed.get(uid)
            mach = self.arm.machines.get(raw["type"])
            attrs: dict[str, Any] = {}
            if mach is None:
                models = tuple(
                    Model(
                        f"{uid}.{n + 1}",
                        "soldier",
                        position=None if pu is None else pu.models[n].position,
                        facing=None if pu is None else pu.models[n].facing,
                        radius_m=self.radius_m,
                        attrs={"squad": raw["type"], "n": n + 1},
                    )
                    for n in range(6)
                    if (uid, n + 1) not in piloting  # §3.2 note 3
                )
            else:
                sq_id, n = self.pilots[uid]
                sq_type = next(
                    r["type"] for r in self.scenario.units if r["id"] == sq_id
                )
                models = (
                    Model(
                        f"{uid}.m",
                        "machine",
                        position=None if pu is None else pu.models[0].position,
                        facing=None if pu is None else pu.models[0].facing,
                        radius_m=self._machine_radius(mach),
                    ),
                )
                attrs = {
                    "durability": mach.durability_max,  # §1.6: sliders at the top
                    "ammo": mach.ammo_max,
                    "pilot": {"id": f"{sq_id}.{n}", "squad": sq_type, "n": n},
                    "loadout": loadout_keys(self.loadouts[uid]),
                }
            st.units[uid] = Unit(
                uid,
                raw.get("name", uid),
                side,
                raw.get("formation"),
                raw["type"],
                None if pu is None else pu.position,
                facing=None if pu is None else round(pu.facing) % 360,
                models=models,
                attrs=attrs,
            )
        return st
