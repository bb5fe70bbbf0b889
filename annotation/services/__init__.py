"""Writes: every function here is keyword-only, named ``entity_action`` and atomic."""
