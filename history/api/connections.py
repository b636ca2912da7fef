"""Connections nobody can hold open for nothing (uvicorn's h11 protocol, with a deadline).

A request must arrive whole, its head and its body, within `read_seconds` of the connection
opening or of its first byte on a kept-alive connection; otherwise the connection is closed.
Between requests, uvicorn's own keep-alive timer closes an idle connection. uvicorn alone
waits forever for a connection that never sends a full request (a stalled body, a slow head).
"""

from __future__ import annotations

import asyncio
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from history.serve_settings import REQUEST_READ_SECONDS

log = logging.getLogger(__name__)

# The client's side of the connection while a request is still on its way to us.
_READING = (h11.IDLE, h11.SEND_BODY)


def with_read_deadline(seconds: float) -> type[H11Protocol]:
    """The h11 protocol class whose requests must arrive within `seconds`."""
    return type("DeadlineH11Protocol", (DeadlineH11Protocol,), {"read_seconds": seconds})


class DeadlineH11Protocol(H11Protocol):
    read_seconds = REQUEST_READ_SECONDS
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)
        self._settle()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._settle()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.read_seconds, self._read_timed_out)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _settle(self) -> None:
        """The whole request is in (or the connection is done with): no deadline any more.
        An idle connection between requests is the keep-alive timer's."""
        whole = self.conn.their_state not in _READING
        idle = self.conn.their_state is h11.IDLE and not self.conn.trailing_data[0]
        if whole or (idle and self.cycle is not None and self.cycle.response_complete):
            self._disarm()

    def _read_timed_out(self) -> None:
        self._deadline = None
        if self.conn.their_state in _READING and not self.transport.is_closing():
            log.info("closed a connection whose request did not arrive in %ss", self.read_seconds)
            self.transport.close()
