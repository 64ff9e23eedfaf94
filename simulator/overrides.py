"""Overrides of situation fields (`--set situation.turns=8`), applied to the raw TOML document.

Ruleset tables already take dotted-key overrides (simulator/ruleset.py).  This module does the
same for the situation file itself, so a designer can try "one turn fewer", "a T-34 more" or
"the German marginal victory at 6 losses" without copying the file.  Keys start with
`situation.` and mirror the document's dotted paths:

    situation.turns = 8
    situation.side.german.victory.marginal = 6          # a side by its name
    situation.side.russian.group.0.units.t-34-c = 4     # a group by its index (0 = first)
    situation.side[russian].group[0].units.t-34-c = 4   # the same, as validation messages spell it
    situation.side.german.group.4.setup.boards = ["2", "3"]

The overrides are applied before the situation is checked, so every check of the file format
applies to the result.  Here only the shape is checked: the key must exist (closest valid keys
otherwise) and the value must be of the current value's type.  What else a key may do is the
ruleset's to say (`simulator.api.DocumentRules`): PanzerBlitz lets two kinds of key be new,
because the point is to change them, a unit type in a group's `units` table (adding units; a
count of 0 removes that unit type from the group) and a filter in a set-up or entry area, and
lets victory thresholds take fractional numbers.
"""

from __future__ import annotations

import copy
import difflib
import re

from simulator.api import DocumentRules
from simulator.errors import DataError

PREFIX = "situation."
_BRACKETS = re.compile(r"\[([^\]]*)\]")


def split_sets(sets: dict[str, object] | None) -> tuple[dict[str, object], dict[str, object]]:
    """(situation overrides with `situation.` removed, ruleset overrides) from one `--set` dict."""
    situation, ruleset = {}, {}
    for key, value in (sets or {}).items():
        if key.startswith(PREFIX):
            situation[normalize(key[len(PREFIX):])] = value
        else:
            ruleset[key] = value
    return situation, ruleset


def normalize(key: str) -> str:
    """`side[german].group[4]` -> `side.german.group.4` (both spellings name the same entry)."""
    return _BRACKETS.sub(lambda m: "." + m.group(1).strip().strip("\"'"), key).strip(".")


