from django import template
from django.utils.html import format_html

from annotation.lib.languages import language_tag, text_direction

register = template.Library()


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if mapping else None


@register.simple_tag
def text_attrs(language: str) -> str:
    """``lang`` and ``dir`` of a segment in ``language``: ``<p class="segment"
    {% text_attrs campaign.target_language %}>``. The stylesheet isolates every segment."""
    tag = language_tag(language)
    return format_html('lang="{}" dir="{}"', tag, text_direction(language))
