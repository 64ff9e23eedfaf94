"""Checking an engine's tables against its ruleset's results schema (simulator.api.ResultsSchema).

The runner checks every batch, so a summary, chart or experiment never reads a column that is
missing, misnamed or of another type without saying so: the error names the ruleset, the table
and the column, and what the schema declares.  The check reads column names and dtypes only (a
few microseconds a batch, once a run's column set is known), never the values.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from simulator.api import Column, ResultsSchema, TableSchema
from simulator.errors import DataError

_DTYPE_OK = {
    "int": ptypes.is_integer_dtype,
    "float": lambda d: ptypes.is_float_dtype(d) or ptypes.is_integer_dtype(d),
    "str": lambda d: ptypes.is_object_dtype(d) or ptypes.is_string_dtype(d),
    "bool": ptypes.is_bool_dtype,
}


def _where(ruleset: str) -> str:
    return f"ruleset {ruleset} (its results schema)"


def check_table(ruleset: str, schema: TableSchema, table: pd.DataFrame, sides: tuple[str, ...]) -> None:
    """A DataError for the first column of `table` the schema does not declare, declares with
    another type, or declares but the table lacks."""
    _check_columns(ruleset, schema, tuple(table.columns), tuple(table.dtypes) if len(table) else None, sides)


@functools.lru_cache(maxsize=256)
def _check_columns(ruleset: str, schema: TableSchema, columns: tuple[str, ...], dtypes: tuple | None,
                   sides: tuple[str, ...]) -> None:
    """`check_table` of a table with these columns and dtypes (None: no rows, no dtype to check).
    Kept for the batches that follow: the batches of a run have the same columns, and matching
    every column's name against every declared pattern was ~6 ms a batch (a fifth of a
    millisecond a game at the batch size of a 200-game run).  A failed check raises and is
    not kept."""
    declared: list[tuple[str, Column]] = [(n, c) for c in schema.columns for n in c.names(sides)]
    for k, col in enumerate(columns):
        match = next((c for _, c in declared if c.matches(col, sides)), None)
        if match is None:
            raise DataError(_where(ruleset), f"{schema.name}.{col}", "a column the engine writes but the schema does "
                            "not declare", "one of " + ", ".join(n for n, _ in declared))
        if dtypes is not None and not _DTYPE_OK[match.dtype](dtypes[k]):
            raise DataError(_where(ruleset), f"{schema.name}.{col}", f"has dtype {dtypes[k]}",
                            f"{match.dtype}: {match.meaning}")
    for name, c in declared:
        if not c.optional and not c.family and name not in columns:
            raise DataError(_where(ruleset), f"{schema.name}.{name}", "missing from the engine's table",
                            f"{c.dtype}: {c.meaning}")


def check_batch(ruleset: str, schema: ResultsSchema, tables: tuple[pd.DataFrame, ...], sides: tuple[str, ...]) -> None:
    """Every table of one batch, in the schema's order (games, turns, events)."""
    if len(tables) != 3:
        raise DataError(_where(ruleset), "play_games", f"returned {len(tables)} tables",
                        f"three: {', '.join(t.name for t in schema.tables())}")
    for spec, table in zip(schema.tables(), tables, strict=True):
        check_table(ruleset, spec, table, sides)


def family_columns(schema: TableSchema, columns, sides: tuple[str, ...]) -> list[str]:
    """The columns of count families (written only where non-zero), sorted by name."""
    families = [c for c in schema.columns if c.family]
    return sorted(col for col in columns if any(f.matches(col, sides) for f in families))


def fill_families(schema: TableSchema, table: pd.DataFrame, sides: tuple[str, ...]) -> pd.DataFrame:
    """A joined table with its count families 0 where a batch lacked them, as whole numbers, and
    sorted by name after the other columns, so the order does not depend on the batches."""
    counts = family_columns(schema, table.columns, sides)
    table[counts] = table[counts].fillna(0).astype(np.int64)
    return table[[c for c in table.columns if c not in counts] + counts]
