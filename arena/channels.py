"""A seat played over a line channel: a person at a web page, or a bot on its owner's machine.

The referee cannot tell this seat from a sandboxed bot: it gets the same hello, events and requests as
protocol lines, and whatever comes back is parsed by the same protocol code (size, JSON, the answer's id)
and checked by the same rules. Only the transport differs, and it is not arena's business: the site hands
in a ``LineChannel`` (its live relay), a test hands in a queue.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from arena import protocol
from arena.players import MAX_STDOUT_BYTES, PlayerFailure, SeatReport
from arena.protocol import ProtocolError


class LineChannel(Protocol):
    """Both directions of one seat's conversation, one protocol line (bytes, no newline) at a time."""

    def send(self, lines: Sequence[bytes]) -> None:
        """Deliver these lines to the seat, in order. Never waits for the other side."""

    def receive(self, deadline: float) -> bytes | None:
        """The seat's next line, or None once ``deadline`` (time.monotonic()) has passed without one."""

    def close(self) -> None:
        """The conversation is over (the last lines are sent): the other side may stop listening."""


class ChannelPlayer:
    """A seat whose lines travel through a ``LineChannel``. Its clock is the referee's, as for any seat:
    a line that has not arrived by the deadline is a timeout, whatever kept it (a closed tab, a slow link)."""

    startup_allowance_ms = 0

    def __init__(self, label: str, channel: LineChannel):
        self.label = label
        self._channel = channel
        self._report = SeatReport()
        self._hung_up = False

    def launch(self, hello: dict[str, Any], deadline: float) -> None:
        self._send([hello])

    def wait_ready(self, deadline: float) -> dict[str, Any]:
        message = self._receive(deadline, "startup", "no ready within the start-up time")
        self._report.name = str(message.get("name", ""))[:protocol.MAX_NAME_CHARS]
        return message

    def send(self, message: dict[str, Any], deadline: float) -> None:
        self._send([message])

    def ask(self, request: dict[str, Any], deadline: float, before: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        self._send([*before, request])
        return self._receive(deadline, "move", f"no answer to request {request.get('id')}")

    def hang_up(self, farewell: Sequence[dict[str, Any]]) -> None:
        if self._hung_up:
            return
        self._hung_up = True
        try:
            self._send(farewell)
        finally:
            self._channel.close()

    def close(self, farewell: Sequence[dict[str, Any]] = ()) -> SeatReport:
        self.hang_up(farewell)
        return self._report

    # ---- the transport

    def _send(self, messages: Sequence[dict[str, Any]]) -> None:
        self._channel.send([protocol.encode(m).rstrip(b"\n") for m in messages])

    def _receive(self, deadline: float, limit: str, silence: str) -> dict[str, Any]:
        line = self._channel.receive(deadline)
        if line is None:
            raise PlayerFailure(protocol.TIMEOUT, limit, f"{silence}: the seat's connection stayed silent until "
                                f"its clock ran out")
        self._report.stdout_bytes += len(line) + 1
        if self._report.stdout_bytes > MAX_STDOUT_BYTES:
            raise PlayerFailure(protocol.PROTOCOL_ERROR, protocol.OUTPUT_LIMIT,
                                f"the seat sent more than {MAX_STDOUT_BYTES} bytes in one match")
        try:
            return protocol.decode(line)
        except ProtocolError as err:
            raise PlayerFailure(protocol.PROTOCOL_ERROR, err.code, err.detail) from None
