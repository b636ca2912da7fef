"""`python -m history.mcp_server ARGS` is `recall mcp ARGS`: one parser, one set of options, one
language (history/cli/serving.py); the server itself is history/tools/mcp_server.py."""

from __future__ import annotations

import sys

from history.cli import main

if __name__ == "__main__":
    sys.exit(main(["mcp", *sys.argv[1:]]))
