"""`recall doctor`: check the table and the full-text index; rebuild the index if they differ.

A damaged file (pages SQLite cannot read) is reported in words, never raised: a rebuild would
have to read what is damaged, so doctor leaves it to `recall doctor --recover`
(history/store/sqlite/recovery.py). Also what `recall stats` and `recall migrate` say of the
file's search, and what merging the full-text index did."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.exc import DatabaseError

from history.i18n import N_, Messages
from history.reports import DoctorReport
from history.store.maintenance import ENGLISH
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts, in_place

FTS5_SEARCH = N_("FTS5 full text")
LIKE_SEARCH = N_("LIKE (no FTS5 in this SQLite)")
# Problems a quick check of the pages lists at most.
QUICK_CHECK_PROBLEMS = 20

RECOVER_HINT = N_(
    "`recall doctor --recover` copies every turn that can still be read into a new history.db "
    "and keeps this file as a damaged copy"
)


def table_problems(engine: Engine) -> list[str]:
    """What SQLite's own integrity check finds wrong with the file; empty when it is sound."""
    try:
        with engine.connect() as conn:
            rows = conn.exec_driver_sql("PRAGMA integrity_check").scalars().all()
    except DatabaseError as exc:  # too damaged for the check to get through
        return [damage_reason(exc)]
    if rows == ["ok"]:
        return []
    return [str(row) for row in rows if not str(row).startswith("*** in database")]


def page_problems(engine: Engine) -> list[str]:
    """What SQLite's quick check finds wrong with the file's pages (empty when sound): counts
    may read only an index, so a damaged table would go unseen."""
    try:
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(f"PRAGMA quick_check({QUICK_CHECK_PROBLEMS})").all()
    except DatabaseError as exc:
        return [damage_reason(exc)]
    found = [str(row[0]) for row in rows]
    return (
        [] if found == ["ok"] else [row for row in found if not row.startswith("*** in database")]
    )


def damage_reason(exc: DatabaseError) -> str:
    """SQLite's own words for what went wrong, e.g. "database disk image is malformed"."""
    return str(exc.orig or exc).strip().splitlines()[0]


def is_damage(exc: DatabaseError) -> bool:
    return str(getattr(exc.orig, "sqlite_errorname", "")).startswith(
        ("SQLITE_CORRUPT", "SQLITE_NOTADB")
    )


def damage_sentence(problems: list[str], said: Messages = ENGLISH) -> str:
    return said.ngettext(
        "The database file is damaged: SQLite's integrity check found {count} problem "
        "(first: {first}). Searching, recording and forgetting may fail where the damage "
        "is; {hint}.",
        "The database file is damaged: SQLite's integrity check found {count} problems "
        "(first: {first}). Searching, recording and forgetting may fail where the damage "
        "is; {hint}.",
        len(problems),
        count=len(problems),
        first=problems[0],
        hint=said(RECOVER_HINT),
    )


def index_agrees(engine: Engine) -> bool:
    """True when turns_fts holds exactly the terms of the rows of turns."""
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(fts.integrity_check_statement())
    except DatabaseError:
        return False
    return True


def examine(
    engine: Engine,
    full_text: bool,
    repair: bool = True,
    writable: bool = True,
    said: Messages = ENGLISH,
) -> DoctorReport:
    _ = said  # the catalogues' extraction finds messages by the name `_`
    report = DoctorReport()
    problems = table_problems(engine)
    if problems:
        report.problem(damage_sentence(problems, said))
        return report  # checking or rebuilding the full-text index would read the damage
    report.findings.append(_("The database file is sound (SQLite's integrity check: ok)."))
    if not full_text:
        report.findings.append(
            _(
                "This SQLite has no FTS5: searches use the LIKE fallback, so there is no "
                "full-text index to check."
            )
        )
        return report
    if not writable:
        # FTS5's own check is asked for by an INSERT, which a read-only file refuses.
        report.findings.append(
            _("The full-text index was not checked: the file is read-only here.")
        )
        return report
    with engine.connect() as conn:
        missing = fts.missing_triggers(conn)
    if missing and not repair:
        report.problem(
            _(
                "Triggers that keep the index in step are missing: {triggers}.",
                triggers=", ".join(missing),
            )
        )
        return report
    if missing:
        with sqlite_db.writer(engine).begin() as conn:
            for statement in [*fts.drop_triggers_statements(), *fts.trigger_statements()]:
                conn.exec_driver_sql(statement)
        report.findings.append(
            _("Recreated the missing triggers: {triggers}.", triggers=", ".join(missing))
        )
    elif index_agrees(engine):
        report.findings.append(_("The full-text index agrees with the turns table."))
        return report
    if not repair:
        report.problem(
            _("The full-text index disagrees with the turns table; run doctor to rebuild.")
        )
        return report
    with sqlite_db.writer(engine).begin() as conn:
        conn.exec_driver_sql(fts.rebuild_statement())
        in_place.index_rebuilt(conn)
    report.rebuilt = True
    if index_agrees(engine):
        report.findings.append(
            _("The full-text index disagreed with the turns table; it was rebuilt and now agrees.")
        )
    else:
        report.problem(_("The full-text index still disagrees with the table after a rebuild."))
    return report


def merged(before: int, after: int, said: Messages = ENGLISH) -> str:
    """What merging the full-text index from `before` segments into `after` did."""
    _ = said
    if after < before:
        return _(
            "Merged the full-text index from {before} segments into {after}.",
            before=before,
            after=after,
        )
    return said.ngettext(
        "The full-text index is in {count} segment: nothing to merge.",
        "The full-text index is in {count} segments: nothing to merge.",
        after,
        count=after,
    )
