"""What every part of the Conflict of Heroes rules reads: names, unit status,
hit markers, pools and contiguity.

State layout (plain data, see :mod:`wargame.engine.state`):

* unit ``attrs``: ``status`` (``"fresh"``, ``"active"`` or ``"spent"``, CoH 2e
  §2.2), ``hit`` (the kind of the unit's hit marker: **secret**, the owner alone
  sees it while it lies face down, §7.5), ``marked`` (public: the unit carries a
  hit marker), ``marker`` (public: the marker's kind once turned face up),
  ``arrives`` (the round a reinforcement may enter, §5.5), ``entry`` (its
  entry hexes), ``hasty`` (a hasty defence marker, §18), ``cc_turn`` (the turn
  number of the unit's last close-combat attack, §7.7.3), ``carried_by`` (the
  vehicle a unit rides on or is towed by, §17.0), ``immobilised`` (a vehicle
  stuck in "!" terrain, §14.5), ``bogged`` (the round
  a Bogged Down card immobilises a vehicle, card #20);
* :attr:`Unit.hidden` and a secret position for hidden units (seed 003 §10.0);
* pools ``ap:<side>`` (the one 7 AP activation pool, seed 003 §9.0) and
  ``caps:<side>`` (command action points, §3.2);
* vars: ``side`` (who decides), ``passes`` (passes in a row, §2.3),
  ``first`` (who won the initiative), ``vp:<side>``, ``losses:<side>`` (units on
  the side's CAP track, §7.4), ``bids``/``bid:<side>`` (initiative, §2.1),
  ``turn_no`` (turns taken, for the one close combat per turn rule), ``over``,
  ``free_action:<side>`` (a Command Action card's free action is due),
  ``swift:<side>`` (a Swift Action card is under way);
* decks: ``cards`` (the draw pile), ``hand:<side>`` (secret hands),
  ``discard`` (played cards, face up).

Examples:
    >>> other_side(("german", "soviet"), "german")
    'soviet'
    >>> status_of_attrs({"status": "spent"})
    'spent'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from wargame.engine import GameState, Unit

from ._memo import MemoScope

__all__ = [
    "AP_POOL",
    "EVENT_KINDS",
    "PHASES",
    "contiguous",
    "other_side",
    "status_of",
    "status_of_attrs",
]

#: The activation pool (CoH 2e §3.0; seed 003 §9.0): 7 AP.
AP_POOL = 7
#: Rally costs 5 AP/CAP (§7.6; group rally, seed 003 §9.13).
RALLY_COST = 5
#: Hiding again costs 7 AP (seed 003 §10.2).
HIDE_COST = 7
#: Hidden movement adds 3 AP in cover and 6 AP in the open (seed 003 §10.1).
HIDDEN_MOVE_COVER, HIDDEN_MOVE_OPEN = 3, 6
#: Backwards moves and pivots (§5.2, §5.3).
BACKWARDS_AP, PIVOT_AP = 1, 1
#: At most two CAPs modify one roll (§3.2).
MAX_CAPS_PER_ROLL = 2

PHASES = ("setup", "artillery", "initiative", "play", "over")
EVENT_KINDS = (
    "round",
    "turn",
    "fresh",
    "caps",
    "reinforcements",
    "initiative",
    "activate",
    "spend",
    "move",
    "pivot",
    "fire",
    "attack",
    "hit_marker",
    "marker_revealed",
    "destroyed",
    "rally",
    "revealed",
    "hidden_move",
    "hide",
    "detection",
    "stall",
    "pass",
    "control",
    "vp",
    "card",
    "draw",
    "smoke",
    "fortification",
    "obstacle",
    "mine",
    "oba",
    "round_end",
    "game_end",
    "immobilisation",
    "load",
    "unload",
    "luck",
)


def other_side(sides: Sequence[str], side: str) -> str:
    """The other of two sides."""
    return sides[1] if sides[0] == side else sides[0]


def status_of_attrs(attrs: Mapping[str, Any]) -> str:
    """``fresh``/``active``/``spent`` from a unit's attrs (fresh by default)."""
    return str(attrs.get("status", "fresh"))


def status_of(unit: Unit) -> str:
    """A unit's status (CoH 2e §2.2)."""
    return status_of_attrs(unit.attrs)


