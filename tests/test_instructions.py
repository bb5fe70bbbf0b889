"""Every task type has default instructions, so no annotator opens an empty panel."""

import pytest

from annotation.instructions import task_instructions
from annotation.models import TaskType
from annotation.protocols import PROTOCOLS
from annotation.services.tasks import task_create


@pytest.mark.parametrize("task_type", TaskType.values)
def test_every_task_type_has_default_instructions(task_type):
    protocol = PROTOCOLS.get(task_type)
    assert protocol is not None and len(protocol.instructions) > 80
    # A monolingual wording only where the protocol has monolingual tasks.
    assert not protocol.monolingual_instructions or protocol.applies("monolingual")


@pytest.mark.django_db
def test_a_monolingual_adequacy_task_reads_the_references_wording(loaded_campaign):
    bilingual = task_create(campaign=loaded_campaign, task_type=TaskType.ADEQUACY, seed=5)
    monolingual = task_create(
        campaign=loaded_campaign, task_type=TaskType.ADEQUACY, monolingual=True, seed=6
    )
    assert task_instructions(bilingual) == PROTOCOLS[TaskType.ADEQUACY].instructions
    assert "semantics of the reference text" in task_instructions(monolingual)
