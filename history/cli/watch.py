"""`recall watch`: every agent's sessions imported as the agent writes them, and
`recall watch --install` / `--uninstall`: the same as a user service.

It runs until stopped: SIGTERM (a service manager's stop) ends it with 0, Ctrl-C with 130.
A line per imported session goes to stderr (none with --quiet); stdout stays empty.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from history.cli.common import FAILED, NOTHING, OK, USAGE, Commands
from history.cli.language import _
from history.cli.remote_words import add_server_option

if TYPE_CHECKING:
    from history.importers.base import Places
    from history.importers.run import TurnSink
    from history.watch.follow import Imported
    from history.watch.service import Service


def cmd_watch(args: argparse.Namespace) -> int:
    from history.importers.base import Places

    places = Places.here()
    root = None if args.path is None else Path(args.path).expanduser()
    if root is not None and not root.exists():
        print(_("recall watch: {path} does not exist", path=args.path), file=sys.stderr)
        return USAGE
    if args.install or args.uninstall:
        return _service(args, places)
    from history.cli.remote_words import remote_sink
    from history.domain import READ_ONLY
    from history.importers import FORMATS
    from history.index import history_for
    from history.watch.follow import Settings, Watch

    stop = threading.Event()
    remote = remote_sink(args, "watch", bounded=False, once=True)
    index: TurnSink
    if remote is not None:  # a team's service: what waits goes again every little while
        threading.Thread(target=remote.keep_delivering, args=(stop,), daemon=True).start()
        index = remote
    else:
        index = local = history_for(args.home, args.database_url)
        if not local.writable:
            reason = _(READ_ONLY)
            print(_("recall watch: nothing imported: {reason}", reason=reason), file=sys.stderr)
            return FAILED
        local.embed_in_background()  # search by meaning, where installed
    settings = Settings(path=root, poll=args.poll)
    watch = Watch(index, list(FORMATS.values()), places, settings, _said(args.quiet), _noted(args))
    stopping = threading.current_thread() is threading.main_thread()
    # Ctrl-C stops it as SIGTERM does, at the end of what it is doing: a KeyboardInterrupt
    # raised anywhere (inside a write, a lock the upkeep waits for) could leave it unable to
    # close. The CLI says "interrupted" and exits 130 once it has stopped.
    interrupted = threading.Event()

    def on_ctrl_c(*_: object) -> None:
        interrupted.set()
        stop.set()

    previous = (
        (
            signal.signal(signal.SIGTERM, lambda *_: stop.set()),
            signal.signal(signal.SIGINT, on_ctrl_c),
        )
        if stopping
        else None
    )
    try:
        watch.run(stop)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous[0])
            signal.signal(signal.SIGINT, previous[1])
    if interrupted.is_set():
        raise KeyboardInterrupt
    return OK


def _said(quiet: bool) -> Callable[[Imported], None]:
    def say(done: Imported) -> None:
        if done.unreadable:
            line = _("recall watch: {path} could not be read", path=done.path)
        elif quiet:
            return
        else:
            line = _(
                "recall watch: {path}: {new} new, {updated} updated",
                path=done.path,
                new=done.new,
                updated=done.updated,
            )
        print(line, file=sys.stderr, flush=True)

    return say


def _noted(args: argparse.Namespace) -> Callable[[str, str], None]:
    def note(event: str, detail: str) -> None:
        if event == "polling":
            line = _(
                "recall watch: file notifications are not available ({reason}); "
                "looking at every file each second instead",
                reason=detail,
            )
        elif event == "restarting":
            line = _(
                "recall watch: the file watcher stopped ({reason}); starting it again",
                reason=detail,
            )
        elif event == "not imported":
            line = _(
                "recall watch: {file} could not be imported; trying again within a minute",
                file=detail,
            )
        elif args.quiet:
            return
        elif event == "following":
            line = _("recall watch: following {roots}", roots=detail)
        else:
            line = _("recall watch: no agent's sessions found yet; looking again every minute")
        print(line, file=sys.stderr, flush=True)

    return note


def _service(args: argparse.Namespace, places: Places) -> int:
    from history.home import configured_url, resolve_home
    from history.watch import service

    if places.system not in ("Linux", "Darwin"):
        print(
            _(
                "recall watch: --install knows systemd (Linux) and launchd (macOS); on {system}, "
                "start `recall watch` when you log in",
                system=places.system,
            ),
            file=sys.stderr,
        )
        return USAGE
    if args.uninstall:
        removed = service.uninstall(places)
        if removed is None:
            print(_("No recall watch service is installed."))
            return NOTHING
        print(_("Removed {file}.", file=removed.file))
        _unless_ran(removed)
        return OK
    url = configured_url(args.database_url)
    options = ["--database-url", url] if url else ["--home", str(resolve_home(args.home))]
    command = service.recall_command(options)
    flags = (("--poll", args.poll), ("--quiet", args.quiet))
    command += [option for option, given in flags if given]
    server = _server_address(args)
    command += ["--server", server] if server else []
    if args.path:
        command.append(str(Path(args.path).expanduser().resolve()))
    installed = service.install(places, command)
    if installed.ran:
        print(_("Installed {file}; recall watch is running.", file=installed.file))
    else:
        print(_("Wrote {file}.", file=installed.file))
        _unless_ran(installed)
    return OK


def _server_address(args: argparse.Namespace) -> str | None:
    """The service's address for the unit (its key is not written there: RECALL_KEY must be in
    the service manager's environment)."""
    from history.cli.remote_words import service_of
    from history.remote.settings import BadAddress

    try:
        service = service_of(args)
    except BadAddress:
        return None
    return service.url if service is not None else None


def _unless_ran(done: Service) -> None:
    if not done.ran:
        print(_("To tell the service manager, run:"))
        for command in done.commands:
            print("    " + " ".join(command))


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    """Add the watch sub-command."""
    parser = commands.add_parser(
        "watch",
        parents=[common],
        help=_("import every agent's sessions as they are written"),
        description=_(
            "Follow every agent's store (or PATH) and import new and grown sessions within "
            "seconds of the agent writing them, until stopped. Forgotten conversations stay "
            "forgotten."
        ),
    )
    parser.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help=_("a transcript file or a folder to follow instead of every agent's store"),
    )
    parser.add_argument(
        "--quiet", action="store_true", help=_("say nothing about each session imported")
    )
    add_server_option(parser)
    parser.add_argument(
        "--poll",
        action="store_true",
        help=_("look at every file each second instead of relying on file notifications"),
    )
    service = parser.add_mutually_exclusive_group()
    service.add_argument(
        "--install",
        action="store_true",
        help=_("run recall watch as a user service (systemd on Linux, launchd on macOS)"),
    )
    service.add_argument(
        "--uninstall", action="store_true", help=_("stop and remove that user service")
    )
    parser.set_defaults(run=cmd_watch)
