"""`recall import`: transcripts of other agents into the index (`recall hook`: hook.py).

`recall import --list` shows every agent, each place it may keep sessions on this machine, and
what is there; `recall import auto` imports from each of those places.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from history.cli import language
from history.cli.common import FAILED, NOTHING, OK, USAGE, Commands
from history.cli.language import _, ngettext, number
from history.domain import READ_ONLY
from history.importers import FORMATS, Places, TranscriptFormat, detect
from history.importers.auto import AgentPlaces, survey
from history.importers.run import ImportSummary, import_transcripts

AUTO = "auto"


def cmd_import(args: argparse.Namespace) -> int:
    if args.list:
        return _list(args.json)
    if args.format is None:
        print(_("recall import: name a format, auto, or --list"), file=sys.stderr)
        return USAGE
    root = None if args.path is None else Path(args.path).expanduser()
    if root is not None and not root.exists():
        print(_("recall import: {path} does not exist", path=args.path), file=sys.stderr)
        return USAGE
    if args.format != AUTO:
        formats = [FORMATS[args.format]]
    else:  # with a PATH: every format looks there; without: those with transcripts at home
        formats = list(FORMATS.values()) if root is not None else detect()
    from history.index import history_for

    index = history_for(args.home, args.database_url)
    if not index.writable:
        print(_("recall import: nothing imported: {reason}", reason=_(READ_ONLY)), file=sys.stderr)
        return FAILED
    if formats:
        summary = import_transcripts(
            index,
            formats,
            root,
            include_forgotten=args.include_forgotten,
            progress=sys.stderr.isatty(),
        )
    else:
        places = Places.here()
        roots = [str(where) for fmt in FORMATS.values() for where in fmt.candidate_roots(places)]
        summary = ImportSummary(roots=list(dict.fromkeys(roots)))
    if args.json:
        print(json.dumps(summary.as_dict(), ensure_ascii=False))
    else:
        print(summary.sentence(language.messages()))
        for problem in summary.as_dict()["problems"]:
            print(f"recall import: {problem}", file=sys.stderr)
    if summary.failed and not (summary.new or summary.updated or summary.unchanged):
        print(
            _(
                "recall import: turns were read but none could be recorded: the database "
                "cannot be written (`recall doctor --check-only` says whether it is damaged)."
            ),
            file=sys.stderr,
        )
        return FAILED
    return OK if summary.files else NOTHING


def _list(as_json: bool) -> int:
    agents = survey(FORMATS.values(), Places.here())
    if as_json:
        print(json.dumps([_agent_dict(agent) for agent in agents], ensure_ascii=False))
    else:
        for agent in agents:
            print(_agent_line(agent))
            for place in agent.places:
                print(f"  {_shown(place.path)}: {_place_words(place.exists, place.sessions)}")
    return OK if any(agent.sessions for agent in agents) else NOTHING


def _agent_dict(agent: AgentPlaces) -> dict[str, object]:
    return {
        "agent": agent.agent,
        "sessions": agent.sessions,
        "places": [
            {"path": str(p.path), "exists": p.exists, "files": p.files, "sessions": p.sessions}
            for p in agent.places
        ],
    }


def _agent_line(agent: AgentPlaces) -> str:
    if not agent.sessions:
        return _("{agent}: nothing found", agent=agent.agent)
    return ngettext(
        "{agent}: {count} session",
        "{agent}: {count} sessions",
        agent.sessions,
        agent=agent.agent,
        count=number(agent.sessions),
    )


def _place_words(exists: bool, sessions: int) -> str:
    if not exists:
        return _("not there")
    return ngettext("{count} session", "{count} sessions", sessions, count=number(sessions))


def _shown(path: Path) -> str:
    home = Path.home()
    if path == home:
        return "~"
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    """Add the import sub-command."""
    defaults = ", ".join(f"{fmt.name}: {_default(fmt)}" for fmt in FORMATS.values())
    exits = _(
        "Exit codes: 0 something was read, 1 nothing found, 2 usage error, 3 turns were read "
        "but none could be recorded."
    )
    parser = commands.add_parser(
        "import",
        parents=[common],
        help=_("import the sessions of coding agents (Claude Code, Codex, Gemini CLI, …)"),
        description=_(
            "Put the turns of existing agent transcripts into the index. Importing again "
            "adds only what is new; forgotten conversations stay forgotten."
        ),
        epilog=_("Default places: {places}.", places=defaults) + " " + exits,
    )
    parser.add_argument(
        "format",
        nargs="?",
        choices=[*FORMATS, AUTO],
        help=_("transcript format; auto: every format found (with PATH: every format under PATH)"),
    )
    parser.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help=_("a transcript file or a folder (default: the format's place)"),
    )
    parser.add_argument(
        "--include-forgotten",
        action="store_true",
        help=_("also bring back conversations that were forgotten"),
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help=_("show every agent, the places looked in, and the sessions found there"),
    )
    parser.add_argument("--json", action="store_true", help=_("print the summary as JSON"))
    parser.set_defaults(run=cmd_import)


def _default(fmt: TranscriptFormat) -> str:
    try:
        path, cwd, home = fmt.default_root(), Path.cwd(), Path.home()
    except (OSError, RuntimeError):
        return _("its usual place")
    if path == cwd:
        return _("the current directory")
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)
