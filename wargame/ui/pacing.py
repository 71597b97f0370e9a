"""Paced play: a Play / Pause toggle and a speed, driven from the kernel.

The timer is the kernel's own asyncio event loop (``loop.call_later``), which
runs under JupyterLab, Voila and nbmake alike: each tick plays one action and
sends what changed, then the next tick is scheduled, so the pace never runs
ahead of the kernel (a slow step delays the next one; ticks never pile up) and
Pause stops it at once (the pending tick is cancelled).  Without a running
event loop (plain Python, tests) nothing is scheduled: :meth:`Pacer.tick` plays
one action and :meth:`Pacer.drain` plays until the pacer stops, from code.

Examples:
    >>> moves = []
    >>> pacer = Pacer(lambda: moves.append(1) or len(moves) < 3, speed=2)
    >>> pacer.play() in (True, False)   # True where an event loop runs (a kernel)
    True
    >>> pacer.pause(); pacer.playing = True   # drive it from code instead
    >>> pacer.drain(), pacer.playing
    (3, False)
    >>> pacer.set_speed(9)
    Traceback (most recent call last):
    ...
    ValueError: speed: 9 actions a second is out of range; choose 0.25 to 4
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from .common import error_html

__all__ = ["MAX_SPEED", "MIN_SPEED", "PaceControls", "Pacer"]

#: Slowest and fastest pace offered, in actions a second.
MIN_SPEED = 0.25
MAX_SPEED = 4.0


def check_speed(value: Any) -> float:
    """``value`` as a speed in actions a second, or a ValueError saying why not."""
    if isinstance(value, bool):
        raise ValueError(f"speed: {value!r} is not a number of actions a second")
    try:
        speed = float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"speed: {value!r} is not a number of actions a second"
        ) from None
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise ValueError(
            f"speed: {value:g} actions a second is out of range; choose "
            f"{MIN_SPEED:g} to {MAX_SPEED:g}"
        )
    return speed


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Pacer:
    """Call ``step()`` every ``1 / speed`` seconds until it returns False or pause.

    Args:
        step: plays one action; returns whether to go on.
        speed: actions a second (:data:`MIN_SPEED` to :data:`MAX_SPEED`).
        on_change: called with ``playing`` whenever the pacer starts or stops.
    """

    def __init__(
        self,
        step: Callable[[], bool],
        *,
        speed: float = 1.0,
        on_change: Callable[[bool], None] | None = None,
    ) -> None:
        self._step = step
        self.speed = check_speed(speed)
        self.on_change = on_change
        self.playing = False
        #: Actions played by ticks since the pacer was made.
        self.ticks = 0
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def interval_s(self) -> float:
        """Seconds between two actions."""
        return 1.0 / self.speed

    def set_speed(self, value: Any) -> float:
        """Change the pace (takes effect at the next tick); ValueError out of range."""
        self.speed = check_speed(value)
        return self.speed

    @property
    def scheduled(self) -> bool:
        """Whether a tick is waiting on the event loop."""
        return self._handle is not None

    def play(self) -> bool:
        """Start playing; returns whether a timer runs (False: no event loop,
        use :meth:`tick` or :meth:`drain`)."""
        was = self.playing
        self.playing = True
        if not was and self.on_change is not None:
            self.on_change(True)
        self._loop = _running_loop()
        if self._loop is None:
            return False
        self._schedule()
        return True

    def pause(self) -> None:
        """Stop: the waiting tick is cancelled, nothing more is played."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        was = self.playing
        self.playing = False
        if was and self.on_change is not None:
            self.on_change(False)

    def _schedule(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        assert self._loop is not None
        self._handle = self._loop.call_later(self.interval_s, self._timer)

    def _timer(self) -> None:
        self._handle = None
        if self.tick() and self._loop is not None and self.playing:
            self._schedule()

    def tick(self) -> bool:
        """Play one action now if playing; returns whether to go on."""
        if not self.playing:
            return False
        try:
            go_on = bool(self._step())
        except Exception:
            self.pause()
            raise
        self.ticks += 1
        if not go_on:
            self.pause()
        return go_on and self.playing

    def drain(self, limit: int = 5000) -> int:
        """Tick until the pacer stops (at most ``limit`` actions); the count."""
        n = 0
        while self.playing and n < limit:
            self.tick()
            n += 1
        return n


class PaceControls(w.HBox):  # type: ignore[misc]
    """A Play / Pause toggle and a speed field over a :class:`Pacer`.

    Args:
        pacer: the pacer to drive.
        message: an HTML widget for messages (a bad speed is said there).
    """

    def __init__(self, pacer: Pacer, message: w.HTML) -> None:
        self.pacer = pacer
        self.message = message
        self.toggle = w.ToggleButton(
            value=False,
            description="Play",
            icon="play",
            tooltip="play the AI's actions one by one at this pace",
            layout=w.Layout(width="auto"),
        )
        self.toggle.add_class("wargame-play")
        self.speed = w.FloatText(
            value=pacer.speed,
            step=0.25,
            description="actions/s",
            style={"description_width": "initial"},
            tooltip=f"{MIN_SPEED:g} to {MAX_SPEED:g} actions a second",
            layout=w.Layout(width="130px"),
        )
        self.speed.add_class("wargame-speed")
        self._syncing = False
        self.toggle.observe(self._toggled, "value")
        self.speed.observe(self._speed_changed, "value")
        pacer.on_change = self._show
        super().__init__([self.toggle, self.speed])
        self.layout.align_items = "center"

    def _toggled(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        if change["new"]:
            self.pacer.play()
        else:
            self.pacer.pause()

    def _show(self, playing: bool) -> None:
        self._syncing = True
        try:
            with self.toggle.hold_sync():
                self.toggle.value = playing
                self.toggle.description = "Pause" if playing else "Play"
                self.toggle.icon = "pause" if playing else "play"
        finally:
            self._syncing = False

    def _speed_changed(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        try:
            self.pacer.set_speed(change["new"])
        except ValueError as exc:
            self.message.value = error_html(str(exc))
            self._syncing = True
            try:
                self.speed.value = self.pacer.speed
            finally:
                self._syncing = False
