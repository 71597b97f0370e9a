"""Бронепехота 2008: what the turn and each action do (events).

Read with :mod:`.ruleset` (what is legal) — this module rolls the dice through
the game's logged roller and emits the events:

* the turn: initiative by Д12, ties rolling again (§3.1); sides alternate unit
  by unit, a side out of units waiting (§3.2 and its note);
* a move, and the melee it starts on contact (§4.1 note, §8, Tables 6-7);
* a shot: range roll, power dice against armour and cover (§7.4, Table 5),
  ammunition (§7.7);
* damage to a machine, its pilot's survival test, a flier's crash landing and
  a pilot on foot from a destroyed machine (§4.3, §5.1, §7.4 III);
* a pilot getting out of his machine, and a soldier boarding a pilotless one,
  capturing it if it was the enemy's (§4.3, §9.1; :mod:`.crew`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from wargame.engine import (
    Action,
    GameState,
    Model,
    Point,
    RuleContext,
    state_change,
    unit_change,
    var_change,
)
from wargame.engine.points import bearing, distance

from .actions import Board, EndSquad, Fig, Leave, Move, Shoot, angle_off
from .aimed import AIMED_DONE
from .damage import apply_damage, survival_test
from .dice import Dice
from .forces import Forces
from .guns import Capture, Guns, MoveGun
from .melee import (
    resolve_melee,
    soldier_defence,
)
from .optional import AimedShot, OptionRules, Throw
from .repairs import Repair, Repairs
from .shooting import (
    cover_bonus,
    damage_from,
    range_result,
    spend_ammo,
    steps,
    visibility_of,
)
from .table import GUN_KEY


class Play(Guns, Repairs, OptionRules, Forces):
    """The turn and the resolution of actions (the module docstring)."""

    def advance(self, ctx: RuleContext) -> None:
        for _ in range(1000):
            st = ctx.state
            if st.phase == "setup":
                ctx.emit(
                    "turn", result="turn 1", changes=state_change(phase="initiative")
                )
            elif st.phase == "initiative":
                self._initiative(ctx)
            elif st.phase == "play":
                if any(self._soldiers_left(st, s) == 0 for s in self.sides):
                    ctx.emit(
                        "end", result="annihilation", changes=state_change(phase="end")
                    )
                    return
                if st.vars.get("active") is not None:
                    return
                side = str(st.vars["side"])
                if self._ready(st, side):
                    return
                waiting = [s for s in st.vars["order"] if self._ready(st, s)]
                if waiting:  # §3.2 note: a side out of units waits
                    ctx.emit(
                        "wait",
                        side=side,
                        result=f"{waiting[0]} plays on",
                        changes=var_change(side=waiting[0]),
                    )
                    return
                if st.turn >= self.scenario.turns:
                    ctx.emit(
                        "end", result="turn limit", changes=state_change(phase="end")
                    )
                    return
                ch = state_change(turn=st.turn + 1, phase="initiative")
                for u in st.units.values():
                    if u.attrs.get("acted"):
                        ch += unit_change(u.id, acted=None)
                if st.vars.get("spent"):  # pilots who got out act again (§4.3)
                    ch += var_change(spent=None)
                ctx.emit("turn", result=f"turn {st.turn + 1}", changes=ch)
            else:
                return

    def _initiative(self, ctx: RuleContext) -> None:
        """§3.1: everyone rolls Д12; the highest has the initiative, ties roll again."""
        rolling = list(self.sides)
        while True:
            faces = {
                s: ctx.roll(1, sides=12, kind="initiative", side=s)[0] for s in rolling
            }
            best = max(faces.values())
            rolling = [s for s in rolling if faces[s] == best]
            if len(rolling) == 1:
                break
        winner = rolling[0]
        order = [winner, *[s for s in self.sides if s != winner]]
        ctx.emit(
            "initiative",
            side=winner,
            result=f"{winner} first",
            changes=state_change(phase="play")
            + var_change(
                side=winner,
                order=order,
                active=None,
                current=None,
                did=[],
                done=[],
                fired=[],
            ),
        )

    # -- resolution --------------------------------------------------------- #
    def _begin(
        self, st: GameState, uid: str, mid: str
    ) -> tuple[tuple[Any, ...], list[str]]:
        """The vars changes that make ``mid`` the acting figure; his acts so far."""
        ch: tuple[Any, ...] = ()
        if st.vars.get("active") is None:
            ch += var_change(active=uid)
        if st.vars.get("current") != mid:
            done = list(st.vars.get("done", ()))
            if st.vars.get("current") is not None:
                done.append(st.vars["current"])
            return ch + var_change(current=mid, did=[], done=done), []
        return ch, list(st.vars.get("did", ()))

    def _kill(self, st: GameState, uid: str, mid: str) -> tuple[Any, ...]:
        """A soldier destroyed (§5.1)."""
        u = st.units[uid]
        left = tuple(x for x in u.models if x.id != mid)
        if not left:
            return unit_change(uid, models=left, strength="destroyed")
        return unit_change(uid, models=left, position=left[0].position)

    def _hurt_machine(
        self, ctx: RuleContext, side: str, t: Fig, dmg: int, why: str
    ) -> None:
        """Damages on a machine's track (§5.1), then its pilot's test (§7.4 III,
        §8.2)."""
        st = ctx.state
        u = st.units[t.unit.id]
        left = apply_damage(int(u.attrs["durability"]), dmg)
        pilot = u.attrs.get("pilot")
        p = self._pos(t)
        test = ""
        if pilot is not None:
            ps = self._soldier(pilot)
            face = ctx.roll(
                1,
                sides=6,
                kind="survival",
                side=u.side,
                unit=u.id,
                target=pilot["id"],
                detail=f"pilot Бр {ps.armour}",
            )[0]
            test = survival_test(face, ps.armour, panic="panic" in self.options)
            if test == "panics":  # §11.2: alive, but he flees (after the damage)
                ctx.emit(
                    "survival",
                    side=u.side,
                    unit=u.id,
                    target=pilot["id"],
                    result="pilot panics (§11.2)",
                )
            if test == "dies":
                ctx.emit(
                    "survival",
                    side=u.side,
                    unit=u.id,
                    target=pilot["id"],
                    result="pilot killed",
                    changes=unit_change(u.id, pilot=None),
                )
                if t.airborne and left > 0:  # §4.3: crash landing, Д6 damages
                    c = ctx.roll(
                        1, sides=6, kind="crash landing", side=u.side, unit=u.id
                    )
                    left = apply_damage(left, c[0])
                pilot = None
        if left > 0:
            ctx.emit(
                "shot" if why == "shot" else "melee",
                side=side,
                unit=u.id,
                target=t.model.id,
                hits=dmg,
                result=f"durability {left}",
                changes=unit_change(u.id, durability=left),
            )
            if test == "panics":
                self._pilot_panics(ctx, side, u.id)
            return
        ch = unit_change(u.id, durability=0)
        if pilot is None:
            ch += unit_change(u.id, models=(), strength="destroyed")
            res = "gun destroyed" if t.gun is not None else "machine destroyed"
        else:  # §5.1: the pilot stands where it stood and fights on
            man = Model(
                pilot["id"],
                "soldier",
                position=p,
                facing=t.model.facing,
                radius_m=self.radius_m,
                attrs={"squad": pilot["squad"], "n": pilot["n"]},
            )
            ch += unit_change(u.id, models=(man,), pilot=None, loadout=[])
            res = f"machine destroyed, pilot {pilot['id']} on foot"
        ctx.emit(
            "shot" if why == "shot" else "melee",
            side=side,
            unit=u.id,
            target=t.model.id,
            hits=dmg,
            result=res,
            changes=ch,
        )
        if pilot is not None and test == "panics":  # §11.2: on foot, he flees
            self._flee(ctx, u.id, pilot["id"])

    def _end_unit(self, ctx: RuleContext, side: str, uid: str) -> None:
        """The unit has acted (§3.2): the next side in the order plays."""
        order = list(ctx.state.vars["order"])
        nxt = order[(order.index(side) + 1) % len(order)]
        ctx.emit(
            "squad done",
            side=side,
            unit=uid,
            changes=unit_change(uid, acted=True)
            + var_change(
                side=nxt, active=None, current=None, did=[], done=[], fired=[]
            ),
        )

    def _leave(self, ctx: RuleContext, side: str, action: Leave) -> None:
        """§4.3: the pilot gets out (and walks on); then any melee his walk
        starts (§4.1 note); the machine's unit is done."""
        st = ctx.state
        m = self.machine_model(st, action.unit)
        assert m is not None
        f = self._fig(st.units[action.unit], m)
        ch, did = self._begin(st, action.unit, m.id)
        out, man = self.leave_changes(st, f, action.to, action.facing)
        spent = [*st.vars.get("spent", ()), man.id]
        a = self._pos(f)
        ctx.emit(
            "leave",
            side=side,
            unit=action.unit,
            target=man.id,
            point_from=a,
            point_to=action.to,
            result=f"pilot {man.id} out of {action.unit}, "
            f"{distance(a, action.to) / self.step_m:.2f} steps from its centre",
            changes=ch + out + var_change(did=[*did, "leave"], spent=spent),
        )
        now = ctx.state
        home = now.units[self.home_squad(man.id)]
        walker = self._fig(home, next(x for x in home.models if x.id == man.id))
        touched = self._touching(now, side, action.to, man.radius_m)
        if touched and "melee" not in did:
            self._melee(ctx, side, walker, touched)
        self._end_unit(ctx, side, action.unit)

    def _board(self, ctx: RuleContext, side: str, action: Board) -> None:
        """§9.1: the soldier becomes the machine's pilot; an enemy's machine is
        captured.  A squad whose last soldier boards is done."""
        st = ctx.state
        ch, did = self._begin(st, action.unit, action.soldier)
        f = self.fig(st, action.unit, action.soldier)
        m = self.machine_model(st, action.machine)
        assert m is not None
        was = st.units[action.machine].side
        ctx.emit(
            "board",
            side=side,
            unit=action.unit,
            target=m.id,
            point_from=self._pos(f),
            point_to=m.position if isinstance(m.position, Point) else None,
            result=(
                f"{action.soldier} pilots {action.machine}"
                + (f", captured from {was}" if was != side else "")
                + "; it fights next turn"
            ),
            changes=ch
            + self.board_changes(st, f, action.machine)
            + var_change(did=[*did, "board"]),
        )
        if ctx.state.units[action.unit].destroyed:
            self._end_unit(ctx, side, action.unit)

    def apply(self, ctx: RuleContext, action: Action) -> None:
        st = ctx.state
        side = str(st.vars["side"])
        if isinstance(action, EndSquad):
            self._end_unit(ctx, side, action.unit)
            return
        if isinstance(action, Leave):
            self._leave(ctx, side, action)
            return
        if isinstance(action, Board):
            self._board(ctx, side, action)
            return
        if isinstance(action, MoveGun | Capture):
            self.apply_gun(ctx, side, action)
            return
        if isinstance(action, Repair):
            self.apply_repair(ctx, side, action)
            return
        if isinstance(action, Throw):  # §7.8 (option grenades)
            self._throw(ctx, side, action)
            return
        assert isinstance(action, Move | Shoot)
        ch, did = self._begin(st, action.unit, action.soldier)
        f = self.fig(st, action.unit, action.soldier)
        if isinstance(action, Shoot):
            self._shoot(ctx, side, ch, did, f, action)
            return
        a = self._pos(f)
        if f.machine is not None:
            _, face = self._machine_moves(f, action.to, action.facing)
        else:
            face = action.facing if action.facing is not None else bearing(a, action.to)
        moved = replace(f.model, position=action.to, facing=round(face % 360.0, 1))
        models = tuple(moved if x.id == moved.id else x for x in f.unit.models)
        did.append("move")
        ctx.emit(
            "move",
            side=side,
            unit=f.unit.id,
            target=moved.id,
            point_from=a,
            point_to=action.to,
            result=f"{distance(a, action.to) / self.step_m:.2f} steps"
            + (" (jump, §9.4)" if action.type == "jump" else ""),
            changes=ch
            + unit_change(f.unit.id, models=models, position=models[0].position)
            + var_change(did=did),
        )
        mover = self._fig(ctx.state.units[f.unit.id], moved)
        if mover.airborne or "melee" in did:
            return  # §3.2: fliers never melee; one melee a turn
        touched = self._touching(ctx.state, side, action.to, moved.radius_m)
        if touched:
            self._melee(ctx, side, mover, touched)

    def _melee(self, ctx: RuleContext, side: str, f: Fig, touched: list[Fig]) -> None:
        """§4.1 note, §8: contact with an enemy figure is a melee at once."""
        a = self._pos(f)
        t = min(touched, key=lambda e: distance(a, self._pos(e)))
        b = self._pos(t)
        # §8.3: from behind; ASSUMPTION: a gun has no one to surprise
        surprise = t.gun is None and angle_off(t.model.facing, b, a) > 90.0 + 1e-9
        attack = self._strength(f)
        assert isinstance(attack, Dice)
        defence: Dice | int
        if t.infantry:
            assert t.soldier is not None
            defence = soldier_defence(t.soldier.armour)
        else:
            defence = self._strength(t, surprised=surprise)
        af = ctx.roll(
            2 if surprise else 1,
            sides=6,
            kind="melee roll",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            detail=f"attack {attack}" + (" (surprise)" if surprise else ""),
        )
        dface = None
        if isinstance(defence, Dice):  # a gun or pilotless machine: armour alone
            dface = ctx.roll(
                1,
                sides=6,
                kind="melee roll",
                side=t.unit.side,
                unit=t.unit.id,
                target=f.model.id,
                detail=f"defence {defence}",
            )[0]
        r = resolve_melee(attack, af, defence, dface, surprise=surprise)
        did = [*ctx.state.vars.get("did", ()), "melee"]
        words = f"{r.attack} vs {r.defence}: " + ("won" if r.won else "repelled")
        lost = r.won and t.infantry
        ctx.emit(
            "melee",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            point_from=a,
            point_to=b,
            result=words + (", destroyed" if lost else ""),
            changes=(self._kill(ctx.state, t.unit.id, t.model.id) if lost else ())
            + var_change(did=did),
        )
        if r.won and not t.infantry:  # Table 7: damage = the difference
            self._hurt_machine(ctx, side, t, r.damage, "melee")

    def _shoot(
        self,
        ctx: RuleContext,
        side: str,
        ch: tuple[Any, ...],
        did: list[str],
        f: Fig,
        action: Shoot,
    ) -> None:
        st = ctx.state
        t = self.fig(st, action.target, action.target_soldier)
        dice = self._dice(st, f, action.weapon)
        assert not isinstance(dice, str)
        rng, power = dice
        a, b = self._pos(f), self._pos(t)
        dist = distance(a, b) / self.step_m
        vis = visibility_of(self.visible_part(f, t))
        cover = cover_bonus(vis)  # Table 5
        gun = action.weapon.startswith(GUN_KEY)
        aimed = isinstance(action, AimedShot)  # §11.1 (option aimed_fire)
        if gun:
            did.append("gun")  # §7.5 note 1: the gun or his own weapon
        else:
            did += AIMED_DONE if aimed else ["shoot"]
        extra: tuple[Any, ...] = ()
        if gun:  # the gun's rate of fire and ammunition (§7.6-7.7)
            extra = self.gun_fire_changes(st, action.weapon, power)
        elif f.machine is not None:
            extra = var_change(fired=[*st.vars.get("fired", ()), action.weapon])
            if self.limited_ammo:  # §7.7: before the shot, one cell per power die
                extra += unit_change(
                    f.unit.id, ammo=spend_ammo(int(f.unit.attrs["ammo"]), power)
                )
        ctx.emit(
            "aim",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            changes=ch + var_change(did=did) + extra,
            detail=f"{action.weapon or 'personal weapon'} {rng}/{power} at "
            f"{steps(dist)} steps, target {vis.replace('_', ' ')}"
            + (", aimed (range doubled, §11.1)" if aimed else ""),
        )
        rf = ctx.roll(
            1,
            sides=rng.sides,
            kind="range",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            needed=max(1, -(-steps(dist) // (2 if aimed else 1)) - rng.bonus),
        )
        reach = range_result(rng, rf[0], aimed=aimed)
        if reach < steps(dist):
            ctx.emit(
                "shot",
                side=side,
                unit=f.unit.id,
                target=t.model.id,
                point_from=a,
                point_to=b,
                result=f"miss ({reach} < {steps(dist)})",
            )
            return
        armour = t.armour + cover
        pf = ctx.roll(
            power.count,
            sides=power.sides,
            kind="power",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            needed=armour + 1,
        )
        dmg = damage_from(power, pf, armour)
        if t.infantry or dmg == 0:
            ctx.emit(
                "shot",
                side=side,
                unit=f.unit.id,
                target=t.model.id,
                point_from=a,
                point_to=b,
                hits=dmg,
                result="destroyed" if dmg else f"armour {armour} holds",
                changes=self._kill(st, t.unit.id, t.model.id) if dmg else (),
            )
        else:
            self._hurt_machine(ctx, side, t, dmg, "shot")
        self.after_hit(ctx, side, f, action.weapon, b, t)  # §7.4 IV blasts
