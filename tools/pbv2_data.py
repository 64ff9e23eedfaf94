"""Reference reader of the Panzer Blitz v2.0 tables (situations/rulesets/panzerblitz-v2/).

    python tools/pbv2_data.py check          # provenance tags, given cells, table shapes
    python tools/pbv2_data.py probabilities  # the P(result) tables of docs/panzerblitz-v2/tables.md

The engine of ruleset `panzerblitz-v2` will own its loader once the ruleset boundary (issue 17)
is in place.  This module fixes what the data *means*: how the TOML files merge into one
dictionary (so dotted `--set` keys reach every cell), how each table becomes the arrays a numba
kernel reads, and the handful of lookups the rules text pins with worked examples (odds rounding
7.4, the AT differential 7.5, the majority rule 7.6.1, natural 2 / 12 7.1.8-9, the partial-height
chart 5.4.5, amphibious MP 4.4.3, the reinforcement entry surcharge 3.1.2.3).  tests/panzerblitz_v2/test_pbv2_data.py
checks the data against the text through these functions; the engine must agree with them.

Pure Python + numpy; nothing here imports the simulator.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RULESET_DIR = ROOT / "situations" / "rulesets" / "panzerblitz-v2"

TAG_KEYS = ("source", "ref", "see")
SOURCES = ("text", "reconstructed")
# Leaves that are vocabulary, not values (they need no provenance tag).
VOCABULARY_KEYS = {"results", "modes", "order", "applies", "who", "note"}


class TableError(ValueError):
    """A table that cannot be read as documented: names the file/key and what was expected."""


# ----------------------------------------------------------------------------- loading

def read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError as exc:
        raise TableError(f"{path}: file not found") from exc
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"{path}: not valid TOML ({exc})") from exc


def load_tables(ruleset_dir: Path = RULESET_DIR, with_units: bool = True) -> dict:
    """The ruleset as one nested dictionary: the table files merged at top level, the unit
    files merged into `units`.  A top-level table or unit id defined twice is an error."""
    manifest = read_toml(ruleset_dir / "ruleset.toml")
    data: dict = {}
    where: dict[str, str] = {}
    for fname in manifest.get("table_files", []):
        for key, table in read_toml(ruleset_dir / fname).items():
            if key in data:
                raise TableError(f"{ruleset_dir / fname}: table '{key}' already defined in {where[key]}")
            data[key], where[key] = table, fname
    if with_units:
        units: dict = {}
        for fname in manifest.get("unit_files", []):
            path = ruleset_dir / fname
            if not path.exists():
                continue
            for uid, unit in read_toml(path).get("units", {}).items():
                if uid in units:
                    raise TableError(f"{path}: unit '{uid}' already defined in {where['units.' + uid]}")
                units[uid], where["units." + uid] = unit, fname
        data["units"] = units
    return data


def write_atomic(path: Path, text: str) -> None:
    """Write a generated file whole or not at all (a temporary name, then moved into place)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def write_or_check(files: dict[Path, str], check: bool, tool: str, root: Path) -> int:
    """Write generated files (each whole or not at all), or with `check` list those not current
    and return 1: the generators' common --check."""
    stale = []
    for path, text in files.items():
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            write_atomic(path, text)
            print(f"wrote {path.relative_to(root)}")
    if stale:
        print(f"not current (run {tool}):", *stale, sep="\n  ")
        return 1
    return 0


def untagged_leaves(data: dict, prefix: str = "", inherited: str | None = None) -> list[str]:
    """Dotted keys of values that carry no `source` tag, neither their own nor an enclosing
    table's.  A tag is valid only with source in SOURCES and a `ref` (text) or `see` (reconstructed)."""
    bad: list[str] = []
    tag = inherited
    if "source" in data:
        src = data["source"]
        need = "ref" if src == "text" else "see"
        if src not in SOURCES or need not in data:
            return [f"{prefix.rstrip('.')} (bad tag: source={src!r} needs '{need}')"]
        tag = src
    for k, v in data.items():
        if k in TAG_KEYS or k in VOCABULARY_KEYS:
            continue
        if isinstance(v, dict):
            bad += untagged_leaves(v, f"{prefix}{k}.", tag)
        elif tag is None:
            bad.append(f"{prefix}{k}")
    return bad


def val(x):
    """The value of a cell written either plainly or as { value, source, ref|see }."""
    return x["value"] if isinstance(x, dict) and "value" in x else x


# ----------------------------------------------------------------------------- Direct Fire Table

def odds_ratio(label: str) -> Fraction:
    a, b = label.split(":")
    return Fraction(int(a), int(b))


