"""`recall serve`: the HTTP API on uvicorn. Loopback unless a token guards it (or
`--open-to-network-without-token` says that is meant); answering only its own names.

`recall serve` (history/cli/serving.py) parses the options and calls `serve`;
`python -m history.api.serve ARGS` is the same command.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import socket
import sys
from collections.abc import Sequence

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.supervisors import Multiprocess

from history.api.app import create_app
from history.api.connections import DeadlineH11Protocol, with_read_deadline
from history.api.origin_guard import split_host
from history.home import DATABASE_NAME, DATABASE_URL_VARIABLE, configured_url, resolve_home
from history.index import HistoryIndex, history_for
from history.serve_settings import KEEP_ALIVE_SECONDS, LOG_LEVELS, REQUEST_READ_SECONDS


def is_loopback(host: str) -> bool:
    """`127.0.0.0/8`, `::1` and `localhost`; anything else (a name, `0.0.0.0`) is not."""
    name = host.strip().removeprefix("[").removesuffix("]").lower()
    if name in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, port: int, token: str | None, open_without_token: bool = False) -> None:
    """Raise ValueError, with the sentence to print, for a bind that must not happen: another
    address than loopback needs a token, unless `open_without_token` says it is meant."""
    if not 0 <= port <= 65_535:
        raise ValueError(f"port {port} is not a TCP port (0 to 65535)")
    if not token and not is_loopback(host) and not open_without_token:
        raise ValueError(
            f'refusing to serve on "{host}": only a loopback address (127.0.0.1, ::1, localhost) '
            "may be bound without a token; set RECALL_TOKEN so clients must send "
            "`Authorization: Bearer <token>`, bind 127.0.0.1, or pass "
            "--open-to-network-without-token to let anyone who reaches it read, change and "
            "forget the whole history"
        )


def guarded_by_keys(home: str | None, database_url: str | None) -> bool:
    """Whether the database holds members' keys, so that every request needs one. A home
    with no database yet holds none: it is not created only to be asked."""
    if configured_url(database_url) is None and not (resolve_home(home) / DATABASE_NAME).exists():
        return False
    index = history_for(home, database_url)
    try:
        return index.members.apply
    finally:
        index.close()


def check_host_name(name: str) -> None:
    """Raise ValueError for an `--allow-host` value that no Host header's name can be."""
    address = split_host(name)
    if not name.strip() or address is None or address[1] is not None or "," in name:
        raise ValueError(
            f'"{name}" is not a host name for --allow-host (a name or address, without a port)'
        )


def _closing_on_shutdown(app: ASGIApp, index: HistoryIndex) -> ASGIApp:
    """Watch for owed forget work while serving; close the index when the server shuts down.
    uvicorn re-raises SIGTERM after a graceful shutdown, so code after `uvicorn.run` would not
    run then; lifespan shutdown does."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            return await app(scope, receive, send)

        async def send_closing(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete":
                index.watch()  # finish forget work other processes left owed
            if message["type"].startswith("lifespan.shutdown."):
                index.close()
            await send(message)

        await app(scope, receive, send_closing)

    return wrapped


class _Announcing(uvicorn.Server):
    """uvicorn's server, saying once it listens where it is and what it serves."""

    def __init__(self, config: uvicorn.Config, serving: str) -> None:
        super().__init__(config)
        self.serving = serving

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        for server in self.servers:
            for listening in server.sockets:
                host, port = listening.getsockname()[:2]
                address = f"[{host}]" if ":" in host else host
                # Whatever the log level: where it listens is the first thing a person needs.
                print(
                    f"recall serve: listening on http://{address}:{port} ({self.serving})",
                    file=sys.stderr,
                    flush=True,
                )


def what_is_served(index: HistoryIndex, guarded: bool) -> str:
    about = index.about()
    token = "every request but /healthz and the page needs the token" if guarded else "no token"
    if index.members.apply:
        token = "every request but /healthz and the page needs a member's key"
        token += " or the token" if guarded else ""
    return f"{about.where}, {about.search}; {token}"


READ_TIMEOUT_VARIABLE = "RECALL_READ_TIMEOUT"
LOG_LEVEL_VARIABLE = "RECALL_LOG_LEVEL"
# The names `--allow-host` added, for worker processes: comma-separated (no name holds a comma).
ALLOWED_HOSTS_VARIABLE = "RECALL_ALLOWED_HOSTS"


