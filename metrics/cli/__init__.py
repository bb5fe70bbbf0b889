"""Command line for organisers: ``python -m metrics SUB-COMMAND ...`` (``SUBCOMMANDS`` below)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

# Each sub-command lives in its own module with ``register(subparsers)``; the module sets
# ``func`` on its parser, which receives the parsed namespace and returns an exit code.
SUBCOMMANDS = ("score", "agreement", "human", "mqm", "esa", "compare", "meta")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m metrics", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"metrics.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args))