class DFT:
    """The Direct Fire Table as arrays (the shapes the engine reads).

    columns      labels (AP odds), left to right
    ratio        float64[n_col]   AP odds of each column
    at_diff      int16[n_col]     AT differential of each column
    threshold    int16[n_col, n_res]  highest modified roll giving result r (results best first,
                 "-" excluded); -99 = not on the column
    """

    def __init__(self, tables: dict):
        d = tables["direct_fire"]
        self.results = list(d["results"])
        if self.results[-1] != "-":
            raise TableError("direct_fire.results: the last result must be '-' (no effect)")
        cols = d["column"]
        labels = sorted(cols, key=lambda c: odds_ratio(val(cols[c].get("ap_odds", c))))
        self.columns = [val(cols[c].get("ap_odds", c)) for c in labels]
        self.ratio = np.array([float(odds_ratio(c)) for c in self.columns])
        self.at_diff = np.array([val(cols[c]["at_differential"]) for c in labels], dtype=np.int16)
        res = self.results[:-1]
        self.threshold = np.array([[val(cols[c][r]) for r in res] for c in labels], dtype=np.int16)
        self.lowest_row = int(val(d["rows"]["lowest"]))
        self.natural_best = int(val(d["natural"]["best"]))
        self.natural_miss = int(val(d["natural"]["miss"]))
        self.given = d.get("given", {})
        self._check()

    def _check(self) -> None:
        if np.any(np.diff(self.at_diff) <= 0):
            raise TableError("direct_fire.column.*.at_differential: must increase from left to right")
        for i, c in enumerate(self.columns):
            row = self.threshold[i]
            present = row[row != -99]
            if np.any(np.diff(present) < 0):
                raise TableError(f"direct_fire.column.{c}: thresholds must not decrease from best to worst result")
            if present.size == 0:
                raise TableError(f"direct_fire.column.{c}: no result at all")

    def result(self, col: int, natural: int, drm: int) -> str:
        """PB2 7.1.8-7.1.9, 7.4/7.5: the result of a natural 2d6 roll with this DRM in a column."""
        if natural >= self.natural_miss:
            return "-"
        row = max(natural + drm, self.lowest_row)
        if natural <= self.natural_best:
            row = self.lowest_row  # the best result of the column = its lowest printed row
        for r, thr in zip(self.results[:-1], self.threshold[col], strict=True):
            if thr != -99 and row <= thr:
                return r
        return "-"

    def ap_column(self, attack: float, defense: float) -> int:
        """PB2 7.4: the column of these odds, rounded in the defender's favour; -1 below the table."""
        if defense <= 0:
            raise ValueError("defense must be positive")
        ratio = Fraction(attack).limit_denominator(1000) / Fraction(defense).limit_denominator(1000)
        best = -1
        for i, c in enumerate(self.columns):
            if odds_ratio(c) <= ratio:
                best = i
        return best

    def at_column(self, differential: int) -> int:
        """PB2 7.5: the column of this differential; -1 below the table, rightmost above it."""
        if differential < self.at_diff[0]:
            return -1
        return int(np.searchsorted(self.at_diff, differential, side="right") - 1)

    def column(self, label: str) -> int:
        return self.columns.index(label)

    def probabilities(self, col: int, drm: int) -> dict[str, Fraction]:
        """Exact P(result) of one attack in a column at a total DRM (2d6, natural 2 / 12 rules)."""
        p = {r: Fraction(0) for r in self.results}
        for a, b in itertools.product(range(1, 7), repeat=2):
            p[self.result(col, a + b, drm)] += Fraction(1, 36)
        return p


def at_attack_strength(at_values: list[float]) -> int:
    """PB2 7.5: the highest AT value + 1 for each additional AT firer (fractions dropped, 1.2.1)."""
    firing = [v for v in at_values if v > 0]
    if not firing:
        return 0
    return int(math.floor(max(firing))) + (len(firing) - 1)


# ----------------------------------------------------------------------------- range and majority

def range_modifiers(tables: dict) -> np.ndarray:
    """int8[max_tabulated + 1]: the range DRM by range in hexes."""
    r = tables["range"]
    n = int(val(r["max_tabulated"]))
    mods = r["modifier"]
    missing = [i for i in range(n + 1) if str(i) not in mods]
    if missing:
        raise TableError(f"range.modifier: ranges {missing} missing (expected 0..{n})")
    return np.array([val(mods[str(i)]) for i in range(n + 1)], dtype=np.int8)


def range_modifier(table: np.ndarray, hexes: int) -> int:
    if hexes < len(table):
        return int(table[hexes])
    return int(table[-1]) + (hexes - len(table) + 1 + 2) // 3


