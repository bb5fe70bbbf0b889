"""Command line for organisers: ``python -m metrics SUB-COMMAND ...`` (``SUBCOMMANDS`` below)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each sub-command lives in its own module with ``register(subparsers)``; the module sets
# ``func`` on its parser, which receives the parsed namespace and returns an exit code.
SUBCOMMANDS = ("score", "agreement", "human", "mqm", "esa", "compare", "meta", "simulate")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, the other sub-commands are not imported (a cold start of
    ``score`` should not pay for scipy.stats, which ``human`` needs)."""
    parser = argparse.ArgumentParser(prog="python -m metrics", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        if only is None or name == only:
            module = importlib.import_module(f"metrics.cli.{name}")
            module.register(subparsers)
        else:
            subparsers.add_parser(name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    chosen = arguments[0] if arguments and arguments[0] in SUBCOMMANDS else None
    parser = build_parser(only=chosen)
    args = parser.parse_args(arguments)
    return int(args.func(args))
