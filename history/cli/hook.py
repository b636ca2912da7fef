"""`recall hook AGENT`: the transcript an agent's hook names, into the index (or a team's service).

`recall hook claude-code` runs inside Claude Code after every turn: it prints nothing to stdout
(Claude Code reads a hook's stdout), exits 0 whatever happens, and speaks only on stderr. It is
a new process for every turn, so it loads only what recording needs: the one agent's reader
(history.importers.FORMATS imports each when named) and, for a current SQLite file, no index
(history/direct_record.py).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys

from history.cli import language
from history.cli.common import OK, Commands
from history.cli.language import _
from history.cli.remote_words import add_server_option, remote_sink
from history.domain import READ_ONLY
from history.importers.hooks import HOOK_AGENTS
from history.importers.run import ImportSummary, import_hook

HOOK_SECONDS = 10.0  # the most a hook spends sending to a service; the rest waits its turn


def cmd_hook(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="recall hook: %(message)s")
    # Nothing may reach stdout, even from a library that prints: Claude Code would read it.
    with contextlib.redirect_stdout(sys.stderr):
        try:
            # Codex's notify hands its JSON as the last argument; the others write it on stdin.
            payload = args.payload if args.payload is not None else sys.stdin.read()
            sink = remote_sink(args, "hook")
            if sink is not None:  # a team's service: the local history is not opened
                summary = import_hook(sink, payload, args.agent)
                return _hook_problems(summary)
            # A current SQLite file is written through its driver alone (no SQLAlchemy).
            from history.direct_record import direct_recorder

            direct = direct_recorder(args.home, args.database_url)
            if direct is not None:
                summary = import_hook(direct, payload, args.agent)
                return _hook_problems(summary)
            from history.index import history_for  # the index and its storage: local only

            index = history_for(args.home, args.database_url)
            if not index.writable:
                print(
                    _("recall hook: nothing imported: {reason}", reason=_(READ_ONLY)),
                    file=sys.stderr,
                )
                return OK
            summary = import_hook(index, payload, args.agent)
        except Exception as error:  # a hook never breaks the agent's turn
            print(
                _("recall hook: nothing imported ({error})", error=type(error).__name__),
                file=sys.stderr,
            )
            return OK
        return _hook_problems(summary)


def _hook_problems(summary: ImportSummary | None) -> int:
    if summary is not None and (summary.unreadable or summary.failed):
        for problem in summary.as_dict()["problems"] or [summary.sentence(language.messages())]:
            print(f"recall hook: {problem}", file=sys.stderr)
    return OK


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    """Add the hook sub-command."""
    hook = commands.add_parser(
        "hook",
        parents=[common],
        help=_("import the transcript an agent's hook names (reads the hook JSON on stdin)"),
        description=_(
            "Run from an agent's hook (Claude Code's Stop, Gemini CLI's AfterAgent, Cursor's "
            "stop, Codex's notify): imports just that conversation's transcript, or with "
            "--server (or $RECALL_SERVER) posts its new turns to a team's service. "
            "Prints nothing on stdout and always exits 0."
        ),
    )
    hook.add_argument("agent", choices=HOOK_AGENTS, help=_("the agent calling the hook"))
    hook.add_argument(
        "payload",
        nargs="?",
        help=_("the hook's JSON, when the agent passes it as an argument (Codex's notify)"),
    )
    add_server_option(hook)
    hook.set_defaults(run=cmd_hook)
