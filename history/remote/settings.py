"""Which service turns go to: `--server URL`, else `$RECALL_SERVER`; the key in `$RECALL_KEY`
(never on the command line, where any process on the machine could read it)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from urllib.parse import urlsplit

SERVER_VARIABLE, KEY_VARIABLE = "RECALL_SERVER", "RECALL_KEY"
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


class AddressProblem(Enum):
    """Why an address cannot be used (the CLI words each)."""

    NOT_HTTP = "not-http"  # no http:// or https:// address
    NO_HOST = "no-host"
    CREDENTIALS = "credentials"  # user:password@ in the address: the key belongs in RECALL_KEY
    QUERY = "query"  # a ?query or #fragment, which the API's paths would lose
    KEY_IN_THE_CLEAR = "key-in-the-clear"  # a key over http:// to another machine


@dataclass(frozen=True)
class Service:
    url: str  # scheme, host, port and any path prefix, no trailing slash
    key: str | None

    @property
    def turns_url(self) -> str:
        return f"{self.url}/api/code/turns"


class BadAddress(ValueError):
    def __init__(self, address: str, problem: AddressProblem) -> None:
        super().__init__(f"{address}: {problem.value}")
        self.address, self.problem = address, problem


def configured_service(server: str | None, environ: Mapping[str, str]) -> Service | None:
    """The service named by `server` or the environment; None when none is. Raises
    BadAddress for an address that cannot be used."""
    address = (server or environ.get(SERVER_VARIABLE) or "").strip()
    if not address:
        return None
    key = environ.get(KEY_VARIABLE, "").strip() or None
    return Service(checked_url(address, key is not None), key)


def checked_url(address: str, with_key: bool) -> str:
    try:
        parts = urlsplit(address)
        host, _port = parts.hostname, parts.port  # a port that is no number raises here
    except ValueError:
        raise BadAddress(address, AddressProblem.NOT_HTTP) from None
    if parts.scheme.lower() not in ("http", "https"):
        raise BadAddress(address, AddressProblem.NOT_HTTP)
    if not host:
        raise BadAddress(address, AddressProblem.NO_HOST)
    if parts.username is not None or parts.password is not None:
        raise BadAddress(address, AddressProblem.CREDENTIALS)
    if parts.query or parts.fragment:
        raise BadAddress(address, AddressProblem.QUERY)
    if with_key and parts.scheme.lower() == "http" and not loopback(host):
        raise BadAddress(address, AddressProblem.KEY_IN_THE_CLEAR)
    return address.rstrip("/")


def loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
