"""Writes, and the rules they apply.

Every public function here takes keyword arguments only, but for the two whose signature
Django chooses (a signal receiver, a field validator; tests/test_services_keyword_only.py
holds the package to it). A write is named ``entity_action`` and atomic; the pure helpers
beside the writes (parsers, plans, validation rules) write nothing.
"""
