"""Protocols declared once (issue 21 §2): the registry, the page form and the API built from
it, and the defects it fixes (MQM typology on an unchanged save, settings a protocol does
not implement, one seed for every task, tasks without names, 500s on out-of-range input)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from django.contrib.staticfiles import finders
from django.template.loader import get_template
from rest_framework.test import APIClient

from annotation.models import Task, TaskType
from annotation.selectors.annotation import item_display
from annotation.services.assignment import slot_claim_next
from annotation.services.campaigns import membership_set
from annotation.services.judgments import JudgmentError, answer_columns
from annotation.services.tasks import TaskError, task_create, task_launch

pytestmark = pytest.mark.django_db


class _FormValues(HTMLParser):
    """What a browser sends for the form with ``form_id`` as the page renders it."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id, self.inside, self.values = form_id, False, {}
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside or "disabled" in a:
            return
        if tag == "input" and a.get("name") and a.get("type") != "submit":
            if a.get("type") == "checkbox":
                if "checked" in a:
                    self.values[a["name"]] = "on"
            else:
                self.values[a["name"]] = a.get("value") or ""
        elif tag == "textarea":
            self._textarea = a["name"]
            self.values[a["name"]] = ""
        elif tag == "select":
            self._select = a["name"]
        elif tag == "option" and self._select and "selected" in a:
            self.values[self._select] = a["value"]

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None
        elif tag == "form":
            self.inside = False

    def handle_data(self, data):
        if self._textarea:
            self.values[self._textarea] += data.removeprefix("\n")


def form_values(html: bytes, form_id: str = "task-edit") -> dict[str, str]:
    parser = _FormValues(form_id)
    parser.feed(html.decode())
    return parser.values


@pytest.fixture
def manager_client(client, loaded_campaign, manager):
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    client.force_login(manager)
    return client


@pytest.fixture
def api(loaded_campaign, manager):
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    client = APIClient()
    client.force_authenticate(manager)
    return client


def test_every_task_type_is_one_declared_protocol():
    from annotation.protocols import PROTOCOLS, QUALITY_CONTROL, SETTINGS

    assert set(PROTOCOLS) == set(TaskType.values)
    for protocol in PROTOCOLS.values():
        assert protocol.setting_names <= set(SETTINGS)
        assert protocol.quality_control <= set(QUALITY_CONTROL)
        get_template(protocol.template)  # raises TemplateDoesNotExist
        assert all(finders.find(script) for script in protocol.scripts), protocol.scripts


@pytest.mark.parametrize(
    ("task_type", "marker"),
    [
        ("esa", 'id="span-editor"'),
        ("ranking", 'class="ranking"'),
        ("postedit", 'name="post_edit"'),
        ("adequacy", 'name="score"'),
    ],
)
def test_the_item_screen_is_built_from_the_protocols_template_and_script(
    client, launched, make_annotator, task_type, marker
):
    """The annotate page includes the answer template and the script its protocol declares,
    and no other protocol's script."""
    from django.templatetags.static import static
    from django.urls import reverse

    from annotation.protocols import PROTOCOLS

    task = launched(task_type)
    client.force_login(make_annotator(task.campaign, "ann"))
    page = client.get(reverse("annotate", args=[task.id])).content.decode()
    assert marker in page
    own = set(PROTOCOLS[task_type].scripts)
    assert all(static(script) in page for script in own)
    others = {script for p in PROTOCOLS.values() for script in p.scripts} - own
    assert others and not any(static(script) in page for script in others)


def test_answer_columns_delegates_to_the_protocol():
    assert answer_columns(
        task_type="adequacy_fluency",
        scale="likert5",
        candidates=[],
        answer={"score": 4, "fluency": "2"},
    ) == {
        "score": 4,
        "fluency": 2,
    }
    assert answer_columns(
        task_type="pairwise",
        scale="da100",
        candidates=[{}, {}],
        answer={"candidate_scores": [10, 90]},
    ) == {
        "candidate_scores": [10, 90],
        "preference": "B",
    }
    with pytest.raises(JudgmentError, match="from 1 to 5") as refused:
        answer_columns(task_type="adequacy", scale="likert5", candidates=[], answer={"score": 6})
    assert refused.value.code == "invalid"
    with pytest.raises(JudgmentError, match="from 0 to 100"):
        answer_columns(task_type="esa", scale="likert5", candidates=[], answer={"score": 101})


