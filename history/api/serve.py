"""`python -m history.api.serve ARGS` is `recall serve ARGS`: one parser, one set of options, one
language (history/cli/serving.py); the server itself is history/api/server.py."""

from __future__ import annotations

import sys

from history.cli import main

if __name__ == "__main__":
    sys.exit(main(["serve", *sys.argv[1:]]))
