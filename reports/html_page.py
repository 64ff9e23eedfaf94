"""The frame of the experiment reports (compare, sweep, suggest): one self-contained HTML page.

Pictures go in as data: URIs and the CSS is inline, so a report is one file that can be mailed.
"""

from __future__ import annotations

import base64
import html
import io
import json

import matplotlib.pyplot as plt

CSS = """
body { font-family: sans-serif; max-width: 980px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; } th, td { padding: 0.2em 0.8em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) { background: #f3f3f3; } .how { color: #555; } img { max-width: 100%; }
code { font-size: 0.85em; word-break: break-all; } .lead { font-size: 1.2em; font-weight: bold; }
"""


def png_bytes(fig) -> bytes:
    """A matplotlib figure as PNG bytes (and the figure closed)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def whiskers(centre, lo, hi):
    """Error-bar lengths below and above; never negative (a Wilson bound at 0 or n games can sit
    a rounding error inside the estimate)."""
    import numpy as np

    return [np.maximum(centre - lo, 0.0), np.maximum(hi - centre, 0.0)]


def image(png: bytes, alt: str) -> str:
    return f"<img alt='{html.escape(alt)}' src='data:image/png;base64,{base64.b64encode(png).decode('ascii')}'>"


def table(head: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """An HTML table; cells are escaped; columns in `numeric` are right-aligned."""
    e = html.escape
    th = "".join(f"<th>{e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td class='num'>{e(c)}</td>" if i in numeric else f"<td>{e(c)}</td>"
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><tr>{th}</tr>{body}</table>"


def meta_table(meta: dict) -> str:
    e = html.escape
    return "<table>" + "".join(f"<tr><th>{e(k)}</th><td><code>{e(json.dumps(v))}</code></td></tr>"
                               for k, v in meta.items()) + "</table>"


def page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>\n<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n")


def write_experiment(result: dict, out, kind: str, chart, report_html):
    """`<kind>.json`, `<kind>.png` and report.html of an experiment (compare, sweep, suggest) into
    `out`, all at once (simulator/outdir.py)."""
    from simulator.outdir import write_directory
    from simulator.summary import summary_json

    def fill(tmp) -> None:
        png = png_bytes(chart(result))
        (tmp / f"{kind}.json").write_text(summary_json(result) + "\n")
        (tmp / f"{kind}.png").write_bytes(png)
        (tmp / "report.html").write_text(report_html(result, png))

    return write_directory(out, (f"{kind}.json", f"{kind}.png", "report.html"), f"balance {kind}", fill)
