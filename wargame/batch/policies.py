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

import difflib
from collections.abc import Callable, Mapping
from typing import Any

from wargame.engine import Policy, RandomPolicy

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


# --------------------------------------------------------------------------- #
# THE policy lookup.  Uses the ``wargame.ai`` registry once it exists         #
# (``get_policy(name, **kw)`` and ``available_policies()``); until then only  #
# ``"random"`` (the engine's RandomPolicy) is known.                          #
# --------------------------------------------------------------------------- #
def _registry() -> tuple[Callable[..., Policy], list[str]]:
    try:
        from wargame.ai import (  # type: ignore[attr-defined,unused-ignore]
            available_policies,
            get_policy,
        )
    except ImportError:

        def get_policy(name: str, **kw: Any) -> Policy:
            if name != "random":
                raise ValueError(f"unknown policy {name!r}; available: random")
            return RandomPolicy(**kw)

        return get_policy, ["random"]
    return get_policy, sorted(available_policies())


def policy_names() -> list[str]:
    """Names of the policies a batch can use."""
    return _registry()[1]


def policy_spec(value: Any, where: str = "policy") -> PolicySpec:
    """Normalise a policy given by name, dict or object; reject unknown names.

    Args:
        value: ``"random"``, ``{"name": "greedy", "depth": 2}`` or a policy object.
        where: what to call it in error messages (e.g. ``"policies.nato"``).

    Raises:
        ValueError: unknown name (the message lists the available ones), or bad
            keyword arguments.

    Examples:
        >>> try:
        ...     policy_spec("randon")
        ... except ValueError as exc:
        ...     print(exc)  # doctest: +ELLIPSIS
        policy: unknown policy 'randon' (did you mean random?); available: ...random
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
    get_policy, names = _registry()
    name = spec["name"]
    if name not in names:
        close = difflib.get_close_matches(name, names, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ValueError(
            f"{where}: unknown policy {name!r}{hint}; available: {', '.join(names)}"
        )
    kw = {k: v for k, v in spec.items() if k != "name"}
    try:
        get_policy(name, **kw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: policy {policy_label(spec)}: {exc}") from None
    return spec


def policy_label(spec: PolicySpec) -> str:
    """A short text for a result column: ``"random"``, ``"greedy(depth=2)"``."""
    if not isinstance(spec, Mapping):
        return repr(spec)
    kw = ", ".join(f"{k}={v!r}" for k, v in spec.items() if k != "name")
    return f"{spec['name']}({kw})" if kw else str(spec["name"])


def policy_factory() -> Callable[[PolicySpec], Policy]:
    """A function making the policy object of a spec, with the registry looked up
    once (a worker makes new policy objects for every game)."""
    get_policy, _ = _registry()

    def make(spec: PolicySpec) -> Policy:
        if not isinstance(spec, Mapping):
            return spec
        kw = {k: v for k, v in spec.items() if k != "name"}
        return get_policy(spec["name"], **kw)

    return make


def make_policy(spec: PolicySpec) -> Policy:
    """The policy object for a spec (a new one for each game)."""
    return policy_factory()(spec)
