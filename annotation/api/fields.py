"""JSON body fields that take only the JSON type the schema names.

DRF's own fields coerce: ``"5"`` and ``5.0`` pass as integers, ``1`` and ``"yes"`` as booleans,
``7`` as a string. A client sending the wrong type has a bug it should hear about (and the
schema, which says ``integer``, should be the whole truth), so JSON bodies use these.
"""

from __future__ import annotations

import threading
from typing import Any

from django.utils.functional import cached_property
from rest_framework import serializers

from annotation.lib.ids import BIGINT_MAX


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """Bounded by PostgreSQL's bigint unless narrower bounds are given: an id of 2^63 is
    refused with a 400 rather than failing in the database."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_value", BIGINT_MAX)
        kwargs.setdefault("min_value", -BIGINT_MAX - 1)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class NoUnknownFieldsSerializer(serializers.Serializer):
    """Refuses a JSON body with fields the serializer does not name (a typo such as
    ``judgements_per_item`` would otherwise be dropped without a word)."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if isinstance(self.initial_data, dict):
            unknown = sorted(set(self.initial_data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["unknown field"] for name in unknown})
        return super().validate(attrs)


class HotPathSerializer(NoUnknownFieldsSerializer):
    """A request body serializer on the annotator's loop. DRF deep-copies a serializer's
    declared fields for every instance (a quarter of a millisecond per judgment, 8% of the
    web process's CPU). Plain fields keep no state between validations, so each thread
    builds the bound fields once, on a template instance that never holds a request, and
    every later instance of the class reads them. Only for flat bodies of plain fields."""

    _templates = threading.local()

    @cached_property
    def fields(self) -> Any:
        cls = type(self)
        template = getattr(self._templates, cls.__qualname__, None)
        if type(template) is not cls:
            template = cls()
            template.__dict__["fields"] = serializers.Serializer.fields.real_func(template)
            setattr(self._templates, cls.__qualname__, template)
        return template.fields


class QueryChoiceField(serializers.ChoiceField):
    """A query parameter's choice: ``?procedure=`` (blank) is refused like any other value
    outside the choices (the schema's enum), not taken for "not given" as DRF does for forms."""

    def get_value(self, dictionary: Any) -> Any:
        if dictionary.get(self.field_name) == "":
            return ""
        return super().get_value(dictionary)


class CaseInsensitiveChoiceField(serializers.ChoiceField):
    """A choice given in either case (``a`` as ``A``), as the keyboard keys are."""

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, str):
            data = data.upper()
        return super().to_internal_value(data)
