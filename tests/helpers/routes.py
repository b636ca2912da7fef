"""Every route of the service, with a turn to post, for the origin guard's tests."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from history.web.page import PAGE_PATHS

TURN: dict[str, Any] = {"turn_id": "t-1", "session_id": "conv-1", "project": "/w/shop",
                        "asked": "login?", "answered": "Use argon2."}  # fmt: skip


QUERIES = {"/api/code/history": "?q=login", "/api/code/projects": "?project=/w/shop"}


def every_route(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path) of every endpoint of the schema, its parameters filled, the page and the
    docs besides."""
    found = [("GET", path) for path in (*PAGE_PATHS, "/docs", "/redoc", "/openapi.json")]
    for path, operations in app.openapi()["paths"].items():
        filled = path.replace("{session_id}", "conv-1").replace("{turn_id}", "t-1")
        filled += QUERIES.get(path, "")
        found.extend((method.upper(), filled) for method in operations)
    return found