def group_drm(mods: list[int], rule: str = "stepwise") -> int:
    """PB2 7.6.1 majority rule for one graded modifier (range) over an attacking group.

    stepwise: every unit step (+1 from the first positive level, a further +1 from the next, ...,
    and likewise each negative step) applies if at least half the group qualifies for it; the
    steps add (7.6.3).  median: the largest value at least half the group reaches."""
    n = len(mods)
    if n == 0:
        return 0
    if rule == "median":
        return max(v for v in mods if 2 * sum(1 for m in mods if m >= v) >= n)
    total = 0
    for level in range(1, max(max(mods), 0) + 1):
        if 2 * sum(1 for m in mods if m >= level) >= n:
            total += 1
    for level in range(-1, min(min(mods), 0) - 1, -1):
        if 2 * sum(1 for m in mods if m <= level) >= n:
            total -= 1
    return total


# ----------------------------------------------------------------------------- line of sight

def partial_height(tables: dict) -> dict[tuple[int, int], Fraction]:
    """PB2 5.4.5: (unit height difference, obstacle height above the lower unit) -> fraction of D."""
    ph = tables["terrain"]["los"]["partial_height"]
    return {(int(d), int(h)): Fraction(c["num"], c["den"]) for d, row in ph.items() for h, c in row.items()}


def partial_height_clear(chart: dict, diff: int, obstacle: int, from_higher: int, distance: int) -> bool:
    """Is a LoS clear past an obstacle `obstacle` levels above the lower unit, `from_higher` hexes
    from the higher unit, the units being `diff` levels apart and `distance` hexes apart?"""
    if obstacle <= 0:
        return True  # 5.4.3
    if obstacle >= diff:
        return False  # 5.4.1 / 5.4.2
    frac = chart[(min(diff, 5), min(obstacle, 4))]
    return from_higher <= math.floor(frac * distance)


# ----------------------------------------------------------------------------- movement arithmetic

def amphibious_used(used: int, from_ma: int, to_ma: int) -> int:
    """PB2 4.4.3: MP of the other kind already used = used x to_ma / from_ma, rounded up."""
    return math.ceil(Fraction(used * to_ma, from_ma))


def entry_extra_mp(sp_already_entered: int, tables: dict) -> float:
    """PB2 3.1.2.3: extra MP for a unit entering a hex after `sp_already_entered` SP did this turn."""
    rules = tables["terrain"]["rules"]
    return (sp_already_entered // int(rules["reinforcement_sp_per_step"])) * float(rules["reinforcement_mp_per_step"])


# ----------------------------------------------------------------------------- checks and docs

def check(tables: dict) -> list[str]:
    problems = [f"untagged value: {k}" for k in untagged_leaves({k: v for k, v in tables.items() if k != "units"})]
    dft = DFT(tables)
    for name, g in dft.given.items():
        col = dft.column(g["column"])
        got = dft.result(col, g["modified_roll"], 0) if g["modified_roll"] > dft.natural_best else None
        if got is not None and got != g["result"]:
            problems.append(f"direct_fire.given.{name}: table gives {got}, the text says {g['result']} ({g['ref']})")
    range_modifiers(tables)
    return problems


def fmt(p: Fraction) -> str:
    return f"{float(p):.3f}"


def probability_markdown(tables: dict, drms=(0, 2)) -> str:
    """The P(result) tables of tables.md: per column, at each listed total DRM."""
    dft = DFT(tables)
    lines = []
    for drm in drms:
        lines.append(f"<!-- p-table drm={drm} -->")
        lines.append("| column (AP / AT) | " + " | ".join(dft.results) + " | P(step loss) | P(≥ D) |")
        lines.append("|---|" + "---|" * (len(dft.results) + 2))
        for i, c in enumerate(dft.columns):
            p = dft.probabilities(i, drm)
            loss = sum((p[r] for r in dft.results if r.endswith("X")), Fraction(0))
            hit = 1 - p["-"]
            cells = " | ".join(fmt(p[r]) for r in dft.results)
            lines.append(f"| {c} / {int(dft.at_diff[i]):+d} | {cells} | {fmt(loss)} | {fmt(hit)} |")
        lines.append("")
    return "\n".join(lines)


def two_dice_table() -> dict[int, Fraction]:
    """P(natural 2d6 <= n) for n = 2..12."""
    return {n: Fraction(sum(1 for a, b in itertools.product(range(1, 7), repeat=2) if a + b <= n), 36)
            for n in range(2, 13)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["check", "probabilities"])
    args = ap.parse_args(argv)
    tables = load_tables()
    if args.command == "check":
        problems = check(tables)
        for p in problems:
            print(p)
        dft = DFT(tables)
        print(f"{len(tables)} tables, {len(tables.get('units', {}))} unit types, {dft.threshold.size} DFT "
              f"thresholds, {len(problems)} problems")
        return 1 if problems else 0
    print(probability_markdown(tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
