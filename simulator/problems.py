"""Collecting every problem of an input file, for any ruleset's checks: `FILE: FIELD: problem (expected ...)`."""

from __future__ import annotations

import difflib

from simulator.errors import DataError


class Problems:
    """Collects every problem in one file instead of stopping at the first."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.items: list[DataError] = []

    def add(self, fld: str, problem: str, expected: str = "") -> None:
        self.items.append(DataError(self.file, fld, problem, expected))

    def check_type(self, value, types, fld: str, expected: str) -> bool:
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            self.add(fld, f"got {value!r}", expected)
            return False
        if not isinstance(value, types):
            self.add(fld, f"got {type(value).__name__} {value!r}"[:120], expected)
            return False
        return True

    def unknown_keys(self, table: dict, allowed: set[str], fld: str) -> None:
        for k in table:
            if k not in allowed:
                close = difflib.get_close_matches(k, sorted(allowed), n=1)
                hint = f"did you mean {close[0]!r}? allowed: {sorted(allowed)}" if close else f"one of {sorted(allowed)}"
                self.add(f"{fld}.{k}" if fld else k, "unknown key", hint)


def known(value, choices) -> bool:
    """`value in choices` for a value read from a file, which may be of any type."""
    return isinstance(value, str) and value in choices


def suggest(name: str, choices, what: str) -> str:
    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.5)
    return f"a known {what}; did you mean {', '.join(repr(c) for c in close)}?" if close else f"a known {what}"
