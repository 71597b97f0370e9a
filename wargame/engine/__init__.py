"""wargame.engine: games, states, actions, events, seeded dice, save/load, policies.

The engine knows no particular rule system.  A rule system implements
:class:`Ruleset` and registers itself under an id with its edition
(``waw-classic``); a scenario names the id, and :class:`Game` drives it.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=3)
    >>> outcome = game.run()
    >>> outcome.termination in ("turn limit", "annihilation")
    True
    >>> set(game.log["kind"]) >= {"draw", "cleanup"}
    True

See ``docs/engine.md`` for the API and the event model.
"""

from __future__ import annotations

from .actions import Action, ActionFormatError, action_from_dict
from .errors import (
    IllegalActionError,
    SaveFileError,
    ScenarioError,
    UnknownRulesetError,
)
from .events import LOG_COLUMNS, Event, events_frame
from .game import SAVE_FORMAT, SAVE_VERSION, Game, Listener
from .placement import (
    ModelSpec,
    PlacedUnit,
    Placement,
    locate_objectives,
    locate_point,
    place_units,
)
from .points import Candidate, candidate_moves
from .policy import Decision, Policy, RandomPolicy
from .ruleset import (
    Outcome,
    RuleContext,
    Ruleset,
    RulesetBase,
    available_rulesets,
    get_ruleset,
    register_ruleset,
)
from .scenario import (
    FORMAT_VERSION,
    Scenario,
    available_scenarios,
    check_scenario,
    load_scenario,
    locate_hex,
)
from .state import (
    Change,
    Formation,
    GameState,
    Model,
    Point,
    Position,
    Side,
    Unit,
    control_change,
    deck_change,
    pool_change,
    state_change,
    unit_change,
    var_change,
)

__all__ = [
    "FORMAT_VERSION",
    "LOG_COLUMNS",
    "SAVE_FORMAT",
    "SAVE_VERSION",
    "Action",
    "ActionFormatError",
    "Candidate",
    "Change",
    "Decision",
    "Event",
    "Formation",
    "Game",
    "GameState",
    "IllegalActionError",
    "Listener",
    "Model",
    "ModelSpec",
    "Outcome",
    "PlacedUnit",
    "Placement",
    "Point",
    "Policy",
    "Position",
    "RandomPolicy",
    "RuleContext",
    "Ruleset",
    "RulesetBase",
    "SaveFileError",
    "Scenario",
    "ScenarioError",
    "Side",
    "Unit",
    "UnknownRulesetError",
    "action_from_dict",
    "available_rulesets",
    "available_scenarios",
    "candidate_moves",
    "check_scenario",
    "control_change",
    "deck_change",
    "events_frame",
    "get_ruleset",
    "load_scenario",
    "locate_hex",
    "locate_objectives",
    "locate_point",
    "place_units",
    "pool_change",
    "register_ruleset",
    "state_change",
    "unit_change",
    "var_change",
]
