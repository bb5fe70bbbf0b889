"""Helpers that hold no models and no views: text file formats, WMT XML, language codes,
rating scales, bad-reference perturbation and the client's address."""
