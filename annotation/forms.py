from django import forms

from annotation.models import Scale, TaskType
from annotation.services.imports import KINDS, WMT_XML

KIND_LABELS = {WMT_XML: "WMT XML test set (documents, source, references and systems)"}


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=200)
    source_language = forms.CharField(max_length=16, help_text="e.g. en")
    target_language = forms.CharField(max_length=16, help_text="e.g. de")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)


class UploadForm(forms.Form):
    """The file itself comes as ``files`` (several allowed); validated by the import service."""

    kind = forms.ChoiceField(
        choices=[(kind, KIND_LABELS.get(kind, kind.title())) for kind in KINDS]
    )
    name = forms.CharField(
        max_length=200,
        required=False,
        help_text="Reference or system name; systems default to their file name.",
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
        min_value=0, initial=0, label="Items per annotator", help_text="0: no limit"
    )
    repeat_rate = forms.FloatField(min_value=0, max_value=1, initial=0.0)
    bad_reference_rate = forms.FloatField(min_value=0, max_value=1, initial=0.0)
    reference_rate = forms.FloatField(
        min_value=0, max_value=1, initial=0.0, label="Human reference rate"
    )


class InvitationAcceptForm(forms.Form):
    token = forms.CharField(label="Invitation code", max_length=100)
    username = forms.CharField(max_length=150)
    password = forms.CharField(widget=forms.PasswordInput, min_length=8)


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
