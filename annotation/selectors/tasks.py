"""Reads about tasks for the manager pages."""

from __future__ import annotations

from annotation.models import Campaign, Item, System, Task


def tasks_missing_systems(campaign: Campaign) -> list[tuple[Task, list[str]]]:
    """Launched (or paused) tasks whose items leave out systems uploaded after launch."""
    systems = set(System.objects.filter(campaign=campaign).values_list("name", flat=True))
    missing = []
    for task in campaign.tasks.filter(state__in=[Task.State.LAUNCHED, Task.State.PAUSED]):
        judged: set[str] = set()
        for candidates in Item.objects.filter(task=task).values_list("candidates", flat=True):
            for candidate in candidates:
                judged.update(candidate["systems"])
        if left_out := sorted(systems - judged):
            missing.append((task, left_out))
    return missing
