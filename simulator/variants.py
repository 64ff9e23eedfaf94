"""Reading variants and override files: `--variant NAME:K=V,...`, `--variants FILE`, `--set-file FILE`.

A variant is a name and a dict of overrides (ruleset keys and `situation.` keys alike,
simulator/overrides.py).  Files are TOML; nested tables are flattened to dotted keys, so
`[variant.x]` with `situation.turns = 8` (a TOML dotted key) and `"situation.turns" = 8`
(a quoted key) mean the same.  Reference: docs/experiments.md.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from simulator.errors import DataError
from simulator.ruleset import read_toml

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


def parse_value(raw: str):
    """A `--set` value read as a TOML value (5, 2.5, true, "text", ["2", "3"]); a bare word is a string."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def parse_assignment(item: str, where: str) -> tuple[str, object]:
    if "=" not in item:
        raise DataError(where, item, "not KEY=VALUE",
                        "a dotted key and a value, e.g. units.t-34-c.attack=5 or situation.turns=8")
    key, raw = item.split("=", 1)
    if not key.strip():
        raise DataError(where, item, "no key before '='", "KEY=VALUE")
    return key.strip(), parse_value(raw.strip())


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside brackets and quotes, so list values (`boards=["2","3"]`) stay whole."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_variant(spec: str) -> tuple[str, dict]:
    """`NAME:KEY=VALUE[,KEY=VALUE...]` -> (name, overrides)."""
    where = "--variant"
    name, sep, rest = spec.partition(":")
    name = name.strip()
    if not sep or not NAME_RE.match(name):
        raise DataError(where, spec, "not NAME:KEY=VALUE[,KEY=VALUE...]",
                        "a variant name (letters, digits, - _ . +), a colon, then overrides, e.g. short:situation.turns=8")
    items = split_top_level(rest)
    if not items:
        raise DataError(where, spec, "no overrides after the name", "at least one KEY=VALUE")
    return name, dict(parse_assignment(item, where) for item in items)


def flatten(table: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in table.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def read_set_file(path: str | Path) -> dict:
    """A TOML file of overrides, `key = value` (nested tables flattened to dotted keys)."""
    doc = read_toml(Path(path))
    if not doc:
        raise DataError(str(path), "", "no overrides in the file", 'key = value lines, e.g. "situation.turns" = 8')
    return flatten(doc)


def read_variants_file(path: str | Path) -> dict[str, dict]:
    """A TOML file of `[variant.NAME]` tables of overrides -> {NAME: overrides}, in file order."""
    doc = read_toml(Path(path))
    variants = doc.get("variant")
    extra = sorted(set(doc) - {"variant"})
    if extra:
        raise DataError(str(path), extra[0], "unknown table", "[variant.NAME] tables only")
    if not isinstance(variants, dict) or not variants:
        raise DataError(str(path), "variant", "no variants", "one or more [variant.NAME] tables of key = value")
    out = {}
    for name, table in variants.items():
        if not isinstance(table, dict) or not table:
            raise DataError(str(path), f"variant.{name}", "not a table of overrides", "key = value lines")
        if not NAME_RE.match(name):
            raise DataError(str(path), f"variant.{name}", "not a usable variant name", "letters, digits, - _ . +")
        out[name] = flatten(table)
    return out


def collect_variants(specs: list[str] | None, files: list[str] | None) -> dict[str, dict]:
    """Variants from `--variants FILE` (first) and `--variant` options; a name given twice is an error."""
    out: dict[str, dict] = {}
    pairs = [item for f in files or [] for item in read_variants_file(f).items()]
    pairs += [parse_variant(s) for s in specs or []]
    for name, sets in pairs:
        if name in out:
            raise DataError("--variant", name, "variant named twice", "a different name for each variant")
        if name == "baseline":
            raise DataError("--variant", name, "reserved name", "any name but 'baseline'")
        out[name] = sets
    return out
