"""Hypothesis posts garbage to every HTML form, as schemathesis does to the API: no 5xx.

Each POST view is called as the role that may use it (and the query strings of the result
pages and downloads are fuzzed the same way), in the realistic campaign of
``tests/security_world.py``. Field values are drawn from odd numbers (huge, negative, "nan",
"1e309", non-ASCII digits), NUL bytes, markup and arbitrary text, each field present or not,
sometimes repeated; ids in the path are mostly ones that exist, so requests get past the 404s.
Hypothesis runs derandomised: the same examples on every run. What it found is pinned by
plain regression tests (``test_views_annotate.py``, ``test_views_human.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.models import Invitation
from annotation.services.assignment import slot_claim_next
from tests.security_world import ANN, ANON, MGR, ORG, World, client_for, world_for_module

EXAMPLES = 40  # per form

ODD = st.sampled_from(
    [
        "",
        " ",
        "0",
        "-1",
        "1",
        "3",
        "5",
        "100",
        "101",
        "1.5",
        "1e309",
        "nan",
        "inf",
        "-inf",
        "²",  # str.isdigit() says yes, int() says no
        "١٢",  # Arabic-Indic digits, which int() reads
        "9" * 30,
        "\x00",
        "A",
        "B",
        "tie",
        "true",
        "on",
        "annotator",
        "manager",
        "organiser",
        "likert5",
        "da100",
        "adequacy",
        "ranking",
        "pairwise",
        "postedit",
        "linear",
        "quadratic",
        "<script>alert(1)</script>",
        "' OR 1=1 --",
    ]
)
VALUE = st.one_of(ODD, st.text(max_size=40), st.integers(-(10**20), 10**20).map(str))
# A field sent once, or several times (as a form may repeat a name).
FIELD = st.one_of(VALUE, st.lists(VALUE, min_size=2, max_size=3))
ID = st.one_of(st.just(None), st.integers(0, 10**20))  # None: an id that exists
FILE_NAME = st.one_of(
    st.sampled_from(["s.de", "all.zip", "all.tar.gz", "x.jsonl", "x.tsv", "hyp.Human.de", "x"]),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30),
)
FILE_DATA = st.one_of(
    st.binary(max_size=300),
    st.sampled_from([b"", b"\x00\n", b"PK\x03\x04broken", "".join("x\n" * 12).encode()]),
)


def _fields(names: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Each named field present or not, plus now and then a field no form has."""
    return st.fixed_dictionaries(
        {}, optional={**{name: FIELD for name in names}, "unexpected": FIELD}
    )


@dataclass
class Form:
    name: str
    role: str
    path: Callable[[World, Any], str]  # (world, drawn id or None) -> URL path
    fields: list[str] = field(default_factory=list)
    files: bool = False


def _campaign(world: World, drawn: int | None) -> int:
    return world.campaign.id if drawn is None else drawn


def _invitation(world: World, drawn: int | None) -> int:
    if drawn is not None:
        return drawn
    pending = Invitation.objects.filter(campaign=world.campaign, used_at=None).first()
    return pending.id if pending else 0


ANSWER_FIELDS = [
    "slot",
    "candidates",
    "score",
    "fluency",
    "preference",
    "post_edit",
    *(f"rank-{i}" for i in range(6)),
    *(f"cscore-{i}" for i in range(6)),
]
TASK_FIELDS = [
    "task_type",
    "scale",
    "judgments_per_item",
    "ranking_size",
    "monolingual",
    "show_reference",
    "context_size",
    "items_per_annotator",
    "repeat_rate",
    "bad_reference_rate",
    "reference_rate",
]
FORMS = [
    Form("login", ANON, lambda w, i: "/login/", ["username", "password", "next"]),
    Form("admin login", ANON, lambda w, i: "/admin/login/", ["username", "password"]),
    Form("logout", ANN, lambda w, i: "/logout/"),
    Form(
        "campaign create",
        MGR,
        lambda w, i: "/campaigns/new/",
        ["name", "source_language", "target_language", "description"],
    ),
    Form(
        "upload",
        MGR,
        lambda w, i: f"/campaigns/{_campaign(w, i)}/upload/",
        ["kind", "name", "add_run"],
        files=True,
    ),
    Form(
        "upload confirm",
        MGR,
        lambda w, i: (
            f"/campaigns/{w.campaign.id}/upload/{w.pending.id if i is None else i}/confirm/"
        ),
    ),
    Form(
        "upload cancel",
        MGR,
        lambda w, i: (
            f"/campaigns/{w.campaign.id}/upload/{w.pending.id if i is None else i}/cancel/"
        ),
    ),
    Form("task create", MGR, lambda w, i: f"/campaigns/{_campaign(w, i)}/tasks/", TASK_FIELDS),
    Form(
        "task launch",
        MGR,
        lambda w, i: (
            f"/campaigns/{w.campaign.id}/tasks/{w.tasks['ranking'].id if i is None else i}/launch/"
        ),
    ),
    Form(
        "invitation create",
        MGR,
        lambda w, i: f"/campaigns/{_campaign(w, i)}/invitations/",
        ["role", "note", "count", "days", "csv"],
    ),
    Form(
        "invitation revoke",
        MGR,
        lambda w, i: f"/campaigns/{w.campaign.id}/invitations/{_invitation(w, i)}/revoke/",
    ),
    Form(
        "member add",
        MGR,
        lambda w, i: f"/campaigns/{_campaign(w, i)}/members/add/",
        ["username", "role"],
    ),
    Form(
        "invitation accept",
        ANON,
        lambda w, i: "/invite/",
        ["action", "token", "username", "password", "login-username", "login-password"],
    ),
    Form(
        "invitation join",
        ANN,
        lambda w, i: "/invite/",
        ["action", "token", "username", "password", "login-username", "login-password"],
    ),
    Form("invitation details", ANON, lambda w, i: "/invite/details/", ["token"]),
    Form("metrics rerun", MGR, lambda w, i: f"/campaigns/{_campaign(w, i)}/metrics/rerun/"),
    Form(
        "annotator exclusion",
        ORG,
        lambda w, i: (
            f"/campaigns/{w.campaign.id}/results/human/annotators/"
            f"{w.annotator2.id if i is None else i}/exclusion/"
        ),
        ["excluded"],
    ),
]


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> Iterator[World]:
    with world_for_module(django_db_blocker) as built:
        yield built


FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _no_server_error(response, what: str) -> None:
    assert response.status_code < 500, f"{what}: {response.status_code}"


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.name)
@FUZZ
@given(data=st.data())
def test_form_post_never_answers_5xx(form, world, db, data):
    client = client_for(world, form.role)
    path = form.path(world, data.draw(ID, label="id"))
    post = data.draw(_fields(form.fields), label="fields")
    if form.name.startswith("invitation") and data.draw(st.booleans(), label="real token"):
        post["token"] = world.token
    if form.files:
        files = data.draw(st.lists(st.tuples(FILE_NAME, FILE_DATA), max_size=2), label="files")
        post["files"] = [SimpleUploadedFile(name, content) for name, content in files]
    _no_server_error(client.post(path, post), f"POST {path} {post!r}")


@pytest.mark.parametrize("task_type", ["adequacy", "adequacy_fluency", "pairwise", "ranking"])
@FUZZ
@given(data=st.data())
def test_annotate_submit_never_answers_5xx(task_type, world, db, data):
    """The answer form of each task type, with the annotator's own leased slot most times."""
    task = world.tasks[task_type]
    slot = slot_claim_next(task=task, annotator_id=world.users[ANN].id)
    post = data.draw(_fields(ANSWER_FIELDS), label="fields")
    if slot is not None and data.draw(st.integers(0, 3), label="own slot"):
        post["slot"] = str(slot.id)
    headers = {"HTTP_X_REQUESTED_WITH": "fetch"} if data.draw(st.booleans(), label="js") else {}
    path = f"/annotate/{task.id}/submit/"
    response = client_for(world, ANN).post(path, post, **headers)
    _no_server_error(response, f"POST {path} {post!r}")


QUERIES = [
    ("automatic results", lambda w: f"/campaigns/{w.campaign.id}/results/automatic/", ["metric"]),
    (
        "judgments download",
        lambda w: f"/campaigns/{w.campaign.id}/results/human/judgments.csv",
        ["task", "included", "pseudonymise"],
    ),
    (
        "WMT download",
        lambda w: f"/campaigns/{w.campaign.id}/results/human/judgments.wmt",
        ["task", "included", "pseudonymise"],
    ),
]


@pytest.mark.parametrize(("name", "path", "names"), QUERIES, ids=[q[0] for q in QUERIES])
@FUZZ
@given(data=st.data())
def test_result_query_strings_never_answer_5xx(name, path, names, world, db, data):
    query = data.draw(_fields(names), label="query")
    if "task" in names and data.draw(st.booleans(), label="real task"):
        query["task"] = str(data.draw(st.sampled_from(list(world.tasks.values()))).id)
    response = client_for(world, ORG).get(path(world), query)
    if response.streaming:
        b"".join(response.streaming_content)  # errors while streaming count too
    _no_server_error(response, f"GET {path(world)} {query!r}")


@settings(FUZZ, max_examples=8)  # the page computes every ranking: a second or so each
@given(data=st.data())
def test_human_results_query_string_never_answers_5xx(world, db, data):
    query = data.draw(_fields(["weights", "human"]), label="query")
    path = f"/campaigns/{world.campaign.id}/results/human/"
    _no_server_error(client_for(world, ORG).get(path, query), f"GET {path} {query!r}")
