"""Running a test's code as someone who may not write a file: root may write any file, so a
test run as root hands the code to an unprivileged process.

That is the `nobody` user when it can run this interpreter; otherwise root with every
capability dropped (util-linux `setpriv`), which reads and writes files only as their owner may.
A test that needs neither skips with the reason.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534
DROP_CAPABILITIES = ["setpriv", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all"]


@dataclass(frozen=True)
class Unprivileged:
    """How to start a process that file permissions bind, and who owns the files it is given."""

    owner: int
    prefix: tuple[str, ...] = ()
    user: int | None = None

    def python(self, code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.prefix, sys.executable, "-c", textwrap.dedent(code)],
            env={**os.environ, **env},
            user=self.user,
            group=self.user,
            extra_groups=[] if self.user is not None else None,
            capture_output=True,
            text=True,
            timeout=120,
            cwd="/",
        )


@functools.cache
def unprivileged() -> Unprivileged | str:
    """The way in, or why there is none."""
    if os.geteuid() != 0:
        return Unprivileged(owner=os.geteuid())
    probe = [sys.executable, "-c", "import history"]
    try:
        subprocess.run(probe, user=NOBODY, group=NOBODY, extra_groups=[], check=True, cwd="/")
        return Unprivileged(owner=NOBODY, user=NOBODY)
    except (OSError, subprocess.CalledProcessError):
        pass  # e.g. this interpreter lives under /root
    if shutil.which("setpriv"):
        try:
            subprocess.run([*DROP_CAPABILITIES, *probe], check=True, cwd="/")
            return Unprivileged(owner=0, prefix=tuple(DROP_CAPABILITIES))
        except (OSError, subprocess.CalledProcessError):
            pass
    return "running as root, and neither `nobody` nor a capability-free root could be started"


@contextmanager
def folder_for(owner: int) -> Iterator[Path]:
    """A folder `owner` owns and may reach (pytest's own is private to the user running it)."""
    top = Path(tempfile.mkdtemp(prefix="recall-unprivileged-"))
    try:
        top.chmod(0o755)
        home = top / "home"
        home.mkdir(mode=0o700)
        os.chown(home, owner, owner)
        yield home
    finally:
        for path in (top, *top.rglob("*")):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o700)
        shutil.rmtree(top)
