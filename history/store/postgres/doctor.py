"""`recall doctor` on PostgreSQL: the full-text column and index are there and valid; an index
left invalid (a failed concurrent build) or missing is rebuilt. Also what `recall stats` and
`recall migrate` say of its search, and what merging the full-text index did."""

from __future__ import annotations

from sqlalchemy import Engine, text

from history.i18n import N_, Messages
from history.reports import DoctorReport
from history.store.maintenance import ENGLISH
from history.store.postgres import schema

TSVECTOR_SEARCH = N_("PostgreSQL tsvector full text")
MERGED = N_("Merged the full-text index's pending entries (GIN's pending list).")

_INVALID_INDEXES = text(
    "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
    " WHERE i.indrelid = 'turns'::regclass AND NOT (i.indisvalid AND i.indisready)"
    " ORDER BY c.relname"
)
_HAS_VECTOR_INDEX = text("SELECT to_regclass(:name) IS NOT NULL")
_HAS_VECTOR = text(
    "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()"
    " AND table_name = 'turns' AND column_name = :column AND is_generated = 'ALWAYS'"
)


def examine(engine: Engine, repair: bool = True, said: Messages = ENGLISH) -> DoctorReport:
    _ = said  # the catalogues' extraction finds messages by the name `_`
    report = DoctorReport()
    with engine.connect() as conn:
        invalid = [str(name) for name in conn.execute(_INVALID_INDEXES).scalars()]
        has_vector = bool(conn.execute(_HAS_VECTOR, {"column": schema.VECTOR_COLUMN}).scalar())
        has_index = bool(conn.execute(_HAS_VECTOR_INDEX, {"name": schema.VECTOR_INDEX}).scalar())
    if not has_vector:
        report.problem(
            _(
                "The generated column turns.{column} is missing: this database was not migrated "
                "by recall (run `recall migrate`).",
                column=schema.VECTOR_COLUMN,
            )
        )
        return report
    missing = [] if has_index else [schema.VECTOR_INDEX]
    if not invalid and not missing:
        report.findings.append(_("Every index of the turns table is present and valid."))
        return report
    broken = ", ".join([*invalid, *missing])
    if not repair:
        report.problem(
            _("Indexes invalid or missing: {indexes}; run doctor to rebuild them.", indexes=broken)
        )
        return report
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        for name in invalid:
            conn.exec_driver_sql(f'REINDEX INDEX "{name}"')
        if missing:
            conn.exec_driver_sql(schema.index_statement())
    report.findings.append(
        _("Rebuilt the indexes that were invalid or missing: {indexes}.", indexes=broken)
    )
    return report
