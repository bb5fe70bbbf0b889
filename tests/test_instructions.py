"""Every task type has default instructions, so no annotator opens an empty panel."""

import pytest

from annotation.instructions import DEFAULT_INSTRUCTIONS
from annotation.models import TaskType


@pytest.mark.parametrize("task_type", TaskType.values)
def test_every_task_type_has_default_instructions(task_type):
    assert len(DEFAULT_INSTRUCTIONS.get(task_type, "")) > 80