def leaf_keys(doc) -> dict[str, object]:
    """Every settable entry of a situation document as `dotted.key -> value`.

    Lists of tables (sides, groups, special rules) are entered: a side by its name, anything
    else by its index.  Other lists (hexes, boards, the map layout) are values.
    """
    out: dict[str, object] = {}

    def walk(node, prefix: str, key: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{prefix}{k}.", k)
            return
        if _is_table_list(node):
            for i, item in enumerate(node):
                walk(item, f"{prefix}{_item_name(key, item, i)}.", "")
            return
        out[prefix.rstrip(".")] = node

    walk(doc, "", "")
    return out


def _is_table_list(node) -> bool:
    return isinstance(node, list) and bool(node) and all(isinstance(x, dict) for x in node)


def _item_name(list_key: str, item: dict, index: int) -> str:
    # Sides are named in every message and key; groups have names with dots and spaces in them,
    # so they (and special rules) go by index.
    name = item.get("name")
    return name if list_key == "side" and isinstance(name, str) and name else str(index)


def _find_item(list_key: str, items: list, part: str):
    for i, item in enumerate(items):
        if part in (_item_name(list_key, item, i), str(i)):
            return item
    return None


def apply_situation_overrides(doc: dict, sets: dict[str, object], where: str = "--set",
                              field_prefix: str = "set.situation", rules: DocumentRules | None = None) -> dict:
    """A copy of the situation document with the overrides applied (keys without `situation.`).

    Raises DataError for a key that names nothing (listing the closest valid keys) and for a
    value of the wrong type (saying what is expected).  `rules`: what the ruleset's format
    allows beyond changing an existing entry (none when not given).
    """
    rules = rules or DocumentRules()
    out = copy.deepcopy(doc)
    for raw_key, new in sets.items():
        key = normalize(raw_key)
        fld = f"{field_prefix}.{key}"
        parts = key.split(".")
        node, list_key = out, ""
        for depth, part in enumerate(parts[:-1]):
            if isinstance(node, dict) and part in node:
                node, list_key = node[part], part
            elif _is_table_list(node) and _find_item(list_key, node, part) is not None:
                node, list_key = _find_item(list_key, node, part), ""
            else:
                raise _unknown(out, key, fld, where, ".".join(parts[:depth + 1]))
        last = parts[-1]
        parent = parts[-2] if len(parts) > 1 else ""
        if not isinstance(node, dict):
            raise _unknown(out, key, fld, where, key)
        if _is_table_list(node.get(last)) or isinstance(node.get(last), dict):
            inner = sorted(k for k in leaf_keys(out) if k.startswith(key + "."))[:4]
            raise DataError(where, fld, "is a table, not one value", f"one of its entries, e.g. {[PREFIX + k for k in inner]}")
        if last not in node:
            _check_new_key(rules, parent, last, new, fld, where, out, key)
        else:
            _check_type(rules, node[last], new, parts, fld, where)
        if parent in rules.count_tables and new == 0:
            node.pop(last, None)  # a count of 0 takes that entry out (a unit type out of a group)
        else:
            node[last] = new
    return out


def _check_new_key(rules: DocumentRules, parent: str, last: str, new, fld: str, where: str, doc: dict,
                   key: str) -> None:
    if parent in rules.count_tables:
        if isinstance(new, bool) or not isinstance(new, int) or new < 0:
            raise DataError(where, fld, f"got {new!r}", "a unit count: a whole number >= 0 (0 removes the type)")
        return  # whether it is a unit type of this ruleset and side is checked with the situation
    if parent in rules.open_tables:
        filters = sorted(rules.open_tables[parent])
        if last in filters:
            return  # a new area filter: its value is checked with the situation
        close = difflib.get_close_matches(last, filters, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise DataError(where, fld, "no such area filter", f"{hint}an existing entry or an area filter: {filters}")
    raise _unknown(doc, key, fld, where, key)


def _check_type(rules: DocumentRules, old, new, parts: list[str], fld: str, where: str) -> None:
    def number(v) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool)

    if len(parts) > 1 and parts[-2] in rules.count_tables:
        if isinstance(new, bool) or not isinstance(new, int) or new < 0:
            raise DataError(where, fld, f"got {new!r}", f"a unit count: a whole number >= 0 like the current {old!r} "
                                                        "(0 removes the type)")
        return
    # Victory thresholds may be whole or fractional numbers (the checks accept both).
    threshold = parts[-1] in rules.number_keys
    ok = type(new) is type(old) or (number(old) and number(new) and (isinstance(old, float) or threshold))
    if not ok:
        raise DataError(where, fld, f"got {new!r}", f"{_type_name(old)} like the current value {old!r}")


def _type_name(v) -> str:
    return {bool: "true/false", int: "a whole number", float: "a number", str: "a string",
            list: "a list"}.get(type(v), type(v).__name__)


def _unknown(doc: dict, key: str, fld: str, where: str, reached: str) -> DataError:
    keys = list(leaf_keys(doc))
    close = difflib.get_close_matches(key, keys, n=3, cutoff=0.6)
    if not close:  # fall back to the entries under the deepest part of the key that exists
        stem = reached.rsplit(".", 1)[0] if "." in reached else ""
        close = [k for k in keys if stem and k.startswith(stem + ".")][:5]
    hint = (f"one of {[PREFIX + k for k in close]}" if close
            else "a dotted path of the situation file, e.g. situation.turns or situation.side.<side>.victory.marginal")
    return DataError(where, fld, "no such situation entry", hint)


def situation_hint(doc: dict, key: str) -> str | None:
    """`situation.KEY` when an unprefixed `--set KEY` names a situation entry, not a ruleset one."""
    key = normalize(key)
    return PREFIX + key if key in leaf_keys(doc) else None
