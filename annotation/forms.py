import json
from typing import Any

from django import forms

from annotation.lib.languages import LanguageCodeError, language_code_normalise
from annotation.models import Role, TaskType
from annotation.protocols import PROTOCOLS, SETTINGS, Protocol, Setting, protocols_applying
from annotation.services.imports import KINDS, WMT_XML
from annotation.services.invitations import INVITATION_DAYS, MAX_INVITATIONS_AT_ONCE

KIND_LABELS = {WMT_XML: "WMT XML test set (documents, source, references and systems)"}


def _language_code(value: str) -> str:
    try:
        return language_code_normalise(value)
    except LanguageCodeError as error:
        raise forms.ValidationError(str(error)) from None


class CampaignForm(forms.Form):
    """The language codes are checked here too, so that their message shows beside them."""

    name = forms.CharField(max_length=200)
    source_language = forms.CharField(max_length=16, help_text="BCP 47 code, e.g. en")
    target_language = forms.CharField(max_length=16, help_text="BCP 47 code, e.g. de or pt-BR")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)

    def clean_source_language(self) -> str:
        return _language_code(self.cleaned_data["source_language"])

    def clean_target_language(self) -> str:
        return _language_code(self.cleaned_data["target_language"])


class UploadForm(forms.Form):
    """The file itself comes as ``files`` (several allowed); validated by the import service."""

    kind = forms.ChoiceField(
        choices=[(kind, KIND_LABELS.get(kind, kind.title())) for kind in KINDS]
    )
    name = forms.CharField(
        max_length=200,
        required=False,
        help_text="Reference or system name; by default the file's (….ref.A.de → A).",
    )
    add_run = forms.BooleanField(
        required=False, help_text="Add as another run (e.g. training seed) of an existing system."
    )
    documents = forms.FileField(
        required=False,
        label="Document ids",
        help_text="With a plain-text source: one document id a line, for the source line with "
        "the same number.",
    )


class LinesField(forms.Field):
    """A list of strings, one a line in a text box (an MQM typology). Shows a list as its
    lines, so that an unchanged form saves the same list (never the text ``[]``)."""

    widget = forms.Textarea(attrs={"rows": 3})

    def prepare_value(self, value: Any) -> str:
        return "\n".join(value) if isinstance(value, list) else (value or "")

    def to_python(self, value: Any) -> list[str]:
        if isinstance(value, list):
            return value
        return [line.strip() for line in (value or "").splitlines() if line.strip()]


class JsonObjectField(forms.Field):
    """A JSON object in a text box (MQM weights); empty is ``{}`` and shows empty."""

    widget = forms.Textarea(attrs={"rows": 2})

    def prepare_value(self, value: Any) -> str:
        if isinstance(value, dict):
            return json.dumps(value, ensure_ascii=False) if value else ""
        return value or ""

    def to_python(self, value: Any) -> dict:
        if isinstance(value, dict):
            return value
        text = (value or "").strip()
        if not text:
            return {}
        try:
            parsed = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as error:
            raise forms.ValidationError(f"not JSON: {getattr(error, 'msg', error)}") from None
        if not isinstance(parsed, dict):
            raise forms.ValidationError("give a JSON object")
        return parsed


def _applies_note(applying: list[Protocol]) -> str:
    """ "For A, B" or, for a setting most protocols have, "Not for C"; "" for every one."""
    others = [p for p in PROTOCOLS.values() if p not in applying]
    if not others:
        return ""
    if len(others) < len(applying):
        return "Not for " + ", ".join(p.label for p in others)
    return "For " + ", ".join(p.label for p in applying)


