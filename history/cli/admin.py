"""`recall stats`, `recall migrate` and `recall doctor`: what the index holds, and its care."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from sqlalchemy.exc import DatabaseError

from history.cli.common import FAILED, NOTHING, OK, USAGE, Commands, open_index
from history.cli.language import _, columns, messages, ngettext, number
from history.domain import READ_ONLY
from history.home import DATABASE_NAME, resolve_home
from history.index import HistoryIndex
from history.store import migrations
from history.store.backends import configured_url
from history.store.postgres.engine import create_postgres_engine, is_postgres_url
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts
from history.store.sqlite.damaged import (
    copies_phrase,
    damaged_copies,
    delete_damaged,
    delete_hint,
)
from history.store.sqlite.doctor import (
    RECOVER_HINT,
    damage_reason,
    damage_sentence,
    examine,
    is_damage,
    table_problems,
)
from history.store.sqlite.recovery import recover_in_place

# `recall stats` and `recall doctor` exit 1 for a damaged file, as for any problem found.
DAMAGED = NOTHING
QUICK_CHECK_PROBLEMS = 20


def damaged_pages(index: HistoryIndex) -> list[str]:
    """What SQLite's quick check finds wrong with the file's pages (empty when sound, and on
    PostgreSQL): the counts may read only an index, so a damaged table would go unseen."""
    if index.backend == "postgresql" or index.engine is None:
        return []
    try:
        with index.engine.connect() as conn:
            rows = conn.exec_driver_sql(f"PRAGMA quick_check({QUICK_CHECK_PROBLEMS})").all()
    except DatabaseError as exc:
        return [damage_reason(exc)]
    found = [str(row[0]) for row in rows]
    return (
        [] if found == ["ok"] else [row for row in found if not row.startswith("*** in database")]
    )


def cmd_stats(args: argparse.Namespace) -> int:
    from history.store.stats import collect

    index = open_index(args)
    assert index.engine is not None
    database = _database(args, index)
    copies = damaged_copies(database) if database is not None else []
    try:
        stats = collect(index.engine, database)
    except DatabaseError as exc:
        if not is_damage(exc):
            raise
        print(
            _(
                "recall stats: the database file {where} is damaged: part of it cannot be read "
                "({reason}). {hint}.",
                where=_where(args, index),
                reason=damage_reason(exc),
                hint=_(RECOVER_HINT),
            ),
            file=sys.stderr,
        )
        if said := _copies_said(copies):
            print(_table([(_("damaged"), said)]), file=sys.stderr)
        return DAMAGED
    where = _where(args, index)
    problems = damaged_pages(index)
    if args.json:
        print(
            json.dumps(
                {
                    **asdict(stats),
                    "oldest": _iso(stats.oldest),
                    "newest": _iso(stats.newest),
                    "retention": {p or "*": d for p, d in stats.retention.keep_days.items()},
                    "full_text": index.full_text,
                    "damaged_copies": [str(copy) for copy in copies],
                    "damaged_pages": problems,
                }
            )
        )
        return DAMAGED if problems else OK
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
    rows.append((_("database"), f"{where} ({size})"))
    rows.append((_("search"), _search_kind(index)))
    from history.cli.retain import policy_lines

    kept = policy_lines(stats.retention)
    rows.append(
        (_("retention"), "; ".join(kept) if kept else _("none: turns are kept until forgotten"))
    )
    damaged = [(_("damaged"), said) for said in [_copies_said(copies)] if said]
    lines = _table([*rows, *damaged]).splitlines()
    print("\n".join(lines[: len(rows)]))
    for project, turns_there in stats.per_project.items():
        print(f"  {number(turns_there):>8}  {project}")
    print("\n".join(lines[len(rows) :]), end="\n" if damaged else "")
    if problems:  # the counts above may leave out what sits on the damaged pages
        print(f"recall stats: {damage_sentence(problems, messages())}", file=sys.stderr)
        return DAMAGED
    return OK


def _table(rows: list[tuple[str, str]]) -> str:
    """`label:  value` lines, the values aligned (labels differ in length per language)."""
    width = max(columns(label) for label, _value in rows) + 1
    return "\n".join(f"{label}:{' ' * (width - columns(label))} {value}" for label, value in rows)


def _database(args: argparse.Namespace, index: HistoryIndex) -> Path | None:
    """The SQLite file of the home; None on PostgreSQL."""
    return None if index.backend == "postgresql" else resolve_home(args.home) / DATABASE_NAME


def _copies_said(copies: list[Path]) -> str | None:
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
        hint=delete_hint(len(copies), messages()),
    )


def _where(args: argparse.Namespace, index: HistoryIndex) -> str:
    if index.backend == "postgresql":
        assert index.engine is not None
        return index.engine.url.render_as_string(hide_password=True)
    return str(resolve_home(args.home) / "history.db")


def _search_kind(index: HistoryIndex) -> str:
    if index.backend == "postgresql":
        return _("PostgreSQL tsvector full text")
    return _("FTS5 full text") if index.full_text else _("LIKE (no FTS5 in this SQLite)")


def _iso(value: object) -> str | None:
    return None if value is None else value.isoformat()  # type: ignore[attr-defined]


def cmd_migrate(args: argparse.Namespace) -> int:
    from alembic import command

    if args.sql:
        config = migrations.alembic_config()
        url = configured_url(args.database_url) or sqlite_db.database_url(
            resolve_home(args.home) / "history.db"
        )
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
        command.upgrade(config, "head", sql=True)
        return OK
    created = not _had_schema(args)
    index = open_index(args)  # opening runs `upgrade head`
    fields = {"where": _where(args, index), "search": _search_kind(index)}
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


def _had_schema(args: argparse.Namespace) -> bool:
    """Whether the database `recall migrate` opens held the history's tables already (a new
    file, or a PostgreSQL database never migrated, did not)."""
    url = configured_url(args.database_url)
    if url is None or not is_postgres_url(url):
        path = (
            resolve_home(args.home) / DATABASE_NAME if url is None else sqlite_db.sqlite_path(url)
        )
        return path is None or (path.exists() and path.stat().st_size > 0)
    engine = create_postgres_engine(url)
    try:
        with engine.connect() as conn:
            return (
                conn.exec_driver_sql("SELECT to_regclass('alembic_version')").scalar() is not None
            )
    finally:
        engine.dispose()


def cmd_doctor(args: argparse.Namespace) -> int:
    index = open_index(args)
    assert index.engine is not None
    database = _database(args, index)
    if args.delete_damaged:
        return _delete_damaged(database)
    if args.recover:
        return _recover(index, database)
    if not index.writable and not args.check_only:
        print(_("Only checking, not repairing: {reason}.", reason=_(READ_ONLY)))
        args.check_only = True
    if index.backend == "postgresql":
        from history.store.postgres import doctor as pg_doctor

        report = pg_doctor.examine(index.engine, repair=not args.check_only, said=messages())
    else:
        report = examine(
            index.engine,
            index.full_text,
            repair=not args.check_only,
            writable=index.writable,
            said=messages(),
        )
    for finding in report.findings:
        print(finding)
    copies = damaged_copies(database) if database is not None else []
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
                hint=delete_hint(len(copies), messages()),
            )
        )
    if index.writable and not args.check_only and index.purge_pending:
        print(_owed_forget(index))
    if report.healthy and index.full_text and not args.check_only:
        print(_merged(index))
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


def _delete_damaged(database: Path | None) -> int:
    if database is None:
        print(_("A PostgreSQL database leaves no damaged copies in the home: nothing to delete."))
        return NOTHING
    deleted, freed = delete_damaged(database)
    if not deleted:
        print(_("There is no damaged copy in the home: nothing to delete."))
        return OK
    print(
        _(
            "Deleted {copies} ({size}): {names}. The files were removed, not overwritten: "
            "their old blocks stay on the disk until the filesystem reuses them.",
            copies=copies_phrase(len(deleted), messages()),
            size=ngettext("{count} byte", "{count} bytes", freed, count=number(freed)),
            names=", ".join(copy.name for copy in deleted),
        )
    )
    return OK


def _recover(index: HistoryIndex, database: Path | None) -> int:
    if database is None:
        print(_("recall doctor --recover is for the home's SQLite file"), file=sys.stderr)
        return USAGE
    assert index.engine is not None
    if not index.writable:
        print(_("recall doctor: nothing recovered: {reason}", reason=_(READ_ONLY)), file=sys.stderr)
        return FAILED
    if not table_problems(index.engine):
        print(_("The database file is sound (SQLite's integrity check: ok): nothing to recover."))
        return OK
    index.close()  # the file is about to be replaced: this process lets go of it first
    salvaged, kept = recover_in_place(database)
    turns, marks = salvaged.copied["turns"], salvaged.copied["forgotten_sessions"]
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
            name=database.name,
        )
    )
    lost = salvaged.unreadable["turns"]
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
    if salvaged.unreadable["forgotten_sessions"]:
        print(
            _(
                "Some marks of forgotten conversations could not be read: an import may bring "
                "such a conversation back; forget it again if it does."
            )
        )
    print(
        _(
            "The damaged file is kept as {name}: {hint}.",
            name=kept.name,
            hint=delete_hint(1, messages()),
        )
    )
    return OK


def _merged(index: HistoryIndex) -> str:
    """Do the index upkeep now (a process that only ever ran briefly may have left it)."""
    assert index.engine is not None
    if index.backend == "postgresql":
        index.tidy()
        return _("Merged the full-text index's pending entries (GIN's pending list).")
    with index.engine.connect() as conn:
        before = fts.segment_count(conn)
    index.tidy()
    with index.engine.connect() as conn:
        after = fts.segment_count(conn)
    if after < before:
        return _(
            "Merged the full-text index from {before} segments into {after}.",
            before=before,
            after=after,
        )
    return ngettext(
        "The full-text index is in {count} segment: nothing to merge.",
        "The full-text index is in {count} segments: nothing to merge.",
        after,
        count=after,
    )


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    stats = commands.add_parser("stats", parents=[common], help=_("what the index holds"))
    stats.add_argument("--json", action="store_true", help=_("print as JSON"))
    stats.set_defaults(run=cmd_stats)

    migrate = commands.add_parser("migrate", parents=[common], help=_("upgrade the schema to head"))
    migrate.add_argument(
        "--sql", action="store_true", help=_("print the SQL instead of running it")
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
        "--delete-damaged",
        action="store_true",
        help=_("delete the damaged copies (history.db.corrupt-*) kept in the home"),
    )
    doctor.set_defaults(run=cmd_doctor)