@pytest.mark.parametrize("categories", [[], ["Accuracy", "Fluency/Grammar"]])
def test_saving_a_draft_mqm_task_unchanged_keeps_its_typology(
    manager_client, loaded_campaign, categories, make_annotator
):
    weights = {"severity": {"major": 5, "minor": 1}} if categories else {}
    task = task_create(
        campaign=loaded_campaign,
        task_type="mqm",
        mqm_categories=categories,
        mqm_weights=weights,
    )
    url = f"/campaigns/{loaded_campaign.id}/tasks/{task.id}/edit/"
    page = manager_client.get(url)
    assert b">[]</textarea>" not in page.content and b">{}</textarea>" not in page.content
    saved = manager_client.post(url, form_values(page.content))
    assert saved.status_code == 302
    task.refresh_from_db()
    assert (task.mqm_categories, task.mqm_weights) == (categories, weights)
    # The annotators' picker: the typology, or Google's when none is set; never "[]".
    task_launch(task_id=task.id)
    annotator = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    shown = item_display(slot)["mqm_categories"]
    assert "[]" not in shown and (shown == categories or not categories)


def test_a_setting_the_protocol_does_not_implement_is_refused(loaded_campaign, manager_client, api):
    with pytest.raises(TaskError, match="do not implement hotw_rate"):
        task_create(campaign=loaded_campaign, task_type="esa", hotw_rate=0.1)
    answer = api.post(
        f"/api/v1/campaigns/{loaded_campaign.id}/tasks",
        {"task_type": "esa", "hotw_rate": 0.1},
        format="json",
    )
    assert answer.status_code == 400
    assert "do not implement hotw_rate" in answer.json()["error"]
    page = manager_client.post(
        f"/campaigns/{loaded_campaign.id}/tasks/",
        {"task_type": "esa", "hotw_rate": "0.1", "judgments_per_item": "1"},
    )
    assert page.status_code == 400 and b"do not implement hotw_rate" in page.content
    assert not Task.objects.filter(campaign=loaded_campaign).exists()
    # Left at its default, a setting the protocol lacks is harmless (a form sends them all).
    task = task_create(campaign=loaded_campaign, task_type="esa", hotw_rate=0.0)
    # An edit cannot sneak it in either.
    refused = api.patch(
        f"/api/v1/campaigns/{loaded_campaign.id}/tasks/{task.id}",
        {"ranking_size": 3},
        format="json",
    )
    assert refused.status_code == 400 and "ranking_size" in refused.json()["error"]


def test_each_task_draws_its_own_seed_shown_and_settable(loaded_campaign, manager_client, api):
    first = task_create(campaign=loaded_campaign, task_type="adequacy")
    second = task_create(campaign=loaded_campaign, task_type="adequacy")
    assert first.seed != second.seed
    detail = manager_client.get(f"/campaigns/{loaded_campaign.id}/")
    assert f"seed {first.seed}".encode() in detail.content
    edit_url = f"/campaigns/{loaded_campaign.id}/tasks/{first.id}/edit/"
    values = form_values(manager_client.get(edit_url).content)
    assert values["seed"] == str(first.seed)
    assert manager_client.post(edit_url, {**values, "seed": "777"}).status_code == 302
    assert Task.objects.get(id=first.id).seed == 777
    made = api.post(
        f"/api/v1/campaigns/{loaded_campaign.id}/tasks",
        {"task_type": "esa", "seed": 42},
        format="json",
    )
    assert made.status_code == 201 and made.json()["seed"] == 42
    # Two launched tasks of a campaign hand out their outputs in different orders.
    for task in (first, second):
        task_launch(task_id=task.id)
    orders = [
        list(
            Task.objects.get(id=task.id)
            .slots.order_by("batch__number", "position")
            .values_list("item__system__name", "item__segment__index")[:18]
        )
        for task in (first, second)
    ]
    assert orders[0] != orders[1]


def test_tasks_have_names_unique_in_their_campaign(
    loaded_campaign, manager_client, api, make_annotator
):
    first = task_create(campaign=loaded_campaign, task_type="adequacy")
    second = task_create(campaign=loaded_campaign, task_type="adequacy")
    named = task_create(campaign=loaded_campaign, task_type="adequacy", name="Adequacy, news")
    assert (first.name, second.name, named.name) == ("Adequacy", "Adequacy 2", "Adequacy, news")
    with pytest.raises(TaskError, match="named 'adequacy' already"):
        task_create(campaign=loaded_campaign, task_type="fluency", name="adequacy")
    clash = api.patch(
        f"/api/v1/campaigns/{loaded_campaign.id}/tasks/{second.id}",
        {"name": "ADEQUACY"},
        format="json",
    )
    assert clash.status_code == 400
    renamed = api.patch(
        f"/api/v1/campaigns/{loaded_campaign.id}/tasks/{second.id}",
        {"name": "Adequacy, speech"},
        format="json",
    )
    assert renamed.status_code == 200 and renamed.json()["name"] == "Adequacy, speech"
    for task in (first, second):
        task_launch(task_id=task.id)
    annotator = make_annotator(loaded_campaign, "ann")
    manager_client.force_login(annotator)
    tasks = manager_client.get("/annotate/").content.decode()
    assert "Adequacy, speech" in tasks and re.search(r">Adequacy<", tasks)
    item = manager_client.get(f"/annotate/{second.id}/").content.decode()
    assert "<h1>Adequacy, speech" in item


