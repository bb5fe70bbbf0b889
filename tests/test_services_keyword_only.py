"""``annotation/services`` promises keyword-only functions: every public function, writes and
the helpers beside them alike, takes its arguments by keyword."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parent.parent / "annotation" / "services"

# Functions whose signature Django chooses, each with the reason.
ALLOWED = {
    "logins.tokens_delete_on_password_change": "a post_save receiver: Django passes sender, "
    "instance and created",
    "logins.username_validator": "a field validator: Django calls it with the value alone",
}


def positional_functions() -> set[str]:
    found = set()
    for path in sorted(SERVICES.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if node.name.startswith("_"):
                continue
            arguments = node.args
            if arguments.posonlyargs or arguments.args or arguments.vararg:
                found.add(f"{path.stem}.{node.name}")
    return found


def test_every_public_service_function_is_keyword_only() -> None:
    assert positional_functions() - set(ALLOWED) == set()


def test_the_allow_list_names_only_functions_that_need_it() -> None:
    # A function made keyword-only leaves the list, so that it cannot silently grow back.
    assert set(ALLOWED) - positional_functions() == set()
