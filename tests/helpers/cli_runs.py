"""`recall ARGS` run in this process, as tests read it: its exit code, stdout and stderr."""

from __future__ import annotations

import pytest

from history.cli import main


def recall(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exit_:  # --help, and argparse's usage errors
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
