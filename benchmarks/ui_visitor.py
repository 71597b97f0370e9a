"""A classroom visitor at the protocol level: what a pupil's browser asks of the server.

Used by ``bench_ui.py --remote``: on a 2-core machine ten real Chromiums cost
about 50 s of CPU between them, so a class of ten browsers on the server's own
cores measures the browsers, not the server.  In a class each pupil's browser
runs on the pupil's machine; what the classroom server sees of it is this
sequence, which :class:`Visitor` replays over HTTP and the kernel's websocket
(nothing rendered, nothing executed):

1. ``GET /`` (Voila hands out a pre-heated kernel) and every script and style
   sheet the page names from the server;
2. the kernel's websocket (``/api/kernels/<id>/channels``), ``kernel_info``;
3. ipywidgets' ``jupyter.widget.control`` comm and its ``request_states``: the
   state of every widget of the app, the map picture included (what the
   browser needs before it can draw anything);
4. a click on the map, as ipyleaflet's front end sends it (an ``interaction``
   message of type ``click`` at the map's centre), until the hex info panel's
   new text comes back.

``opened`` is the time until step 3 is answered (the page could be drawn),
``clicked`` the time until step 4 is (the page is interactive).
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import websocket

INFO_CLASS = "wargame-hex-info-panel"


@dataclass
class Visit:
    """Seconds from the visitor's start (None where the step was not reached)."""

    page: float | None = None
    opened: float | None = None
    clicked: float | None = None
    error: str = ""
    assets: int = 0
    state_bytes: int = 0


PROTOCOL = "v1.kernel.websocket.jupyter.org"  # what JupyterLab's front end speaks


def _encode(channel: str, parts: list[bytes]) -> bytes:
    """A message in the kernel websocket protocol v1 (offsets, channel, parts)."""
    chan = channel.encode()
    offsets = [8 * (1 + 1 + len(parts) + 1)]
    offsets.append(offsets[-1] + len(chan))
    for p in parts:
        offsets.append(offsets[-1] + len(p))
    head = len(offsets).to_bytes(8, "little")
    return (
        head
        + b"".join(o.to_bytes(8, "little") for o in offsets)
        + chan
        + b"".join(parts)
    )


def _decode(frame: bytes) -> dict[str, Any]:
    """A message of the v1 protocol: header, parent, metadata, content, buffers."""
    n = int.from_bytes(frame[:8], "little")
    offsets = [
        int.from_bytes(frame[8 * (i + 1) : 8 * (i + 2)], "little") for i in range(n)
    ]
    offsets.append(len(frame))
    parts = [frame[offsets[i] : offsets[i + 1]] for i in range(n)]
    header, parent, metadata, content = (json.loads(p) for p in parts[1:5])
    return {
        "channel": parts[0].decode(),
        "header": header,
        "parent_header": parent,
        "metadata": metadata,
        "content": content,
        "_bytes": len(frame),
    }


@dataclass
class Visitor:
    """One pupil opening ``base`` (``http://127.0.0.1:PORT/``)."""

    base: str
    timeout: float = 300.0
    session: str = field(default_factory=lambda: uuid.uuid4().hex)

    def _msg(
        self,
        msg_type: str,
        content: dict[str, Any],
        metadata: dict[str, Any] | None = None,
    ) -> bytes:
        header = {
            "msg_id": uuid.uuid4().hex,
            "msg_type": msg_type,
            "username": "pupil",
            "session": self.session,
            "date": datetime.now(UTC).isoformat(),
            "version": "5.3",
        }
        parts = [header, {}, metadata or {}, content]
        return _encode("shell", [json.dumps(p).encode() for p in parts])

    def _get(self, url: str) -> bytes:
        with urllib.request.urlopen(url, timeout=self.timeout) as r:
            return r.read()  # type: ignore[no-any-return]

    def visit(self, t0: float | None = None) -> Visit:
        """Open the page, load the widgets, click the map; never raises."""
        t0 = time.perf_counter() if t0 is None else t0
        out = Visit()
        try:
            self._visit(t0, out)
        except Exception as e:  # a benchmark reports, it does not stop
            out.error = f"{type(e).__name__}: {e}"
        return out

    def _visit(self, t0: float, out: Visit) -> None:
        html = self._get(self.base).decode()
        kernel = re.search(r'"kernelId": "([0-9a-f-]+)"', html)
        if kernel is None:
            raise RuntimeError("the page names no kernel")
        for src in re.findall(r'<(?:script|link)[^>]*(?:src|href)="(/[^"]+)"', html):
            self._get(self.base.rstrip("/") + src)  # the page's own static files
            out.assets += 1
        out.page = time.perf_counter() - t0
        ws_url = self.base.replace("http", "ws", 1).rstrip("/")
        ws = websocket.create_connection(
            f"{ws_url}/api/kernels/{kernel.group(1)}/channels?session_id={self.session}",
            timeout=self.timeout,
            subprotocols=[PROTOCOL],
        )
        try:
            ws.send_binary(self._msg("kernel_info_request", {}))
            self._until(ws, lambda m: m["header"]["msg_type"] == "kernel_info_reply")
            control = uuid.uuid4().hex
            ws.send_binary(
                self._msg(
                    "comm_open",
                    {
                        "comm_id": control,
                        "target_name": "jupyter.widget.control",
                        "data": {},
                    },
                    {"version": "1.0.0"},  # ipywidgets' control protocol
                )
            )
            ws.send_binary(
                self._msg(
                    "comm_msg",
                    {"comm_id": control, "data": {"method": "request_states"}},
                )
            )
            states = self._until(
                ws,
                lambda m: (
                    m["header"]["msg_type"] == "comm_msg"
                    and m["content"].get("comm_id") == control
                ),
            )
            out.opened = time.perf_counter() - t0
            out.state_bytes = int(states.get("_bytes", 0))
            found = states["content"]["data"].get("states", {})
            map_id, centre, info_id = None, None, None
            for mid, s in found.items():
                st = s.get("state", {})
                if st.get("_model_name") == "LeafletMapModel":
                    map_id, centre = mid, st.get("center")
                if INFO_CLASS in st.get("_dom_classes", []):
                    info_id = mid
            if map_id is None or info_id is None or centre is None:
                raise RuntimeError("no map or no hex info panel among the widgets")
            click = {"event": "interaction", "type": "click", "coordinates": centre}
            ws.send_binary(
                self._msg(
                    "comm_msg",
                    {"comm_id": map_id, "data": {"method": "custom", "content": click}},
                )
            )
            self._until(
                ws,
                lambda m: (
                    m["header"]["msg_type"] == "comm_msg"
                    and m["content"].get("comm_id") == info_id
                    and m["content"]["data"].get("method") in ("update", "echo_update")
                ),
            )
            out.clicked = time.perf_counter() - t0
        finally:
            ws.close()

    def _until(self, ws: Any, want: Any) -> dict[str, Any]:
        end = time.perf_counter() + self.timeout
        while (left := end - time.perf_counter()) > 0:
            ws.settimeout(left)
            msg = _decode(ws.recv())
            if msg["header"]["msg_type"] == "comm_close":
                raise RuntimeError(f"the kernel closed a comm: {msg['content']}")
            if want(msg):
                return msg
        raise TimeoutError("no answer from the kernel")