def contiguous(hexes: Iterable[str], neighbors: Any) -> bool:
    """Whether hexes are the same or continuously adjacent (seed 003 §9.2).

    ``neighbors(label)`` gives a hex's neighbours.

    Examples:
        >>> nb = {"A": ["B"], "B": ["A", "C"], "C": ["B"], "D": []}
        >>> f = nb.__getitem__
        >>> contiguous(["A", "C", "B"], f), contiguous(["A", "C"], f)
        (True, False)
    """
    todo = set(hexes)
    if not todo:
        return False
    start = next(iter(todo))
    seen = {start}
    stack = [start]
    while stack:
        h = stack.pop()
        for n in neighbors(h):
            if n in todo and n not in seen:
                seen.add(n)
                stack.append(n)
    return seen == todo


def alive_on_map(state: GameState, side: str | None = None) -> list[Unit]:
    """Units in play with a hex (``side``: of that side only)."""
    return [
        u
        for u in state.units.values()
        if not u.destroyed and u.hex is not None and (side is None or u.side == side)
    ]


class Mixin(MemoScope):
    """What the rule mixins of :class:`~wargame.rules.coh.ruleset.CohRuleset`
    read of each other (declared for the type checker; defined by the mixins
    and the ruleset)."""

    board: Any
    specs: dict[str, Any]
    sides: tuple[str, str]
    scenario: Any
    map: Any
    kill_vp: int
    caps_start: dict[str, int]
    nation: dict[str, str]
    objectives: tuple[tuple[str, str, int, str | None], ...]
    objective_hexes: frozenset[str]
    first_initiative: str | None
    stall_reveals: bool
    # methods of other mixins
    enemy_in: Any
    sight: Any
    sight_fan: Any
    suspected: Any
    other: Any
    pay: Any
    pay_problem: Any
    pool: Any
    caps: Any
    marker: Any
    reveal_actors: Any
    reveal_hex: Any
    after_move: Any
    detection_check: Any
    no_cap_loss: Any
    group_ok: Any
    thin_smoke: Any
    draw_cards: Any
    # fire, mortars, pioneers and fortifications (CoH 2e §12-13, §18-19)
    fire_problem: Any
    fire_math: Any
    why_not: Any
    pays: Any
    draw_marker: Any
    destroy: Any
    reveal_marker: Any
    smoke_levels: Any
    smoke_map: Any
    smoke_dm: Any
    extra_dms: Any
    fort_dms: Any
    all_round: Any
    unit_option: Any
    attack_problem: Any
    resolved_attack: Any
    attack_kwargs: Any
    attack_words: Any
    flame_problem: Any
    flame_math: Any
    obstacle_bar: Any
    obstacle_roll: Any
    negates_open_bonus: Any
    on_enter: Any
    lose_hasty: Any
    after_pivot: Any
    forts: Any
    is_pioneer: Any
    mines_go_off: Any
    _read_fortifications: Any
    # bunkers, obstacles, obstacle cards, close-combat retreat (CoH 2e §18, §7.7.3)
    has_fort: Any
    bunker_in: Any
    bunker_eligible: Any
    bunker_dms: Any
    bunker_on_enter: Any
    bunker_after_pivot: Any
    bunker_fire_problem: Any
    bunker_exit_cost: Any
    numbers: Any
    is_gun: Any
    is_mortar: Any
    _read_fort_numbers: Any
    fort_targets: Any
    fort_fire_target: Any
    fire_at_forts: Any
    oba_at_forts: Any
    remove_fort: Any
    lays_tellermine: Any
    lay_problem: Any
    lay_candidates: Any
    do_lay_tellermine: Any
    shown_card_hex: Any
    note_advance: Any
    retreat_problem: Any
    _init_forts: Any
    # vehicles and transport (.vehicles, .transport)
    riders: dict[str, str]
    read_riders: Any
    is_vehicle: Any
    cargo: Any
    cargo_changes: Any
    with_riders: Any
    bonus_problem: Any
    bonus_paths: Any
    bonus_cost: Any
    immobilisation_roll: Any
    rider_problem: Any
    shot_colour: Any
    transport_dms: Any
    draw_one: Any
    next_turn: Any
    _game_over: Any
    reveal: Any
    rally_problem: Any
    rally_rolls: Any
    remove_marker: Any
    _land: Any
    card_played: Any
    fire_card_problem: Any
    fire_card_fp: Any
    play_bonus_card: Any
    _read_oba: Any
    _init_oba: Any
    begin_plotting: Any
    resolve_oba: Any
    check_annihilation: Any
    # attack rolls, rally and the Luck! window (.attack_rolls, .rally, .luck)
    offer_luck: Any
    land_rolls: Any
    land_rally: Any
    is_sniper: Any
    _supporters_for: Any
    rally_bonus: Any
    emit_step: Any
    open_close_call: Any
