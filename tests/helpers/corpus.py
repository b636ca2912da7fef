"""The real agent sessions the importers are tested on: tests/fixtures/corpus (see its
SOURCES.md for where each file comes from and its licence). They are part of the repository so
every clone, CI's included, runs the tests that read them."""

from __future__ import annotations

from tests.helpers.paths import FIXTURES

CORPUS = FIXTURES / "corpus"
