"""Where VS Code and its forks keep their user folders, and what their `file://` URIs name.

An extension's globalStorage and the per-workspace workspaceStorage sit under the user folder
of each editor build: VS Code (`Code`), VS Code Insiders, Cursor and VSCodium, in the system's
application-data folder (Linux: `$XDG_CONFIG_HOME` or `~/.config`; macOS: `~/Library/Application
Support`; Windows: `%APPDATA%`). Remote servers keep theirs under `~/.vscode-server/data/User`.
"""

from __future__ import annotations

import json
from pathlib import Path, PureWindowsPath
from urllib.parse import unquote, urlparse

from history.importers.base import Places

EDITORS = ("Code", "Code - Insiders", "Cursor", "VSCodium")
# The project of a session that names no folder (a chat in an empty window, a task whose
# folder was never written down): the home folder, so its turns are kept and can be found.
NO_FOLDER = "~"


def app_data(places: Places) -> Path:
    """The folder applications keep their per-user settings in on `places`' system."""
    if places.system == "Darwin":
        return places.home / "Library" / "Application Support"
    if places.system == "Windows":
        appdata = places.env.get("APPDATA")
        return Path(appdata) if appdata else places.home / "AppData" / "Roaming"
    config = places.env.get("XDG_CONFIG_HOME")
    return Path(config) if config else places.home / ".config"


def user_folders(places: Places, editors: tuple[str, ...] = EDITORS) -> list[Path]:
    """Each editor's `User` folder, then the remote servers' ones."""
    base = app_data(places)
    remote = [places.home / name / "data" / "User" for name in (".vscode-server", ".vscode-remote")]
    return [base / editor / "User" for editor in editors] + remote


def uri_path(value: object) -> str:
    """A path from a `file://` URI string, a VS Code URI object (`fsPath`, `path`) or a path."""
    if isinstance(value, dict):
        for key in ("fsPath", "path", "external"):
            if isinstance(value.get(key), str):
                return uri_path(value[key])
        return ""
    if not isinstance(value, str):
        return ""
    if not value.startswith("file:"):
        return value
    path = unquote(urlparse(value).path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # /c:/Users/... on Windows
        return str(PureWindowsPath(path[1:])).replace("\\", "/")
    return path


def workspace_folder(storage: Path) -> str:
    """The folder (or workspace file) a `workspaceStorage/<hash>` folder stores state for, from
    its `workspace.json`; "" when it names none."""
    try:
        meta = json.loads((storage / "workspace.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return ""
    if not isinstance(meta, dict):
        return ""
    return uri_path(meta.get("folder") or meta.get("workspace") or "")
