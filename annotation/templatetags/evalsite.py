from django import template
from django.utils.html import format_html

from annotation import protocols
from annotation.lib.languages import language_tag, text_direction

register = template.Library()


@register.filter
def protocol(task) -> protocols.Protocol:
    """The task's protocol (``annotation.protocols``): what a page shows of the task follows
    its declaration, never its type's name."""
    return protocols.protocol_for(task.task_type)


@register.filter
def reference_shown(task) -> bool:
    return protocols.reference_shown(task)


@register.filter
def budget_unit(task) -> str:
    return protocols.budget_unit_of(task)


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if mapping else None


@register.simple_tag
def text_attrs(language: str) -> str:
    """``lang`` and ``dir`` of a segment in ``language``: ``<p class="segment"
    {% text_attrs campaign.target_language %}>``. The stylesheet isolates every segment."""
    tag = language_tag(language)
    return format_html('lang="{}" dir="{}"', tag, text_direction(language))


@register.simple_tag
def confirm_attrs(change: str, subject) -> str:
    """The data attributes of a form whose button asks first (static/js/evalsite.js opens a
    dialog from them); without JavaScript the server asks on a confirm page."""
    from annotation.confirmations import confirmation

    return _confirm_data(confirmation(change, subject))


@register.simple_tag
def restart_confirm_attrs(task, username: str) -> str:
    """``confirm_attrs`` of the form that lets an annotator start a task again."""
    from annotation.confirmations import restart_confirmation

    return _confirm_data(restart_confirmation(task, username))


def _confirm_data(asked) -> str:
    return format_html(
        'data-confirm="{}" data-confirm-detail="{}" data-confirm-button="{}"',
        asked.question,
        asked.consequence,
        asked.button,
    )
