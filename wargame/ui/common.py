"""Small helpers the views share: policy and scenario lists, messages, PNG bytes.

The policy list comes from the :mod:`wargame.ai` registry when it is there
(``available_policies()`` / ``get_policy(name)``); otherwise only ``"random"``
(the engine's :class:`~wargame.engine.RandomPolicy`) is offered.
"""

from __future__ import annotations

import html
import tomllib
from pathlib import Path
from typing import Any

__all__ = [
    "error_html",
    "info_html",
    "make_policy",
    "policy_names",
    "scenario_choices",
]


def _registry() -> tuple[Any, Any] | None:
    try:
        from wargame.ai import available_policies, get_policy  # type: ignore[attr-defined]
    except ImportError:
        return None
    return available_policies, get_policy


def policy_names() -> list[str]:
    """Names of the AI policies on offer (``["random"]`` at least)."""
    reg = _registry()
    if reg is None:
        return ["random"]
    try:
        names = [str(n) for n in reg[0]()]
    except Exception:
        return ["random"]
    return names or ["random"]


def make_policy(name: str) -> Any:
    """A new policy object by name (``random`` without the registry).

    Raises:
        ValueError: the name is unknown.
    """
    reg = _registry()
    if reg is None:
        if name != "random":
            raise ValueError(f"unknown policy {name!r}; available: random")
        from wargame.engine import RandomPolicy

        return RandomPolicy()
    pol = reg[1](name)
    return pol() if isinstance(pol, type) else pol


def scenario_choices() -> list[tuple[str, str]]:
    """``(label, name)`` of every scenario file found (``scenarios/*.toml`` etc.).

    The label is the scenario's title when its file has one.
    """
    try:
        from wargame.engine.scenario import available_scenarios, scenario_dirs

        names = available_scenarios()
        dirs = scenario_dirs()
    except ImportError:  # pragma: no cover - older engine
        dirs = [Path(__file__).resolve().parents[2] / "scenarios"]
        names = sorted({p.stem for d in dirs for p in d.glob("*.toml")})
    out = []
    for name in names:
        title = name
        for d in dirs:
            p = d / f"{name}.toml"
            if p.is_file():
                try:
                    data = tomllib.loads(p.read_text(encoding="utf-8"))
                    title = str(data.get("title") or name)
                except (OSError, ValueError):
                    title = f"{name} (unreadable)"
                break
        out.append((title, name))
    return out


def error_html(text: str) -> str:
    """A message shown in red in a panel."""
    return f"<span style='color:#a00'>{html.escape(text)}</span>"


def info_html(text: str) -> str:
    """A neutral message for a panel."""
    return f"<span style='color:#235'>{html.escape(text)}</span>"
