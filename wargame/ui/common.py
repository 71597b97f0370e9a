"""Small helpers the views share: policy and scenario lists, messages, PNG bytes.

The policy list comes from the policy registry of :mod:`wargame.engine.policy`
(per rule system: ``random`` for all, more where a rule system registers them).
"""

from __future__ import annotations

import html
import tomllib
from pathlib import Path
from typing import Any

__all__ = [
    "close_tree",
    "error_html",
    "info_html",
    "make_policy",
    "parse_seed",
    "policy_names",
    "scenario_choices",
]


def policy_names(ruleset: str | None = None) -> list[str]:
    """Names of the AI policies on offer for a rule system (``random`` plays all)."""
    from wargame.engine.policy import available_policies

    return available_policies(ruleset)


def make_policy(name: str, ruleset: str | None = None) -> Any:
    """A new policy object by name, for a rule system.

    Raises:
        ValueError: the name is unknown (the message lists the rule system's).
    """
    from wargame.engine.policy import get_policy

    return get_policy(name, ruleset=ruleset)


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


def parse_seed(text: object) -> int:
    """A seed typed in a field: a whole number >= 0, or a ValueError saying why.

    Examples:
        >>> parse_seed(" 42 "), parse_seed(7)
        (42, 7)
        >>> parse_seed("-5")
        Traceback (most recent call last):
        ...
        ValueError: The seed must be a whole number >= 0 (like 1 or 2024), not '-5'.
    """
    if isinstance(text, int) and not isinstance(text, bool) and text >= 0:
        return text
    s = str(text).strip()
    if not s.isascii() or not s.isdigit():
        raise ValueError(
            f"The seed must be a whole number >= 0 (like 1 or 2024), not {text!r}."
        )
    value = int(s)
    if value > 2**63 - 1:
        raise ValueError(f"The seed {s} is too large; use at most {2**63 - 1}.")
    return value


def error_html(text: str) -> str:
    """A message shown in red in a panel."""
    return f"<span style='color:#a00'>{html.escape(text)}</span>"


def info_html(text: str) -> str:
    """A neutral message for a panel."""
    return f"<span style='color:#235'>{html.escape(text)}</span>"


def close_tree(root: Any) -> int:
    """Close a widget and every widget reachable from its synced traits.

    Children, map layers and controls, layouts and styles: what a view built and
    still holds, so that replacing a view frees it in the kernel and the page.
    Returns the number of widgets closed.

    Examples:
        >>> import ipywidgets as w
        >>> box = w.VBox([w.HTML("a"), w.HBox([w.Button()])])
        >>> close_tree(box) >= 4, box.comm is None
        (True, True)
    """
    import ipywidgets as w

    seen: dict[int, Any] = {}
    todo = [root]
    while todo:
        wid = todo.pop()
        if not isinstance(wid, w.Widget) or id(wid) in seen:
            continue
        seen[id(wid)] = wid
        for name in wid.keys:
            try:
                value = getattr(wid, name)
            except Exception:  # pragma: no cover - a trait that cannot be read
                continue
            if isinstance(value, w.Widget):
                todo.append(value)
            elif isinstance(value, list | tuple):
                todo.extend(v for v in value if isinstance(v, w.Widget))
    for wid in seen.values():
        wid.close()
    return len(seen)
