import json

from django import forms

from annotation.lib.languages import LanguageCodeError, language_code_normalise
from annotation.models import Role, Scale, Task, TaskType
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


class TaskForm(forms.Form):
    task_type = forms.ChoiceField(choices=TaskType.choices)
    scale = forms.ChoiceField(choices=Scale.choices, initial=Scale.LIKERT5)
    judgments_per_item = forms.IntegerField(
        min_value=1, max_value=20, initial=1, label="Judgments per item (k)"
    )
    ranking_size = forms.IntegerField(
        min_value=2, max_value=10, initial=5, label="Outputs per ranking (N)"
    )
    monolingual = forms.BooleanField(
        required=False, help_text="Adequacy against the reference, not the source"
    )
    show_reference = forms.BooleanField(required=False)
    context_size = forms.IntegerField(
        min_value=0, max_value=5, initial=0, label="Context (segments each side)"
    )
    items_per_annotator = forms.IntegerField(
        min_value=0,
        initial=0,
        label="Items per annotator",
        help_text="0: no limit; rounded up to whole batches",
    )
    batch_size = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=1000,
        initial=Task._meta.get_field("batch_size").default,
        label="Items per batch",
        help_text="An annotator takes a whole batch (WMT: 100); repeats come on top",
    )
    # Their bounds are the task service's (quality_control_check), with its messages.
    repeat_rate = forms.FloatField(initial=0.0, help_text="A share below 1: 0.1 is 10%")
    bad_reference_rate = forms.FloatField(initial=0.0, help_text="A share below 1")
    reference_rate = forms.FloatField(
        initial=0.0, label="Human reference rate", help_text="A share below 1"
    )

    mqm_categories = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="MQM typology",
        help_text="MQM tasks: one category a line; empty: Google's MQM typology",
    )
    mqm_weights = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="MQM weights (JSON)",
        help_text='e.g. {"severity": {"major": 5, "minor": 1}, "non_translation": 25}; '
        "empty: Google's",
    )
    instructions = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Blank: the default wording for the task type (WMT's)",
    )
    completion_code = forms.CharField(
        required=False, max_length=64, help_text="Crowd studies: shown at the end of the batch"
    )
    completion_url = forms.URLField(
        required=False,
        max_length=500,
        help_text="Crowd studies: participants are sent here at the end (instead of a code)",
    )

    def clean_batch_size(self) -> int:
        # Left out by older forms and scripts: the task's default.
        return self.cleaned_data.get("batch_size") or self.fields["batch_size"].initial

    def clean_mqm_categories(self) -> list[str]:
        lines = (self.cleaned_data.get("mqm_categories") or "").splitlines()
        return [line.strip() for line in lines if line.strip()]

    def clean_mqm_weights(self) -> dict:
        text = (self.cleaned_data.get("mqm_weights") or "").strip()
        if not text:
            return {}
        try:
            weights = json.loads(text)
        except json.JSONDecodeError as error:
            raise forms.ValidationError(f"not JSON: {error.msg}") from None
        if not isinstance(weights, dict):
            raise forms.ValidationError("give a JSON object")
        return weights


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
