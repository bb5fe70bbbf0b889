"""annotator_exclude: a reversible exclusion from the rankings; nothing is deleted."""

import pytest

from annotation.models import AnnotatorExclusion, Judgment
from annotation.selectors.human import human_results
from annotation.services.exclusions import ExclusionError, annotator_exclude
from tests.human_support import judge_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", judgments_per_item=2)
    users = [make_annotator(loaded_campaign, name) for name in ("ann1", "ann2", "ann3")]
    judge_all(task, users, lambda user, slot: {"score": 1 + (slot.item.id + user.id) % 5})
    return loaded_campaign, task, users


def test_exclude_then_include_restores_every_number(judged, manager):
    campaign, _, users = judged
    before = human_results(campaign).tasks[0]
    stored = Judgment.objects.count()

    assert annotator_exclude(campaign=campaign, annotator_id=users[0].id, excluded=True, by=manager)
    exclusion = AnnotatorExclusion.objects.get()
    assert (exclusion.campaign, exclusion.annotator, exclusion.created_by) == (
        campaign,
        users[0],
        manager,
    )
    during = human_results(campaign).tasks[0]
    judged_by_first = Judgment.objects.filter(annotator=users[0]).count()
    counted = sum(s.score.judgments for s in during.likert[0].systems)
    assert counted == sum(s.score.judgments for s in before.likert[0].systems) - judged_by_first
    assert Judgment.objects.count() == stored  # nothing deleted
    assert {row.annotator_id for row in during.quality if row.excluded} == {users[0].id}

    assert not annotator_exclude(
        campaign=campaign, annotator_id=users[0].id, excluded=False, by=manager
    )
    after = human_results(campaign).tasks[0]
    assert AnnotatorExclusion.objects.count() == 0
    assert [(s.name, s.score) for s in after.likert[0].systems] == [
        (s.name, s.score) for s in before.likert[0].systems
    ]
    assert after.agreement == before.agreement


def test_exclusion_is_idempotent(judged, manager):
    campaign, _, users = judged
    for _ in range(2):
        annotator_exclude(campaign=campaign, annotator_id=users[1].id, excluded=True, by=manager)
    assert AnnotatorExclusion.objects.count() == 1
    for _ in range(2):
        annotator_exclude(campaign=campaign, annotator_id=users[1].id, excluded=False, by=manager)
    assert AnnotatorExclusion.objects.count() == 0


def test_only_annotators_with_judgments_in_the_campaign(judged, manager, django_user_model):
    campaign, _, _ = judged
    stranger = django_user_model.objects.create_user("stranger", password="x-password-1")
    with pytest.raises(ExclusionError):
        annotator_exclude(campaign=campaign, annotator_id=stranger.id, excluded=True, by=manager)
    assert AnnotatorExclusion.objects.count() == 0


def test_task_scope_checks_the_task_and_including_without_a_task_clears_every_scope(
    judged, manager, launched
):
    campaign, task, users = judged
    other = launched("fluency")  # a task of the campaign nobody judged
    with pytest.raises(ExclusionError, match="no judgments in the task"):
        annotator_exclude(
            campaign=campaign, annotator_id=users[0].id, excluded=True, by=manager, task_id=other.id
        )
    with pytest.raises(ExclusionError, match="no such task"):
        annotator_exclude(
            campaign=campaign, annotator_id=users[0].id, excluded=True, by=manager, task_id=10**9
        )
    for task_id in (task.id, task.id, None):  # idempotent in each scope
        annotator_exclude(
            campaign=campaign, annotator_id=users[0].id, excluded=True, by=manager, task_id=task_id
        )
    assert sorted(AnnotatorExclusion.objects.values_list("task_id", flat=True), key=str) == [
        task.id,
        None,
    ]
    annotator_exclude(
        campaign=campaign, annotator_id=users[0].id, excluded=False, by=manager, task_id=task.id
    )
    assert list(AnnotatorExclusion.objects.values_list("task_id", flat=True)) == [None]
    annotator_exclude(
        campaign=campaign, annotator_id=users[0].id, excluded=True, by=manager, task_id=task.id
    )
    annotator_exclude(campaign=campaign, annotator_id=users[0].id, excluded=False, by=manager)
    assert not AnnotatorExclusion.objects.exists()
