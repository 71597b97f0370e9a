"""One engine for all rule systems: the layers above ``rules/`` name none of them,
and every action of every rule system reads as words."""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path

import pytest

import wargame
from wargame.engine import Action, Game, Point, available_rulesets, get_ruleset
from wargame.engine.scenario import available_scenarios, load_scenario

PACKAGE = Path(wargame.__file__).parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    pkg = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def test_no_module_outside_rules_imports_a_rule_system() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(PACKAGE / "rules"):
            continue
        bad = sorted(m for m in _imports(path) if m.startswith("wargame.rules."))
        if bad:
            offenders.append(f"{path.relative_to(PACKAGE)}: {', '.join(bad)}")
    assert not offenders, offenders


def _sample(cls: type[Action], state: typing.Any, rules: typing.Any) -> Action:
    """An instance of an action type with plausible field values."""
    units = list(state.units)
    hexes = [u.position for u in state.units.values() if isinstance(u.position, str)]
    values: dict[str, typing.Any] = {}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        hint = str(hints.get(f.name, ""))
        if f.name in ("unit", "target", "carrier", "spotter", "hq", "sw_target"):
            values[f.name] = units[0] if f.name != "target" else units[-1]
        elif "Point" in hint and "tuple" not in hint:  # a free point
            points = [
                u.position
                for u in state.units.values()
                if isinstance(u.position, Point)
            ]
            values[f.name] = points[0] if points else Point(0.0, 0.0)
        elif f.name in ("to", "hex"):
            values[f.name] = hexes[0] if hexes else "A1"
        elif f.name == "formation":
            values[f.name] = next(iter(state.formations), "F")
        elif f.name == "support":
            values[f.name] = next(iter(getattr(rules, "supports", {})), "S1")
        elif "bool" in hint:
            values[f.name] = True
        elif "float" in hint:
            values[f.name] = 10.0
        elif "tuple" in hint:
            values[f.name] = tuple(hexes[:2])
        elif f.default is not dataclasses.MISSING:
            continue
        elif "int" in hint:
            values[f.name] = 1
        else:
            values[f.name] = "x"
    return cls(**values)


def _a_game(ruleset_id: str) -> Game:
    for sid in available_scenarios():
        sc = load_scenario(sid)
        if sc.ruleset == ruleset_id:
            return Game(sc, seed=1)
    if ruleset_id == "toy-1e":
        from toy_ruleset import TOY_SCENARIO

        return Game.from_scenario(TOY_SCENARIO, seed=1)
    if ruleset_id == "toypoints-1e":
        from toy_points import SCENARIO

        return Game.from_scenario(str(SCENARIO), seed=1)
    pytest.skip(f"no scenario of {ruleset_id} to describe actions in")
    raise AssertionError  # unreachable


@pytest.mark.parametrize("ruleset_id", available_rulesets())
def test_every_action_type_has_a_description_in_words(ruleset_id: str) -> None:
    game = _a_game(ruleset_id)
    cls = get_ruleset(ruleset_id)
    assert cls.action_types, f"{ruleset_id} declares no action types"
    for name, action_cls in cls.action_types.items():
        action = _sample(action_cls, game.state, game.ruleset)
        text = game.describe(action)
        assert text and "{" not in text and "}" not in text, (name, text)
        assert "Action(" not in text and "=" not in text, (name, text)
