"""Policies for batch runs: named specs, checked before any game runs.

A batch names the policy of each side (``"random"``, ``"greedy"``...) instead of
passing live objects, so that a task sent to another process or another machine
is plain data, and the policy appears in every result row.  A spec is a name, or a
dict ``{"name": ..., **keyword arguments}``; a policy object (anything with
``choose(decision)``) is accepted too, if it can be pickled.

Examples:
    >>> "random" in policy_names()
    True
    >>> policy_spec("random")
    {'name': 'random'}
    >>> policy_label({"name": "greedy", "depth": 2})
    'greedy(depth=2)'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wargame.engine import Policy
from wargame.engine.policy import UnknownPolicyError, available_policies, get_policy

__all__ = [
    "PolicySpec",
    "make_policy",
    "policy_factory",
    "policy_label",
    "policy_names",
    "policy_spec",
]

#: A policy as a batch stores it: ``{"name": "greedy", **kwargs}`` or an object.
PolicySpec = dict[str, Any] | Policy


def policy_names(ruleset: str | None = None) -> list[str]:
    """Names of the policies a batch can use (for one rule system)."""
    return available_policies(ruleset)


def policy_spec(
    value: Any, where: str = "policy", ruleset: str | None = None
) -> PolicySpec:
    """Normalise a policy given by name, dict or object; reject unknown names.

    Args:
        value: ``"random"``, ``{"name": "greedy", "depth": 2}`` or a policy object.
        where: what to call it in error messages (e.g. ``"policies.nato"``).
        ruleset: the rule system it must play (its policies are the choice).

    Raises:
        ValueError: unknown name (the message lists the available ones), or bad
            keyword arguments.

    Examples:
        >>> try:
        ...     policy_spec("randon", ruleset="waw-classic")
        ... except ValueError as exc:
        ...     print(exc)  # doctest: +ELLIPSIS
        policy: unknown policy 'randon' for waw-classic (did you mean random?); ...
    """
    if isinstance(value, str):
        spec: dict[str, Any] = {"name": value}
    elif isinstance(value, Mapping):
        spec = dict(value)
        if not isinstance(spec.get("name"), str):
            raise ValueError(f"{where}: a policy table needs a 'name', e.g. 'random'")
    elif callable(getattr(value, "choose", None)):
        return value  # type: ignore[no-any-return]
    else:
        raise ValueError(
            f"{where}: a policy is a name such as 'random', a table with a 'name', "
            f"or an object with choose(decision); not {value!r}"
        )
    kw = {k: v for k, v in spec.items() if k != "name"}
    try:
        get_policy(spec["name"], ruleset=ruleset, **kw)
    except UnknownPolicyError as exc:
        raise ValueError(f"{where}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: policy {policy_label(spec)}: {exc}") from None
    return spec


def policy_label(spec: PolicySpec) -> str:
    """A short text for a result column: ``"random"``, ``"greedy(depth=2)"``."""
    if not isinstance(spec, Mapping):
        return repr(spec)
    kw = ", ".join(f"{k}={v!r}" for k, v in spec.items() if k != "name")
    return f"{spec['name']}({kw})" if kw else str(spec["name"])


def policy_factory(ruleset: str | None = None) -> Callable[[PolicySpec], Policy]:
    """A function making the policy object of a spec for a rule system (a
    worker makes new policy objects for every game)."""

    def make(spec: PolicySpec) -> Policy:
        if not isinstance(spec, Mapping):
            return spec
        kw = {k: v for k, v in spec.items() if k != "name"}
        return get_policy(spec["name"], ruleset=ruleset, **kw)  # type: ignore[no-any-return]

    return make


def make_policy(spec: PolicySpec, ruleset: str | None = None) -> Policy:
    """The policy object for a spec (a new one for each game)."""
    return policy_factory(ruleset)(spec)
