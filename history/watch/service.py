"""`recall watch --install`: `recall watch` as a user service that starts with the session.

Linux: a systemd user unit, ~/.config/systemd/user/recall-watch.service (or under
$XDG_CONFIG_HOME), enabled and started with `systemctl --user`. macOS: a launchd agent,
~/Library/LaunchAgents/<LABEL>.plist, loaded with `launchctl`. The service runs the same
`recall` with the same home or database. The service manager is asked to act only for the
account's own home and only where its tool exists; otherwise the commands are returned to say.
A unit may name a database URL with its password: it is written 0600.
"""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from history.importers.base import Places

UNIT_NAME = "recall-watch.service"
LABEL = "io.github.recall-history.watch"
Runner = Callable[[list[str]], int]


@dataclass(frozen=True)
class Service:
    file: Path
    commands: list[list[str]]  # what the service manager is told, in order
    ran: bool  # whether they were run here (else they are for the person to run)


def recall_command(options: Sequence[str] = ()) -> list[str]:
    """This `recall`: the console script that was run, else this Python with -m history.cli."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name.startswith("recall"):
        resolved = shutil.which(str(script)) or (str(script) if script.is_file() else None)
        if resolved and os.access(resolved, os.X_OK):
            return [str(Path(resolved).resolve()), *options, "watch"]
    return [sys.executable, "-m", "history.cli", *options, "watch"]


def install(places: Places, command: list[str], run: Runner | None = None) -> Service:
    if places.system == "Darwin":
        file = launch_agent(places)
        write_private(file, plistlib.dumps(launchd_plist(command, places.home)))
        commands = [["launchctl", "load", "-w", str(file)]]
    else:
        file = systemd_unit(places)
        write_private(file, systemd_text(command).encode())
        commands = [
            ["systemctl", "--user", "daemon-reload"],
            ["systemctl", "--user", "enable", "--now", UNIT_NAME],
        ]
    return Service(file, commands, _tell(places, commands, run))


def uninstall(places: Places, run: Runner | None = None) -> Service | None:
    """The service removed (stopped first); None when none was installed."""
    if places.system == "Darwin":
        file = launch_agent(places)
        commands = [["launchctl", "unload", "-w", str(file)]]
    else:
        file = systemd_unit(places)
        commands = [["systemctl", "--user", "disable", "--now", UNIT_NAME]]
    if not file.exists():
        return None
    ran = _tell(places, commands, run)
    file.unlink()
    if places.system != "Darwin":
        reload = ["systemctl", "--user", "daemon-reload"]
        commands.append(reload)
        if ran:
            _tell(places, [reload], run)
    return Service(file, commands, ran)


def systemd_unit(places: Places) -> Path:
    config = places.env.get("XDG_CONFIG_HOME") or str(places.home / ".config")
    return Path(config) / "systemd" / "user" / UNIT_NAME


def launch_agent(places: Places) -> Path:
    return places.home / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def systemd_text(command: list[str]) -> str:
    return "\n".join(
        [
            "[Unit]",
            "Description=recall watch: coding agents' sessions into the recall history",
            "",
            "[Service]",
            f"ExecStart={' '.join(systemd_quote(word) for word in command)}",
            "Restart=on-failure",
            "RestartSec=10",
            "",
            "[Install]",
            "WantedBy=default.target",
            "",
        ]
    )


def systemd_quote(word: str) -> str:
    """A word of ExecStart as systemd reads it: `%` and `$` doubled, quoted when it must be."""
    word = word.replace("%", "%%").replace("$", "$$")
    if word and not any(char in word for char in " \t\"'\\;"):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def launchd_plist(command: list[str], home: Path) -> dict[str, object]:
    return {
        "Label": LABEL,
        "ProgramArguments": command,
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ProcessType": "Background",
        "StandardErrorPath": str(home / "Library" / "Logs" / "recall-watch.log"),
    }


def write_private(file: Path, content: bytes) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)
    file.chmod(0o600)


def own_home(places: Places) -> bool:
    """Whether `places` is this account's real home (not a test's, nor another's)."""
    try:
        import pwd

        real = Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):
        return False
    return places.home.resolve() == real.resolve()


def _tell(places: Places, commands: list[list[str]], run: Runner | None) -> bool:
    """Run `commands` with `run`, or for real where that is safe; False when not run."""
    if run is None:
        if not own_home(places) or shutil.which(commands[0][0]) is None:
            return False
        run = _run
    return all(run(command) == 0 for command in commands)


def _run(command: list[str]) -> int:
    try:
        return subprocess.run(command, check=False, capture_output=True, timeout=60).returncode
    except (OSError, subprocess.TimeoutExpired):
        return 1
