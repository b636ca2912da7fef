"""What a test does when something it needs is not on this machine: it skips, saying why; under
CI=true it fails instead, so CI always runs it."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def cannot_run(reason: str, must: str) -> NoReturn:
    """Skip for `reason`, or fail under CI=true, where `must` says what has to run."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI=true: {must})")
    pytest.skip(reason)
