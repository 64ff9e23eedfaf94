"""A small TOML writer for the files this project generates (values, inline tables, lists).

The standard library reads TOML but does not write it; the generated situation files are
meant to be read and edited by people, so the layout (comments, one group per table, long
hex lists wrapped) is decided by the caller and only values are formatted here.
"""

from __future__ import annotations

import json
import re

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def key(k: str) -> str:
    return k if _BARE_KEY.match(k) else json.dumps(k)


def value(v, width: int = 96, indent: str = "") -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x, width, indent)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, list | tuple):
        items = [value(x, width, indent + "  ") for x in v]
        one_line = "[" + ", ".join(items) + "]"
        if len(one_line) + len(indent) <= width:
            return one_line
        lines, cur = [], ""
        for it in items:
            if cur and len(indent) + 2 + len(cur) + len(it) + 2 > width:
                lines.append(cur.rstrip())
                cur = ""
            cur += it + ", "
        if cur:
            lines.append(cur.rstrip())
        return "[\n" + "\n".join(indent + "  " + ln for ln in lines) + "\n" + indent + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def assign(k: str, v, comment: str = "") -> str:
    tail = f"  # {comment}" if comment else ""
    return f"{key(k)} = {value(v)}{tail}"
