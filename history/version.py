"""The package's version: what `recall --version`, the MCP server and the HTTP service's schema
report, and the distribution's own (pyproject.toml reads it from here). Reading the installed
distribution's metadata instead would cost `recall --version` more than the rest of its
start-up."""

from __future__ import annotations

VERSION = "0.1.0"


def package_version() -> str:
    return VERSION
