"""Cheap, conservative reading of shell commands and patches for the paths they touch.

Only simple, unambiguous forms are read; anything else names no path rather than a wrong one:
- reads: the file arguments of `cat`, `head`, `tail`, `nl`, `wc`, `less`, `more`, `bat`, and
  of `sed` without `-i` (after its script);
- edits: the arguments of `rm`, `touch`, `sed -i`, and the target of a `>`/`>>` redirection;
- patches: `*** Add File:`, `*** Update File:`, `*** Delete File:`, `*** Move to:` headers.
`rg`/`grep` targets are left out: they are mostly directories and patterns, not files.
A command is tainting when `curl` or `wget` appears in it anywhere (a deliberately loose match:
pipes, `$(...)`, `xargs curl` all count).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

READERS = frozenset({"cat", "head", "tail", "nl", "wc", "less", "more", "bat"})
EDITORS = frozenset({"rm", "touch"})
# Options that take a separate value, per command, so the value is not taken for a file.
VALUE_OPTIONS = {
    "head": {"-n", "-c"},
    "tail": {"-n", "-c"},
    "nl": {"-b", "-w", "-s", "-v", "-i"},
    "sed": {"-e", "-f", "-l"},
}
SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")", "|&", ";;"})
REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
WRAPPERS = frozenset({"sudo", "command", "exec", "time", "nohup", "xargs"})

TAINT_RE = re.compile(r"(?<![\w.-])(?:curl|wget)(?![\w-])")
PATCH_RE = re.compile(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+?)\s*$", re.MULTILINE)
HEREDOC_RE = re.compile(r"(?<!<)<<-?(?!<)\s*['\"]?([A-Za-z_]\w*)['\"]?")


@dataclass
class ShellFacts:
    read: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    tainted: bool = False


def patch_paths(text: str) -> list[str]:
    return PATCH_RE.findall(text)


def shell_facts(script: str) -> ShellFacts:
    facts = ShellFacts(tainted=bool(TAINT_RE.search(script)))
    heredoc_end: str | None = None
    for line in script.replace("\\\n", " ").splitlines():
        if heredoc_end is not None:
            if line.strip() == heredoc_end:
                heredoc_end = None
            continue
        match = HEREDOC_RE.search(line)
        if match:
            heredoc_end = match.group(1)
            line = line[: match.start()] + line[match.end() :]
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            continue
        segment: list[str] = []
        for token in [*tokens, ";"]:
            if token in SEPARATORS:
                _read_segment(segment, facts)
                segment = []
            else:
                segment.append(token)
    facts.edited.extend(path for path in patch_paths(script) if path not in facts.edited)
    return facts


def _read_segment(tokens: list[str], facts: ShellFacts) -> None:
    words = _command_words(tokens, facts)
    if not words:
        return
    command = words[0].rsplit("/", 1)[-1]
    if command not in READERS and command not in EDITORS and command != "sed":
        return
    in_place = command == "sed" and any(
        word.startswith("-i") or word == "--in-place" for word in words[1:]
    )
    paths = _path_operands(command, words[1:])
    if command in EDITORS or in_place:
        facts.edited.extend(paths)
    else:
        facts.read.extend(paths)


def _command_words(tokens: list[str], facts: ShellFacts) -> list[str]:
    """The segment's words from its command on (assignments and wrappers dropped), the paths
    of its redirections noted as read or edited."""
    words: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if token in REDIRECTS or token == "<":
            if token != ">&" and _plain_path(following):
                (facts.read if token == "<" else facts.edited).append(following)
            index += 2
            continue
        if not (token.isdigit() and (following in REDIRECTS or following == "<")):
            words.append(token)
        index += 1
    while words and ("=" in words[0] or words[0] in WRAPPERS):
        words.pop(0)
    return words


def _path_operands(command: str, arguments: list[str]) -> list[str]:
    """The literal paths among a command's arguments (options, their values and sed's script
    left out)."""
    script_pending = command == "sed" and not any(word in ("-e", "-f") for word in arguments)
    paths: list[str] = []
    takes_value = VALUE_OPTIONS.get(command, set())
    args = iter(arguments)
    for word in args:
        if word in takes_value:
            next(args, None)
        elif not word or (word.startswith("-") and word != "-"):
            continue
        elif script_pending:
            script_pending = False
        elif _plain_path(word):
            paths.append(word)
    return paths


def _plain_path(word: str) -> bool:
    """A literal path: no globs, variables, substitutions, or device files."""
    return (
        bool(word)
        and word != "-"
        and not any(c in word for c in "*?[$`{}")
        and (not word.startswith("/dev/"))
    )
