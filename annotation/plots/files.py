"""A results page's plot as a file: standalone SVG (the page's plot styles embedded, so that
it draws the same outside the page) and PDF (that SVG compiled by Typst; no other tools)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from django.conf import settings

from metrics.report.pdf import compile_typst
from metrics.report.tables import typst_string

STYLESHEET = Path(settings.BASE_DIR) / "static" / "css" / "evalsite.css"
# Outside the page no stylesheet sets the font; Typst draws SVG text with its own fonts.
FONT = "font-family: 'DejaVu Sans', 'Libertinus Serif', sans-serif;"
_VIEWBOX = re.compile(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"')


@cache
def plot_styles() -> str:
    """The stylesheet's ``svg.plot`` rules (the one place plots are styled), scoped to the
    file's own ``svg`` and with the ``:root`` colour variables written out."""
    css = STYLESHEET.read_text(encoding="utf-8")
    root = re.search(r":root\s*\{([^}]*)\}", css)
    variables = dict(re.findall(r"(--[a-z-]+)\s*:\s*([^;]+);", root.group(1) if root else ""))
    rules = []
    for selector, body in re.findall(r"^(svg\.plot[^{]*)\{([^}]*)\}", css, flags=re.MULTILINE):
        body = re.sub(r"var\((--[a-z-]+)\)", lambda m: variables.get(m.group(1), "black"), body)
        selector = selector.strip().replace("svg.plot", "svg", 1)
        if selector == "svg":
            body = f" font-size: 12px; {FONT} "  # not the page's 100% width
        rules.append(f"{selector} {{{body.rstrip()} }}")
    return "\n".join(rules)


def standalone_svg(svg: str) -> str:
    """The plot's SVG with its styles inside and a size of its own."""
    size = _VIEWBOX.search(svg)
    width, height = size.groups() if size else ("640", "400")
    head, _, rest = svg.partition(">")
    head = head.replace("<svg ", f'<svg width="{width}" height="{height}" ', 1)
    style = f"<style>\n{plot_styles()}\n</style>"
    return f'<?xml version="1.0" encoding="utf-8"?>\n{head}>{style}{rest}\n'


def svg_pdf(svg: str) -> bytes:
    """A one-page PDF of the plot, the page the plot's size (1 SVG unit = 0.75 pt)."""
    source = standalone_svg(svg)
    size = _VIEWBOX.search(svg)
    width = float(size.group(1)) * 0.75 if size else 480.0
    document = (
        f"#set page(width: {width:.1f}pt, height: auto, margin: 0pt)\n"
        f'#image(bytes({typst_string(source)}), format: "svg", width: 100%)\n'
    )
    return compile_typst(document)
