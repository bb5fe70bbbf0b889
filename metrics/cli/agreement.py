"""`python -m metrics agreement`: not written yet."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("agreement", help="(not written yet)")
    parser.set_defaults(func=lambda args: 2)
