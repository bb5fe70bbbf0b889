"""What each irreversible page action asks before it is done, in one place: the dialog the
page's script opens and the confirm page shown without JavaScript both read it."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import Campaign, Task


@dataclass(frozen=True)
class Confirmation:
    question: str
    consequence: str
    button: str


def _task_name(task: Task) -> str:
    return f"task #{task.id} ({task.get_task_type_display()})"


def confirmation(change: str, subject: Campaign | Task) -> Confirmation:
    """The question for ``change`` of a task or a campaign (``subject``)."""
    if isinstance(subject, Task):
        name = _task_name(subject)
        texts = {
            "close": (
                f"Close {name}?",
                "Annotators get none of its items any more; the judgments made are kept "
                "and counted. A closed task cannot be opened again.",
                "Close the task",
            ),
            "delete": (
                f"Delete the draft {name}?",
                "The task and its settings are removed. Nothing was judged in it.",
                "Delete the task",
            ),
        }
    else:
        texts = {
            "close": (
                f"Close the campaign {subject.name}?",
                "Every running task is closed: annotators get no more items. Judgments are "
                "kept and results stay readable. A closed campaign cannot be opened again.",
                "Close the campaign",
            ),
            "archive": (
                f"Archive the campaign {subject.name}?",
                "It becomes read-only and is listed apart from the others.",
                "Archive the campaign",
            ),
            "delete": (
                f"Delete the draft campaign {subject.name}?",
                "Its uploaded source, references, systems, tasks and members are removed. "
                "No task was launched, so nothing was judged in it.",
                "Delete the campaign",
            ),
        }
    return Confirmation(*texts[change])


def restart_confirmation(task: Task, username: str) -> Confirmation:
    """The question before letting an annotator who failed start a task again."""
    return Confirmation(
        f"Let {username} start {_task_name(task)} again?",
        "Their judgments so far are kept but excluded: left out of the rankings and "
        "agreement, marked in the downloads. Their attention checks and tutorial answers are "
        "kept under their earlier attempt. They get a new attempt at the tutorial if they "
        "failed it, and new items (never one they had).",
        "Let them start again",
    )


def needs_confirmation(change: str, subject: Campaign | Task) -> bool:
    try:
        confirmation(change, subject)
    except KeyError:
        return False
    return True
