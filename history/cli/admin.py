"""`recall stats`, `recall migrate` and `recall doctor`: what the index holds, and its care."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from history.cli.common import FAILED, NOTHING, OK, USAGE, Commands, open_index
from history.cli.damaged import copies_phrase, delete_hint
from history.cli.language import _, columns, messages, ngettext, number
from history.domain import READ_ONLY
from history.index import HistoryIndex

# `recall stats` and `recall doctor` exit 1 for a damaged file, as for any problem found.
DAMAGED = NOTHING


def cmd_stats(args: argparse.Namespace) -> int:
    from history.reports import DamagedDatabase

    index = open_index(args)
    about = index.about()
    try:
        stats = index.stats(messages())
    except DamagedDatabase as damage:
        print(
            _(
                "recall stats: the database file {where} is damaged: part of it cannot be read "
                "({reason}). {hint}.",
                where=about.where,
                reason=damage.reason,
                hint=_(damage.hint),
            ),
            file=sys.stderr,
        )
        if said := _copies_said(about.damaged_copies):
            print(_table([(_("damaged"), said)]), file=sys.stderr)
        return DAMAGED
    if args.json:
        shown = asdict(stats)
        del shown["damage"]
        print(
            json.dumps(
                {
                    **shown,
                    "oldest": _iso(stats.oldest),
                    "newest": _iso(stats.newest),
                    "retention": {p or "*": d for p, d in stats.retention.keep_days.items()},
                    "full_text": about.full_text,
                    "damaged_copies": [str(copy) for copy in about.damaged_copies],
                    "damaged_pages": list(stats.damaged_pages),
                    # turns waiting for their vector; null: search by meaning is not installed
                    "meaning_waiting": index.meaning_waiting(),
                }
            )
        )
        return DAMAGED if stats.damaged_pages else OK
    turns = ngettext(
        "{turns} in {count} conversation",
        "{turns} in {count} conversations",
        stats.sessions,
        turns=number(stats.turns),
        count=number(stats.sessions),
    )
    rows = [(_("turns"), turns)]
    if stats.oldest and stats.newest:
        rows.append(
            (
                _("span"),
                f"{stats.oldest.astimezone():%Y-%m-%d %H:%M} .. "
                f"{stats.newest.astimezone():%Y-%m-%d %H:%M}",
            )
        )
    size = ngettext(
        "{count} byte", "{count} bytes", stats.database_bytes, count=number(stats.database_bytes)
    )
    rows.append((_("database"), f"{about.where} ({size})"))
    rows.append((_("search"), _(about.search)))
    from history.cli.retain import policy_lines

    kept = policy_lines(stats.retention)
    rows.append(
        (_("retention"), "; ".join(kept) if kept else _("none: turns are kept until forgotten"))
    )
    from history.cli.embed import meaning_said

    rows.append((_("meaning search"), meaning_said(index.meaning_waiting())))
    if stats.rescan_left:
        from history.cli.rescan import left_to_rescan

        rows.append((_("secret rules"), left_to_rescan(stats.rescan_left)))
    damaged = [(_("damaged"), said) for said in [_copies_said(about.damaged_copies)] if said]
    lines = _table([*rows, *damaged]).splitlines()
    print("\n".join(lines[: len(rows)]))
    for project, turns_there in stats.per_project.items():
        print(f"  {number(turns_there):>8}  {project}")
    print("\n".join(lines[len(rows) :]), end="\n" if damaged else "")
    if stats.damage:  # the counts above may leave out what sits on the damaged pages
        print(f"recall stats: {stats.damage}", file=sys.stderr)
        return DAMAGED
    return OK


def _table(rows: list[tuple[str, str]]) -> str:
    """`label:  value` lines, the values aligned (labels differ in length per language)."""
    width = max(columns(label) for label, _value in rows) + 1
    return "\n".join(f"{label}:{' ' * (width - columns(label))} {value}" for label, value in rows)


def _copies_said(copies: Sequence[Path]) -> str | None:
    """What stats says of the damaged copies in the home, if there are any."""
    if not copies:
        return None
    return ngettext(
        "{count} damaged copy in the home may still hold forgotten or lost turns ({names}): {hint}",
        "{count} damaged copies in the home may still hold forgotten or lost turns "
        "({names}): {hint}",
        len(copies),
        count=number(len(copies)),
        names=", ".join(copy.name for copy in copies),
        hint=delete_hint(len(copies)),
    )


def _iso(value: object) -> str | None:
    return None if value is None else value.isoformat()  # type: ignore[attr-defined]


def cmd_migrate(args: argparse.Namespace) -> int:
    from history import databases

    if args.sql:
        databases.print_upgrade_sql(args.home, args.database_url)
        return OK
    if args.pgvector:
        return _take_up_pgvector(args)
    created = not databases.holds_history(args.home, args.database_url)
    about = open_index(args).about()  # opening runs `upgrade head`
    fields = {"where": about.where, "search": _(about.search)}
    if created:
        print(
            _(
                "created a new history database at {where}, at the latest schema ({search})",
                **fields,
            )
        )
    else:
        print(_("{where} is at the latest schema ({search})", **fields))
    return OK


def _take_up_pgvector(args: argparse.Namespace) -> int:
    from history import databases

    if not databases.on_postgres(args.home, args.database_url):
        print(_("recall migrate: --pgvector is for a PostgreSQL database"), file=sys.stderr)
        return USAGE
    open_index(args).close()  # at the latest schema first
    where = databases.where(args.home, args.database_url)
    if databases.take_up_pgvector(args.home, args.database_url):
        print(_("{where}: the server finds the nearest vectors (pgvector)", where=where))
        return OK
    print(
        _(
            "{where}: the server offers no pgvector this role may create: search by meaning "
            "reads the stored vectors",
            where=where,
        ),
        file=sys.stderr,
    )
    return NOTHING


def cmd_doctor(args: argparse.Namespace) -> int:
    index = open_index(args)
    if args.delete_damaged:
        return _delete_damaged(index)
    if args.recover:
        return _recover(index)
    if args.rescan:
        from history.cli.rescan import rescan

        return rescan(index)
    if not index.writable and not args.check_only:
        print(_("Only checking, not repairing: {reason}.", reason=_(READ_ONLY)))
        args.check_only = True
    report = index.doctor(repair=not args.check_only, said=messages())
    for finding in report.findings:
        print(finding)
    copies = index.about().damaged_copies
    if copies:
        names = ", ".join(copy.name for copy in copies)
        print(
            ngettext(
                "{count} damaged copy of the history in the home ({names}) may still hold "
                "turns, forgotten ones too: {hint}.",
                "{count} damaged copies of the history in the home ({names}) may still hold "
                "turns, forgotten ones too: {hint}.",
                len(copies),
                count=number(len(copies)),
                names=names,
                hint=delete_hint(len(copies)),
            )
        )
    if index.writable and not args.check_only and index.purge_pending:
        print(_owed_forget(index))
    if report.healthy and index.full_text and not args.check_only:
        print(index.compact(messages()))
    return OK if report.healthy else NOTHING


def _owed_forget(index: HistoryIndex) -> str:
    """Finish what a forget left owed (a reader held its scrub back, or it was cut short)."""
    index.tidy()
    if index.purge_pending:
        return _(
            "A forget is still owed its scrub: another process holds an older snapshot of the "
            "file. It is finished once that process lets go (recall serve does it by itself)."
        )
    return _("Finished what a forget had left owed: forgotten turns are scrubbed from the file.")


def _delete_damaged(index: HistoryIndex) -> int:
    deleted = index.delete_damaged()
    if deleted is None:
        print(_("A PostgreSQL database leaves no damaged copies in the home: nothing to delete."))
        return NOTHING
    if not deleted.copies:
        print(_("There is no damaged copy in the home: nothing to delete."))
        return OK
    freed = deleted.freed_bytes
    print(
        _(
            "Deleted {copies} ({size}): {names}. The files were removed, not overwritten: "
            "their old blocks stay on the disk until the filesystem reuses them.",
            copies=copies_phrase(len(deleted.copies)),
            size=ngettext("{count} byte", "{count} bytes", freed, count=number(freed)),
            names=", ".join(copy.name for copy in deleted.copies),
        )
    )
    return OK


def _recover(index: HistoryIndex) -> int:
    from history.reports import Recovered

    recovery = index.recover()
    if recovery.outcome is Recovered.NO_FILE:
        print(_("recall doctor --recover is for the home's SQLite file"), file=sys.stderr)
        return USAGE
    if recovery.outcome is Recovered.READ_ONLY:
        print(_("recall doctor: nothing recovered: {reason}", reason=_(READ_ONLY)), file=sys.stderr)
        return FAILED
    if recovery.outcome is Recovered.SOUND or recovery.database is None or recovery.kept is None:
        print(_("The database file is sound (SQLite's integrity check: ok): nothing to recover."))
        return OK
    turns, marks = recovery.turns, recovery.marks
    print(
        _(
            "Recovered {turns} and {marks} into a new {name}.",
            turns=ngettext("{count} turn", "{count} turns", turns, count=number(turns)),
            marks=ngettext(
                "{count} forgotten conversation mark",
                "{count} forgotten conversation marks",
                marks,
                count=number(marks),
            ),
            name=recovery.database.name,
        )
    )
    lost = recovery.lost_turns
    if lost:
        shown = ", ".join(
            f"{first}-{last}" if first != last else str(first) for first, last in lost[:5]
        )
        print(
            ngettext(
                "The turns with row ids in {count} stretch ({shown}) could not be read: any that "
                "existed are lost.",
                "The turns with row ids in {count} stretches ({shown}) could not be read: any "
                "that existed are lost.",
                len(lost),
                count=len(lost),
                shown=shown + (", ..." if len(lost) > 5 else ""),
            )
        )
    if recovery.marks_lost:
        print(
            _(
                "Some marks of forgotten conversations could not be read: an import may bring "
                "such a conversation back; forget it again if it does."
            )
        )
    print(
        _(
            "The damaged file is kept as {name}: {hint}.",
            name=recovery.kept.name,
            hint=delete_hint(1),
        )
    )
    return OK


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    stats = commands.add_parser("stats", parents=[common], help=_("what the index holds"))
    stats.add_argument("--json", action="store_true", help=_("print as JSON"))
    stats.set_defaults(run=cmd_stats)

    migrate = commands.add_parser("migrate", parents=[common], help=_("upgrade the schema to head"))
    migrate.add_argument(
        "--sql", action="store_true", help=_("print the SQL instead of running it")
    )
    migrate.add_argument(
        "--pgvector",
        action="store_true",
        help=_("on PostgreSQL, take up pgvector installed since the database was migrated"),
    )
    migrate.set_defaults(run=cmd_migrate)

    doctor = commands.add_parser(
        "doctor", parents=[common], help=_("check the index and repair the full-text part")
    )
    what = doctor.add_mutually_exclusive_group()
    what.add_argument("--check-only", action="store_true", help=_("report; do not rebuild"))
    what.add_argument(
        "--recover",
        action="store_true",
        help=_(
            "copy what a damaged file still lets be read into a new history.db (stop recall "
            "serve first); the damaged file is kept as a damaged copy"
        ),
    )
    what.add_argument(
        "--rescan",
        action="store_true",
        help=_(
            "re-scan now the turns stored under older secret rules, mask what the current "
            "rules catch and scrub the old text from the database (the upkeep does it by itself)"
        ),
    )
    what.add_argument(
        "--delete-damaged",
        action="store_true",
        help=_("delete the damaged copies (history.db.corrupt-*) kept in the home"),
    )
    doctor.set_defaults(run=cmd_doctor)
