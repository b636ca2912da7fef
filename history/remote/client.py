"""`POST /api/code/turns` with the standard library's http.client, and what each answer means.

A turn the service stored (201, whatever its outcome) is delivered. One it will never take as
sent (any other 4xx: too large, malformed) is refused, and kept aside rather than tried forever.
Everything else is "later": no connection, a timeout, a 5xx, 408 and 429 (busy), 401 / 403 (the
key is wrong or lacks the right to record: fixing the key sends the turn), and what says the
address is wrong rather than the turn (a redirect, 404, 405, 421): fixing the address sends it.
Redirects are not followed: they would turn the POST into a GET, or carry the key elsewhere.
A service may answer before it has read the whole body (413 on the declared size) and close the
connection: the broken pipe that ends the send is then read past, to the answer already given.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import urllib.parse
from dataclasses import dataclass
from enum import Enum

from history.remote.settings import Service

TIMEOUT_SECONDS = 5.0
KEY_STATUSES = frozenset({401, 403})
BUSY_STATUSES = frozenset({408, 429})
ADDRESS_STATUSES = frozenset({404, 405, 421})  # no such endpoint here, or not this name
REASON_CHARS = 300


class Verdict(Enum):
    DELIVERED = "delivered"
    LATER = "later"
    REFUSED = "refused"


@dataclass(frozen=True)
class Answer:
    verdict: Verdict
    status: int | None = None  # the HTTP status; None when no answer came
    outcome: str = ""  # new, updated, unchanged or spooled, for a delivered turn
    reason: str = ""  # the service's detail, or the connection's error, one line

    @property
    def key_refused(self) -> bool:
        return self.status in KEY_STATUSES

    @property
    def wrong_address(self) -> bool:
        return self.status in ADDRESS_STATUSES or (self.status or 0) // 100 == 3


def verdict_of(status: int) -> Verdict:
    if 200 <= status < 300:
        return Verdict.DELIVERED
    if 400 <= status < 500 and status not in KEY_STATUSES | BUSY_STATUSES | ADDRESS_STATUSES:
        return Verdict.REFUSED
    return Verdict.LATER


class Client:
    """Posts bodies (history.remote.body) to one service."""

    def __init__(self, service: Service, timeout: float = TIMEOUT_SECONDS) -> None:
        self.service, self.timeout = service, timeout
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if service.key:
            self._headers["Authorization"] = f"Bearer {service.key}"

    def post_turn(self, body: bytes) -> Answer:
        try:
            status, headers, reply = self._post(body)
        except (OSError, http.client.HTTPException, ValueError) as error:
            return Answer(Verdict.LATER, reason=_connection_error(error))
        if 300 <= status < 400:
            moved = f"moved to {headers.get('Location', '?')}"[:REASON_CHARS]
            return Answer(Verdict.LATER, status, reason=moved)
        verdict = verdict_of(status)
        if verdict is Verdict.DELIVERED:
            outcome = reply.get("outcome") if isinstance(reply, dict) else None
            return Answer(verdict, status, outcome=str(outcome or "new"))
        return Answer(verdict, status, reason=_detail(reply, status))

    def _post(self, body: bytes) -> tuple[int, http.client.HTTPMessage, object]:
        url = urllib.parse.urlsplit(self.service.turns_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"not an http(s) address: {self.service.url}")
        kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        connection = kind(url.hostname, url.port, timeout=self.timeout)
        try:
            # The service may answer early and close: its answer is still there to be read.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                connection.request("POST", url.path or "/", body=body, headers=self._headers)
            response = connection.getresponse()
            return response.status, response.headers, _read(response)
        finally:
            connection.close()


def _read(response: http.client.HTTPResponse) -> object:
    try:
        return json.loads(response.read(64 * 1024))
    except (OSError, ValueError, http.client.HTTPException):
        return None


def _detail(reply: object, status: int) -> str:
    """The service's `detail`: a sentence, or for 422 the first `{loc, msg}`."""
    detail = reply.get("detail") if isinstance(reply, dict) else None
    if isinstance(detail, list) and detail and isinstance(detail[0], dict):
        where = ".".join(str(part) for part in detail[0].get("loc", []) if part != "body")
        detail = f"{where}: {detail[0].get('msg', '')}" if where else detail[0].get("msg")
    text = detail if isinstance(detail, str) and detail else http.client.responses.get(status, "")
    return " ".join(text.split())[:REASON_CHARS]


def _connection_error(error: BaseException) -> str:
    text = getattr(error, "strerror", None) or str(error) or type(error).__name__
    return " ".join(str(text).split())[:REASON_CHARS]
