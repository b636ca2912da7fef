"""`recall import` and `recall hook`: transcripts of other agents into the index."""

from __future__ import annotations

import argparse


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Add the import and hook sub-commands."""
