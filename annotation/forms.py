from django import forms

from annotation.services.imports import KINDS


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=200)
    source_language = forms.CharField(max_length=16, help_text="e.g. en")
    target_language = forms.CharField(max_length=16, help_text="e.g. de")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)


class UploadForm(forms.Form):
    """The file itself comes as ``files`` (several allowed); validated by the import service."""

    kind = forms.ChoiceField(choices=[(kind, kind.title()) for kind in KINDS])
    name = forms.CharField(
        max_length=200,
        required=False,
        help_text="Reference or system name; systems default to their file name.",
    )
    add_run = forms.BooleanField(
        required=False, help_text="Add as another run (e.g. training seed) of an existing system."
    )
