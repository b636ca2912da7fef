"""Smoke test of an installed `recall`, run by `make smoke-wheel` with the installed venv's Python.

    python smoke_installed.py /path/to/bin/recall /path/to/transcripts /path/to/dist

Every face a user meets first: migrate, import, search, serve (one HTTP request) and mcp (one
tool call), in a fresh home, from the current directory (not the clone). Stdlib and the `mcp`
SDK (a dependency of the package) only: nothing here may come from the source tree.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

RECALL, TRANSCRIPTS, DIST = (Path(arg) for arg in sys.argv[1:4])
CHECKOUT = Path(__file__).resolve().parent.parent
HOME = Path(tempfile.mkdtemp(prefix="recall-smoke-home-"))
ENV = {**os.environ, "RECALL_HOME": str(HOME), "PYTHONPATH": ""}


def recall(*args: str, expect: int = 0) -> str:
    done = subprocess.run([str(RECALL), *args], capture_output=True, text=True, env=ENV, timeout=60)
    shown = f"recall {' '.join(args)} -> {done.returncode}\n{done.stdout}{done.stderr}"
    assert done.returncode == expect, shown
    assert "Traceback" not in done.stderr, shown
    print(f"ok  recall {' '.join(args)}: {done.stdout.strip().splitlines()[0][:90]}")
    return done.stdout


def installed_outside_the_checkout() -> None:
    import history

    where = Path(history.__file__).resolve()
    assert not where.is_relative_to(CHECKOUT), f"history comes from the clone: {where}"
    assert (where.parent / "_migrations" / "env.py").is_file(), "the wheel lacks the migrations"
    print(f"ok  history is installed at {where.parent}")
    from history.i18n import LANGUAGES, translator

    label = "[this turn quoted earlier recall_history results]"
    assert all(translator("tool", tag).gettext(label) != label for tag in LANGUAGES[1:]), (
        "the wheel lacks a language's compiled catalogue"
    )
    print("ok  the wheel speaks ten languages")
    from history.store.sqlite import rank_extension

    library = rank_extension.library_path()
    assert library is not None, "the wheel lacks the compiled ranking function (recall_bm25)"
    assert not Path(library).is_relative_to(CHECKOUT), f"recall_bm25 is the clone's: {library}"
    print(f"ok  the wheel has the compiled ranking function ({Path(library).name})")


def sdist_is_the_whole_source() -> None:
    [sdist] = DIST.glob("recall_history-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[-1] for name in archive.getnames()}
    wanted = {"alembic.ini", "alembic/env.py", "pyproject.toml", "Makefile", "history/index.py"}
    wanted |= {"setup.py", "history/store/sqlite/fts5_rank.c"}
    assert wanted <= names, f"the sdist lacks {sorted(wanted - names)}"
    print(f"ok  {sdist.name} holds alembic.ini, alembic/, the Makefile and the package")


def serve_one_request() -> None:
    server = subprocess.Popen(
        [str(RECALL), "serve", "--port", "0"],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    try:
        first = server.stderr.readline()  # ends when the server says where it listens, or dies
        listening = re.search(r"listening on (http://127\.0\.0\.1:\d+) ", first)
        assert listening, f"recall serve said {first!r}"
        url = f"{listening[1]}/api/code/history?q=health+endpoint"
        with urllib.request.urlopen(url, timeout=10) as answer:
            found = json.load(answer)
        # Several fixture turns ask about a health endpoint; the best must hold both words.
        best = found["hits"][0]["asked"] if found["hits"] else ""
        assert "health" in best and "endpoint" in best, found
        assert any("health endpoint" in hit["asked"] for hit in found["hits"]), found
        with urllib.request.urlopen(f"{listening[1]}/", timeout=10) as answer:
            page = answer.read().decode()
        with urllib.request.urlopen(f"{listening[1]}/page/app.js", timeout=10) as answer:
            script = answer.read().decode()
        assert '<script src="/page/app.js"' in page and "page-data" in script, page[:300]
        with urllib.request.urlopen(f"{listening[1]}/?lang=fr", timeout=10) as answer:
            french = answer.read().decode()
        assert "L'historique de votre agent" in french, "the wheel lacks the page's catalogues"
        print(f"ok  recall serve: {first.strip()}")
        print(
            f"ok  GET / is the page ({len(page)} bytes, app.js {len(script)} bytes), in French too"
        )
        print(f"ok  GET /api/code/history found {found['hits'][0]['turn_id']}")
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=20)
    assert "Traceback" not in stderr, stderr
    assert "GET /api/code/history?q 200" in stderr, stderr


async def one_mcp_call() -> str:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    server = StdioServerParameters(command=str(RECALL), args=["mcp"], env=ENV)
    async with Client(server, read_timeout_seconds=30) as client:
        arguments = {"query": "health endpoint", "everywhere": True}
        result = await client.call_tool("recall_history", arguments)
    assert result.is_error is not True, result
    return "".join(getattr(part, "text", "") for part in result.content)


def main() -> None:
    sdist_is_the_whole_source()
    installed_outside_the_checkout()
    assert "latest schema" in recall("migrate")
    assert "turns new" in recall("import", "auto", str(TRANSCRIPTS))
    assert "health endpoint" in recall("search", "health endpoint", "--everywhere")
    serve_one_request()
    answer = asyncio.run(asyncio.wait_for(one_mcp_call(), 60))
    assert "health endpoint" in answer, answer
    print("ok  recall mcp: recall_history answered over stdio")
    shutil.rmtree(HOME)


if __name__ == "__main__":
    main()
