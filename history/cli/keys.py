"""`recall keys`: members' keys for the team's service, each with its rights and projects.

A key is printed once, when it is added; the database keeps only a salted digest of it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from history.access import LOCAL_ACTOR, MAX_NAME_CHARS, Right, StoredKey, parse_rights, rights_text
from history.cli.common import FAILED, NOTHING, OK, USAGE, Commands, open_index
from history.cli.language import _
from history.domain import READ_ONLY

NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._@-]{{0,{MAX_NAME_CHARS - 1}}}")


def key_name(text: str) -> str:
    if not NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(
            _(
                "{text!r} is not a key name (letters, digits, . _ @ -, up to {most} characters)",
                text=text,
                most=MAX_NAME_CHARS,
            )
        )
    return text


def rights(text: str) -> frozenset[Right]:
    try:
        return parse_rights(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _(
                "{text!r} is not a list of rights: read, record, forget, admin (comma-separated)",
                text=text,
            )
        ) from None


def cmd_keys_add(args: argparse.Namespace) -> int:
    from history.members import KeyNameTaken

    index = open_index(args)
    if not index.writable:
        print(_("recall keys: no key added: {reason}", reason=_(READ_ONLY)), file=sys.stderr)
        return FAILED
    try:
        stored, key = index.members.add(args.name, args.can, args.project or None, LOCAL_ACTOR)
    except KeyNameTaken:
        print(
            _(
                "recall keys: a key named {name} exists already (revoked ones keep their name)",
                name=args.name,
            ),
            file=sys.stderr,
        )
        return USAGE
    print(key)
    print(
        _(
            "key {name} added ({rights}; {projects}): it is shown this once, keep it now",
            name=stored.name,
            rights=rights_text(stored.rights),
            projects=_projects(stored),
        ),
        file=sys.stderr,
    )
    return OK


def _projects(key: StoredKey) -> str:
    return _("every project") if key.projects is None else ", ".join(sorted(key.projects))


def cmd_keys_list(args: argparse.Namespace) -> int:
    keys = open_index(args).members.keys()
    if args.json:
        rows = [
            {
                "name": key.name,
                "id": key.key_id,
                "rights": sorted(right.value for right in key.rights),
                "projects": None if key.projects is None else sorted(key.projects),
                "created_at": key.created_at.isoformat(),
                "revoked_at": key.revoked_at.isoformat() if key.revoked_at else None,
            }
            for key in keys
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return OK if keys else NOTHING
    if not keys:
        print(_("no key: the service needs none (or only RECALL_TOKEN)"), file=sys.stderr)
        return NOTHING
    for key in keys:
        if key.revoked_at is not None:
            state = _("revoked {when}", when=key.revoked_at.strftime("%Y-%m-%d %H:%M"))
        else:
            state = _("added {when}", when=key.created_at.strftime("%Y-%m-%d %H:%M"))
        print(
            f"{key.name}\trk_{key.key_id}_…\t{rights_text(key.rights)}\t{_projects(key)}\t{state}"
        )
    return OK


def cmd_keys_revoke(args: argparse.Namespace) -> int:
    index = open_index(args)
    if not index.writable:
        print(_("recall keys: nothing revoked: {reason}", reason=_(READ_ONLY)), file=sys.stderr)
        return FAILED
    if not index.members.revoke(args.name, LOCAL_ACTOR):
        print(_("recall keys: no live key is named {name}", name=args.name), file=sys.stderr)
        return NOTHING
    print(_("key {name} revoked: its next request is refused", name=args.name))
    return OK


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    keys = commands.add_parser(
        "keys", parents=[common], help=_("members' keys for the team's service")
    )
    actions = keys.add_subparsers(dest="keys_action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help=_("add a key and print it, once"))
    add.add_argument("name", type=key_name, help=_("who or what holds it"))
    add.add_argument(
        "--can",
        type=rights,
        required=True,
        metavar="RIGHTS",
        help=_("what it may do: read, record, forget, admin (comma-separated)"),
    )
    add.add_argument(
        "--project",
        action="append",
        metavar="PATH",
        help=_("a workspace path it is limited to (repeatable; default: every project)"),
    )
    add.set_defaults(run=cmd_keys_add)
    listed = actions.add_parser("list", help=_("list the keys, revoked ones too"))
    listed.add_argument("--json", action="store_true", help=_("as JSON"))
    listed.set_defaults(run=cmd_keys_list)
    revoke = actions.add_parser("revoke", help=_("revoke a key: its next request is refused"))
    revoke.add_argument("name", type=key_name, help=_("the key's name"))
    revoke.set_defaults(run=cmd_keys_revoke)
