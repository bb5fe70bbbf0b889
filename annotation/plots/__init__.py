"""Plots drawn on the server as SVG, so the pages need no network and no JavaScript."""
