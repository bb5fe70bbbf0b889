"""``annotation/services`` promises keyword-only functions: every public function, writes and
the helpers beside them alike, takes its arguments by keyword."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parent.parent / "annotation" / "services"

# Functions that still take positional arguments, each with the reason. Modules being
# rewritten on another branch keep theirs until it is merged; then this list empties.
ALLOWED = {
    **dict.fromkeys(
        (
            "assignment.batch_capacity",
            "assignment.batch_quota",
            "assignment.originals_per_group",
            "assignment.bad_references_wanted",
            "assignment.groups_plan",
            "assignment.groups_from_appraise",
            "assignment.group_order",
            "judgments.answer_columns",
            "judgments.judgment_refusal",
            # Called from views/annotate.py, rewritten with the loop.
            "spans.task_mqm_weights",
        ),
        "the annotator loop's modules, rewritten on the loop branch (issue 21 §1)",
    ),
    **dict.fromkeys(
        (
            "tasks.task_locked",
            "tasks.task_reference_warning",
            "task_rules.task_validate",
            "task_rules.task_settings_check",
            # Called from task_rules.py.
            "spans.mqm_settings_problem",
        ),
        "the task settings' modules, rewritten with the protocol declarations (issue 21 §2)",
    ),
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