def _setting_field(setting: Setting) -> forms.Field:
    """The page's field for one declared setting, with the declaration's bounds."""
    common = {
        "required": False,
        "label": setting.label,
        "help_text": setting.help,
        "initial": setting.default,
    }
    if setting.kind == "int":
        field: forms.Field = forms.IntegerField(
            min_value=setting.minimum, max_value=setting.maximum, **common
        )
    elif setting.kind == "number":
        field = forms.FloatField(min_value=setting.minimum, max_value=setting.maximum, **common)
    elif setting.kind == "share":
        # Bounded by the task rules' quality-control check, whose messages say why.
        field = forms.FloatField(**common)
    elif setting.kind == "bool":
        field = forms.BooleanField(**common)
    elif setting.kind == "choice":
        field = forms.ChoiceField(choices=setting.choices, **common)
    elif setting.kind == "url":
        field = forms.URLField(max_length=setting.max_length, **common)
    elif setting.kind == "text":
        field = forms.CharField(
            max_length=setting.max_length, widget=forms.Textarea(attrs={"rows": 4}), **common
        )
    elif setting.kind == "lines":
        field = LinesField(**common)
    elif setting.kind == "json":
        field = JsonObjectField(**common)
    else:
        field = forms.CharField(max_length=setting.max_length, **common)
    applying = protocols_applying(setting.name)
    # Read by the template: the protocols the field belongs to (static/js/task_form.js shows
    # it for those only) and, for the page without a script, a note saying so.
    field.protocols = " ".join(p.task_type for p in applying)  # type: ignore[attr-defined]
    field.applies_to = _applies_note(applying)  # type: ignore[attr-defined]
    return field


class TaskForm(forms.Form):
    """A task's settings, built from the protocol declarations (annotation/protocols): one
    field per declared setting, with its bounds; the add-task form and the edit page."""

    task_type = forms.ChoiceField(choices=TaskType.choices, label="Task type")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for name, setting in SETTINGS.items():
            value = data.get(name)
            if name not in self.errors and (problem := setting.problem(value)):
                self.add_error(name, problem)
        return data

    def settings(self) -> dict[str, Any]:
        """The settings given, for the task services. A setting the chosen protocol does not
        implement and the page did not send (the script leaves out the fields it hides)
        takes the protocol's default; sent with another value it goes to the service,
        which refuses it. Blank ones (None) are left to the service (a seed drawn, a name
        from the type)."""
        protocol = PROTOCOLS[self.cleaned_data["task_type"]]
        given = {}
        for name in SETTINGS:
            value = self.cleaned_data.get(name)
            field = self.fields[name]
            if not protocol.applies(name) and name not in self.data and not field.disabled:
                value = protocol.default(name)
            if value is not None:
                given[name] = value
        return given


TaskForm.base_fields.update({name: _setting_field(setting) for name, setting in SETTINGS.items()})
TaskForm.base_fields["task_type"].protocols = ""  # type: ignore[attr-defined]
TaskForm.base_fields["task_type"].applies_to = ""  # type: ignore[attr-defined]


class InvitationAcceptForm(forms.Form):
    token = forms.CharField(label="Invitation code", max_length=100)
    username = forms.CharField(max_length=150)
    password = forms.CharField(widget=forms.PasswordInput, min_length=8)


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="An existing account")
    role = forms.ChoiceField(choices=Role.choices)


class InvitationsCreateForm(forms.Form):
    # Optional, so that an empty post makes one annotator's link of the usual lifetime.
    role = forms.ChoiceField(choices=Role.choices, required=False, initial=Role.ANNOTATOR)
    count = forms.IntegerField(
        min_value=1,
        max_value=MAX_INVITATIONS_AT_ONCE,
        initial=1,
        required=False,
        label="How many links",
    )
    days = forms.IntegerField(
        min_value=1,
        max_value=365,
        initial=INVITATION_DAYS,
        required=False,
        label="Valid for (days)",
    )
    note = forms.CharField(max_length=200, required=False, help_text="e.g. who it is for")
    csv = forms.BooleanField(required=False, label="Download as CSV")

    def clean(self):
        data = super().clean()
        data["role"] = data.get("role") or Role.ANNOTATOR
        data["count"] = data.get("count") or 1
        data["days"] = data.get("days") or INVITATION_DAYS
        return data


class InvitationTokenForm(forms.Form):
    token = forms.CharField(label="Invitation code", max_length=100)


class MetricScoresForm(forms.Form):
    """Per-segment scores of a metric computed elsewhere (annotation.services.metric_uploads)."""

    name = forms.CharField(max_length=60, help_text="e.g. COMET-22 or MetricX-23")
    better = forms.ChoiceField(
        choices=[("higher", "Higher is better"), ("lower", "Lower is better")],
        initial="higher",
    )
    file = forms.FileField(
        help_text="TSV system, segment (from 1), score; or mt-metrics-eval .seg.score "
        "(system, score; one line per segment, in order)"
    )