def test_the_task_form_marks_the_fields_of_each_protocol(manager_client, loaded_campaign):
    page = manager_client.get(f"/campaigns/{loaded_campaign.id}/").content.decode()
    # Outputs per screen (N); the typology and the weights.
    assert 'data-protocols="ranking contrastive_esa contrastive_mqm contrastive_da"' in page
    assert 'data-protocols="mqm contrastive_mqm"' in page
    assert "For MQM error annotation" in page  # the note shown without the script
    assert "Not for Fluency" in page  # show_reference
    assert "js/task_form" in page and "<script>" not in page


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("items_per_annotator", str(2**31), b"less than or equal to 1000000"),
        ("mqm_weights", '{"severity": {"major": 1e999}}', b"not a finite number"),
        ("mqm_weights", '{"severity": {"major": NaN}}', b"not a finite number"),
        ("mqm_weights", '{"non_translation": "\\u0000"}', b"NUL character"),
        ("mqm_categories", "Accuracy\x00", b"contains a NUL character"),
    ],
)
def test_out_of_range_settings_are_form_errors_not_500(
    manager_client, loaded_campaign, field, value, message
):
    # Every field as the page sends it, so that only the one under test is wrong.
    form = {
        "task_type": "mqm",
        "scale": "likert5",
        "judgments_per_item": "1",
        "ranking_size": "5",
        "context_size": "0",
        "items_per_annotator": "0",
        "batch_size": "100",
        "repeat_rate": "0",
        "bad_reference_rate": "0",
        "reference_rate": "0",
    }
    answer = manager_client.post(f"/campaigns/{loaded_campaign.id}/tasks/", {**form, field: value})
    assert answer.status_code == 400 and message in answer.content
    assert not Task.objects.filter(campaign=loaded_campaign).exists()


@pytest.mark.parametrize(
    "body",
    [
        '{"task_type": "mqm", "items_per_annotator": 2147483648}',
        '{"task_type": "mqm", "mqm_weights": {"severity": {"major": 1e999}}}',
        '{"task_type": "mqm", "mqm_weights": {"non_translation": "\\u0000"}}',
        '{"task_type": "mqm", "mqm_categories": ["Acc\\u0000uracy"]}',
        '{"task_type": "mqm", "seed": 9223372036854775808}',
    ],
)
def test_out_of_range_settings_are_400_in_the_api(api, loaded_campaign, body):
    answer = api.post(
        f"/api/v1/campaigns/{loaded_campaign.id}/tasks", body, content_type="application/json"
    )
    assert answer.status_code == 400, answer.content
    assert not Task.objects.filter(campaign=loaded_campaign).exists()


def test_mqm_typology_and_weights_through_the_api_and_back_on_the_page(
    api, loaded_campaign, manager_client
):
    made = api.post(
        f"/api/v1/campaigns/{loaded_campaign.id}/tasks",
        {
            "task_type": "mqm",
            "mqm_categories": ["Accuracy", "Style"],
            "mqm_weights": {"severity": {"major": 10, "minor": 1}},
            "judgments_per_item": 50,
            "batch_size": 10_000,
        },
        format="json",
    )
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["mqm_categories"] == ["Accuracy", "Style"] and body["name"]
    # A task the API made can be saved unchanged on the page: one set of bounds.
    url = f"/campaigns/{loaded_campaign.id}/tasks/{body['id']}/edit/"
    values = form_values(manager_client.get(url).content)
    assert manager_client.post(url, values).status_code == 302
    task = Task.objects.get(id=body["id"])
    assert task.mqm_weights == {"severity": {"major": 10, "minor": 1}}
    assert (task.judgments_per_item, task.batch_size) == (50, 10_000)


def test_the_schema_states_the_declared_bounds(api):
    from annotation.protocols import SETTINGS, protocol_for

    schema = api.get("/api/schema/?format=json")
    schemas = json.loads(schema.content)["components"]["schemas"]
    settings = schemas["TaskCreateRequest"]["properties"]
    for name, setting in SETTINGS.items():
        if setting.kind == "int":
            assert settings[name]["maximum"] == setting.maximum, name
    assert "mqm" in settings["mqm_weights"]["description"]
    assert protocol_for("mqm").applies("mqm_weights")
