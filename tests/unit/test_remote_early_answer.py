"""A service that answers before it has read the body (413 on the declared size) and closes: the
hook read the broken pipe as "cannot take turns now" and kept the turn to send again forever,
where the service had refused it for good."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from history.remote.client import Client, Verdict
from history.remote.settings import Service

ANSWER = (
    b"HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: application/json\r\n"
    b'Content-Length: 42\r\nConnection: close\r\n\r\n{"detail": "the body is over 1000 bytes"}'
)


@pytest.fixture
def answers_early() -> Iterator[str]:
    """A server that reads the request's head only, answers 413 and closes at once."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            head = b""
            while b"\r\n\r\n" not in head:
                head += connection.recv(4096)
            connection.sendall(ANSWER)
            # Closing with the body unread makes the kernel reset the connection.
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    thread.join(timeout=5)
    listener.close()


def test_a_service_that_answers_before_reading_the_body_refuses_the_turn(
    answers_early: str,
) -> None:
    answer = Client(Service(answers_early, key=None), timeout=5.0).post_turn(b"x" * 8_000_000)
    assert answer.verdict is Verdict.REFUSED and answer.status == 413
    assert answer.reason == "the body is over 1000 bytes"