def _log_to_stderr(log_level: str) -> None:
    """Our own lines at the level asked for; other libraries' only from a warning up."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(message)s")
    logging.getLogger("history").setLevel(log_level.upper())


def app_from_environment() -> ASGIApp:
    """The service of one worker process (`workers` > 1): its index, token, log level and read
    deadline are named by the environment the parent process set (`$RECALL_DATABASE_URL`, else
    `$RECALL_HOME`; `$RECALL_TOKEN`; `$RECALL_LOG_LEVEL`; `$RECALL_READ_TIMEOUT`)."""
    _log_to_stderr(os.environ.get(LOG_LEVEL_VARIABLE, "info"))
    seconds = os.environ.get(READ_TIMEOUT_VARIABLE)
    if seconds:
        DeadlineH11Protocol.read_seconds = float(seconds)
    index = history_for(None)
    token = os.environ.get("RECALL_TOKEN") or None
    hosts = [name for name in os.environ.get(ALLOWED_HOSTS_VARIABLE, "").split(",") if name]
    return _closing_on_shutdown(create_app(index, token=token, allowed_hosts=hosts), index)


def _serve_workers(config: uvicorn.Config, serving: str, environment: dict[str, str]) -> None:
    """uvicorn's worker processes, each with its own index on the same database, sharing one
    socket bound here, so the start-up line can say where they listen."""
    os.environ.update(environment)
    sock = config.bind_socket()
    sock.listen(config.backlog)  # connections queue until a worker takes them
    host, port = sock.getsockname()[:2]
    address = f"[{host}]" if ":" in host else host
    print(f"recall serve: listening on http://{address}:{port} ({serving})", file=sys.stderr)
    sys.stderr.flush()
    Multiprocess(config, sockets=[sock]).run()


def _worker_environment(
    home: str | None,
    url: str | None,
    token: str | None,
    log_level: str,
    read_timeout: float,
    allowed_hosts: Sequence[str],
) -> dict[str, str]:
    environment = {
        LOG_LEVEL_VARIABLE: log_level,
        READ_TIMEOUT_VARIABLE: str(read_timeout),
        ALLOWED_HOSTS_VARIABLE: ",".join(allowed_hosts),
    }
    if home is not None:
        environment["RECALL_HOME"] = str(home)
    if url is not None:
        environment[DATABASE_URL_VARIABLE] = url
    if token:
        environment["RECALL_TOKEN"] = token
    return environment


def serve(
    home: str | None,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    log_level: str = "info",
    read_timeout: float = REQUEST_READ_SECONDS,
    keep_alive: int = KEEP_ALIVE_SECONDS,
    database_url: str | None = None,
    workers: int = 1,
    allowed_hosts: Sequence[str] = (),
    open_without_token: bool = False,
) -> None:
    """Serve the index of `home` (or of `database_url`, default `$RECALL_DATABASE_URL`) until
    Ctrl-C or SIGTERM, in `workers` processes. `token` defaults to `$RECALL_TOKEN`. Requests
    are answered when addressed to loopback, the address they arrived on or `allowed_hosts`.

    Raises ValueError, before opening anything, for a non-loopback `host` without a token
    (unless `open_without_token`) or a name in `allowed_hosts` that no Host header can be.
    Logs on stderr a start-up line and, at `info`, one line per request (never a query value).
    A request must arrive whole within `read_timeout` seconds; an idle connection between
    requests closes after `keep_alive` seconds.
    """
    if token is None:
        token = os.environ.get("RECALL_TOKEN") or None
    elif not token:
        raise ValueError("the token is empty; pass a secret or leave it unset")
    if not token and not is_loopback(host) and not open_without_token:
        open_without_token = guarded_by_keys(home, database_url)  # keys guard it instead
    check_bind(host, port, token, open_without_token)
    for name in allowed_hosts:
        check_host_name(name)
    if log_level not in LOG_LEVELS:
        raise ValueError(f"log level {log_level!r} is not one of {', '.join(LOG_LEVELS)}")
    _log_to_stderr(log_level)
    if workers > 1:
        environment = _worker_environment(
            home, database_url, token, log_level, read_timeout, allowed_hosts
        )
        config = uvicorn.Config(
            "history.api.server:app_from_environment",
            factory=True,
            workers=workers,
            host=host,
            port=port,
            http="history.api.connections:DeadlineH11Protocol",
            timeout_keep_alive=keep_alive,
            log_level="debug" if log_level == "debug" else "warning",
            access_log=False,
        )
        index = history_for(home, database_url)  # migrates once, before the workers start
        try:
            serving = what_is_served(index, token is not None) + f"; {workers} workers"
        finally:
            index.close()
        with contextlib.suppress(KeyboardInterrupt):
            _serve_workers(config, serving, environment)
        return
    index = history_for(home, database_url)
    try:
        service = create_app(index, token=token, allowed_hosts=allowed_hosts)
        config = uvicorn.Config(
            _closing_on_shutdown(service, index),
            host=host,
            port=port,
            http=with_read_deadline(read_timeout),
            timeout_keep_alive=keep_alive,
            # uvicorn's own lines stay quiet below a warning: the access log here never shows
            # a query, and the start-up line says more than uvicorn's.
            log_level="debug" if log_level == "debug" else "warning",
            access_log=False,
        )
        serving = what_is_served(index, token is not None)
        _Announcing(config, serving).run()
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its graceful shutdown
        pass
    finally:
        index.close()
