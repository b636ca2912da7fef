"""The one compiled part: recall_bm25, an FTS5 ranking function that takes each word's document
frequency instead of counting it (history/store/sqlite/fts5_rank.c). Optional: where it cannot
be built (no C compiler, no sqlite3ext.h) the package installs without it and searches with
FTS5's bm25() (history/store/sqlite/rank_extension.py). Everything else is in pyproject.toml."""

import sys

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            # Loaded by SQLite, never imported: the file's name gives SQLite its entry point,
            # sqlite3_recallrank_init.
            "history.store.sqlite._recallrank",
            sources=["history/store/sqlite/fts5_rank.c"],
            libraries=[] if sys.platform == "win32" else ["m"],
            optional=True,
        )
    ]
)
