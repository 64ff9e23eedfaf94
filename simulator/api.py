"""The ruleset interface: everything the core reads from a ruleset, and nothing more.

The core (hex grid, map assembly, line of sight, runner, statistics, summary, experiments,
reports, Dask) serves every ruleset through this contract and never imports a ruleset's modules:
it asks the registry (simulator/registry.py) for a ruleset by the name a situation gives, and
gets an object with the attributes and methods of `Ruleset` below.  docs/architecture.md draws
the picture.

A ruleset provides:

- its situation schema (`schema`): the keys of its situation files and the reading and checking
  of one, into a `Situation` (simulator/situation.py) that holds what the core needs (id, title,
  turns, sides, map, ruleset data) plus the ruleset's own fields;
- the tables its data must hold (`required_tables`) and where its data lives (`data_dir`);
- its engine (`engine`: the import path of a module with `prepare(situation) -> tables` and
  `play_games(tables, seeds, players) -> (games, turns, events)`); worker processes and Dask
  workers import it by that name.  Optionally also `play_batch_columns(tables, seeds, players)`,
  the same three tables as dicts of column name -> numpy array: a pool worker then returns
  those and never imports pandas (simulator/pool_worker.py; PanzerBlitz has it);
- its victory levels (`levels`) and the columns of its results (`results`), which the runner
  checks on every batch;
- its kinds of decision (`decision_kinds`: a tuple of simulator.decisions.DecisionKind, a kind's
  code its index), which its engine asks its players through one dispatcher (simulator/decisions.py);
- its players (`players`), its replay (`replay`), the figures its summary adds
  (`summary_facts`), its levers for `balance suggest` (`levers`), its report hooks (`report`)
  and, if it has one, its blunder audit (`audit`: a module with `COUNTS`, `load_thresholds`,
  `audit_games` and `summarize_audit`, which `balance audit` runs).

Loading a ruleset's description must be cheap: a ruleset module imports its kernels only when
`engine` is imported, so `balance validate` and `balance report` never compile anything.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from simulator.decisions import DecisionKind
    from simulator.los import LineOfSight
    from simulator.mapdata import GameMap
    from simulator.situation import LoadContext, Situation


# ----------------------------------------------------------------------------- results schema

DTYPES = ("int", "float", "str", "bool")


@dataclass(frozen=True)
class Column:
    """One column of a results table.

    `name` may hold `{side}` (one column a side: `level_{side}`) and end in `*` (a family of
    count columns, `lost:{side}:*`, which an engine writes only where non-zero: the runner fills
    the gaps with 0)."""

    name: str
    dtype: str        # one of DTYPES
    meaning: str
    optional: bool = False  # may be absent from a batch (an older reading, a family)

    def __post_init__(self) -> None:
        if self.dtype not in DTYPES:
            raise ValueError(f"column {self.name}: dtype {self.dtype!r} is not one of {DTYPES}")

    @property
    def family(self) -> bool:
        return self.name.endswith("*")

    def names(self, sides: tuple[str, ...]) -> list[str]:
        """The column names (or family patterns) for these sides."""
        return [self.name.replace("{side}", s) for s in sides] if "{side}" in self.name else [self.name]

    def matches(self, column: str, sides: tuple[str, ...]) -> bool:
        return any(fnmatch.fnmatchcase(column, n) if self.family else column == n for n in self.names(sides))


@dataclass(frozen=True)
class TableSchema:
    """A results table: its file name (`games`, `turns`, `losses`, ...), what a row is, its columns."""

    name: str
    row: str          # "one row a game", ...
    columns: tuple[Column, ...]


@dataclass(frozen=True)
class ResultsSchema:
    """The three tables an engine returns for a batch of games, and which columns play which part.

    Every table also holds `batch_game` (the game's index in the batch; the runner replaces it
    by the run's `game` number) and the games table `seed`: the schema declares them like the
    rest.  Roles name columns of the games table unless said otherwise; `None` = the ruleset has
    no such column and the report leaves the chart out."""

    games: TableSchema
    turns: TableSchema
    events: TableSchema           # one row an event on the map (PanzerBlitz: a unit lost)
    winner: str = "winner"        # games: the winning side, or "draw"
    level: str = "level"          # games: the winner's victory level ("none" for a draw)
    side_level: str = "level_{side}"   # games: the level each side reached
    turns_played: str = "turns_played"
    decided_turn: str | None = None    # games: the turn from which the result stayed what it was
    measure: str | None = None         # turns: each side's victory measure at the end of a turn
    attrition: tuple[tuple[str, str], ...] = ()   # turns: (column, axis label) of the attrition chart
    objectives: str | None = None      # turns: objective hexes a side holds
    losses_by_type: str | None = None  # games: a family of counts by unit type, "lost:{side}:*"
    event_hex: str | None = None       # events: the hex label (the map of events), "" off the map
    event_side: str | None = None      # events: the side the event befell

    def tables(self) -> tuple[TableSchema, TableSchema, TableSchema]:
        return self.games, self.turns, self.events


# ----------------------------------------------------------------------------- victory levels

@dataclass(frozen=True)
class Alternative:
    """A two-way reading of the rules that changes only the winner's level: the games table's
    `column` holds the level under the value not in force, which the summary reports where it
    differs.  `key` is the reading's dotted key in the ruleset data."""

    key: str
    values: tuple[str, str]
    default: str
    column: str = "level_alt"


@dataclass(frozen=True)
class VictoryLevels:
    """The levels a side can reach, lowest first; `none` is a side that reached none (and the
    level of a draw).  A game's seat score (bench/strength.py) is the rank of the level a side
    reached minus its opponent's: -len(names)..len(names), none = 0."""

    names: tuple[str, ...]
    none: str = "none"
    alternative: Alternative | None = None

    @property
    def ranks(self) -> dict[str, int]:
        return {self.none: 0, **{n: i + 1 for i, n in enumerate(self.names)}}


# ----------------------------------------------------------------------------- players

@runtime_checkable
class PlayerSpec(Protocol):
    """One side's player as the runner carries it (pickled to workers)."""

    name: str

    def full_params(self) -> dict[str, float]: ...

    def non_default(self) -> dict[str, float]: ...  # what the summary records

    def label(self) -> str: ...


@dataclass(frozen=True)
class ParamRange:
    """A player parameter a tuner may search (`balance tune`): its default and its bounds."""

    name: str
    default: float
    lo: float
    hi: float
    whole: bool = False   # a count (hexes, turns): searched in whole numbers


@runtime_checkable
class Players(Protocol):
    """A ruleset's players: their names, parameters and how `--policy` is read; for `balance tune`
    and `balance equilibrium` also the parameters worth searching (with their bounds, as data),
    named style variants, and a player made from parameter values."""

    default: str         # what `balance run` plays when no --policy is given
    replay_default: str  # what `balance replay` plays
    doc: str             # the page that describes the players, for reports ("" if none)

    def names(self) -> tuple[str, ...]: ...

    def defaults(self, name: str) -> dict[str, float]: ...  # a player's parameters, in kernel order

    def parse(self, items: list[str] | None, sides: tuple[str, ...] | list[str],
              default: str | None = None) -> dict[str, PlayerSpec]: ...

    def space(self, name: str) -> tuple[ParamRange, ...]: ...  # what a tuner searches; () = nothing

    def styles(self, name: str) -> dict[str, dict[str, float]]: ...  # "cautious" -> its parameters

    def make(self, name: str, params: dict[str, float], source: str = "") -> PlayerSpec: ...


# ----------------------------------------------------------------------------- situations

@dataclass(frozen=True)
class DocumentRules:
    """What `--set situation.KEY=VALUE` may do beyond changing an existing entry of the
    situation file (simulator/overrides.py): add an entry to a table of counts (a value of 0
    removes it), add one of the named filters to an area table, and give whole or fractional
    numbers to the named entries (victory thresholds)."""

    count_tables: frozenset[str] = frozenset()
    open_tables: dict[str, tuple[str, ...]] = field(default_factory=dict)
    number_keys: frozenset[str] = frozenset()


@runtime_checkable
class SituationSchema(Protocol):
    """A ruleset's situation files: their keys, and the reading of one into a Situation."""

    keys: frozenset[str]             # every top-level key a file may have (the core's included)
    required: tuple[str, ...]        # the keys a file must have, in the order they are reported
    document: DocumentRules

    def read(self, doc: dict, ctx: LoadContext) -> Situation | None:
        """Check the document beyond the core's fields (id, title, ruleset, turns, source,
        overrides) and build the Situation; every problem goes to `ctx.problems` (return None,
        or a Situation, when there are some: the core raises them all)."""
        ...


# ----------------------------------------------------------------------------- replays and maps

@dataclass(frozen=True)
class Counter:
    """A unit drawn on a map: its hex index, its side and its text."""

    hex: int
    side: str
    text: str


@dataclass(frozen=True)
class MapFrame:
    """One map of a replayed game (a player-turn's end, say): a file name and title, and the units."""

    name: str
    title: str
    counters: tuple[Counter, ...]


@runtime_checkable
class Replay(Protocol):
    """One game played from Python, to read (`balance replay`)."""

    seed: int

    @property
    def violation(self) -> str | None: ...  # a broken rule invariant (--debug), or None

    def lines(self) -> list[str]: ...       # the game turn by turn, in words

    def frames(self) -> list[MapFrame]: ...  # the maps to draw with --maps


@dataclass(frozen=True)
class LineFeature:
    """Hexside features drawn as a line from the hex centre through the side (roads, streams)."""

    features: tuple[str, ...]
    colour: str
    width: float      # hex units


@dataclass(frozen=True)
class BarFeature:
    """A hexside feature drawn as a coloured bar on the hexside (a slope, a woods edge)."""

    feature: str
    colour: str


@dataclass(frozen=True)
class LegendEntry:
    """A terrain entry of the map legend: a filled hex (`fill`), a bar or a line."""

    label: str
    kind: str = "fill"               # "fill", "bar" or "line"
    colour: str = "#ffffff"
    hatch: str | None = None
    edge: str | None = None          # outline colour of a fill (default: the grid colour)
    edge_width: float | None = None


@dataclass(frozen=True)
class MapStyle:
    """How a ruleset's terrain looks: per hex a fill, an optional inner hex (cover on other
    ground: woods on a hilltop) and a hatch; hexside features as lines or bars; the legend.
    `half_hexes`: the boards are printed with half hexes along their edges (PanzerBlitz's
    geomorphic boards), so the drawing cuts the edge hexes at their centres; otherwise every
    hex is drawn whole."""

    fills: list[str]
    inner: list[str | None]
    hatched: np.ndarray               # bool[n_hexes]
    hatch: str = "---"
    hatch_colour: str = "#2f6f60"
    lines: tuple[LineFeature, ...] = ()   # drawn in this order, each above the one before
    bars: tuple[BarFeature, ...] = ()
    legend: tuple[LegendEntry, ...] = ()
    half_hexes: bool = False


@dataclass(frozen=True)
class SetupMark:
    """Where a side sets up: every hex of its set-up areas, and the hexes a group sets up on alone."""

    side: str
    hexes: np.ndarray
    fixed: tuple[int, ...] = ()


@dataclass(frozen=True)
class EntryMark:
    """Hexes a side enters by, with what the note next to them says ("T3"); `emphasis` marks a
    special kind of entry (its legend label is `kind`), `toward` a hex the entry points to."""

    side: str
    hexes: tuple[int, ...]
    labels: tuple[str, ...]
    emphasis: bool = False
    kind: str = "entry hex"
    toward: int | None = None


@dataclass(frozen=True)
class SituationMarks:
    """What a situation adds to its map: set-up areas, entries, objective hexes, the subtitle
    and a note line per force group.  `sides` orders the legend (and the objective rings); the
    labels name the marks in the legend ("red set-up area")."""

    sides: tuple[str, ...] = ()
    setup: tuple[SetupMark, ...] = ()
    entries: tuple[EntryMark, ...] = ()
    objectives: dict[str, np.ndarray] = field(default_factory=dict)
    subtitle: str = ""
    notes: tuple[str, ...] = ()
    setup_label: str = "set-up area"
    fixed_label: str = "fixed set-up hex"
    objective_label: str = "objective hex"


@dataclass(frozen=True)
class MeasureChart:
    """A side's victory measure in words and its levels as (level, compare, threshold)."""

    title: str
    thresholds: tuple[tuple[str, str, float], ...]


@dataclass(frozen=True)
class EventMap:
    """The words of the report's map of events (PanzerBlitz: where units were lost)."""

    heading: str      # "Where units were lost"
    how: str          # how to read the map, under the heading
    noun: str         # "losses": "German losses", "120 losses in 200 games"
    per_hex: str      # "units of that side lost in the hex": what a disc's area counts
    off_map: str      # "lost off the map": events without a hex, left out


@runtime_checkable
class ReportHooks(Protocol):
    """What the reports draw and say that only the ruleset knows."""

    chart_notes: dict[str, str]   # chart name -> a sentence added to its "how to read it"
    event_map: EventMap | None

    def map_style(self, game_map: GameMap) -> MapStyle: ...

    def situation_marks(self, situation: Situation) -> SituationMarks: ...

    def victory_words(self, side: str, summary: dict) -> str | None: ...

    def measure_chart(self, side: str, summary: dict) -> MeasureChart | None: ...

    def how_to_win(self, summary: dict) -> str: ...      # HTML: how a game is won or drawn

    def notes(self, summary: dict) -> list[str]: ...     # HTML warnings for the report

    def warnings(self, summary: dict) -> list[str]: ...  # lines printed after a run


# ----------------------------------------------------------------------------- the ruleset

@runtime_checkable
class Ruleset(Protocol):
    """Everything a ruleset provides (see the module docstring)."""

    name: str                      # as situation files name it
    title: str
    data_dir: Path                 # ruleset.toml, its table files and boards
    required_tables: tuple[str, ...]   # tables ruleset.toml must hold beyond sides and map
    engine: str                    # import path of the module with prepare / play_games
    audit: str | None              # import path of its blunder audit (`balance audit`), or None
    schema: SituationSchema
    levels: VictoryLevels
    results: ResultsSchema
    players: Players
    decision_kinds: tuple[DecisionKind, ...]   # what its engine asks its players (simulator/decisions.py)
    report: ReportHooks

    def engine_ready(self) -> bool:
        """Whether the engine starts without compiling (numba's cache holds its kernels)."""
        ...

    def replay(self, situation: Situation, seed: int, players: dict[str, PlayerSpec],
               debug: bool = False) -> Replay: ...

    def summary_facts(self, situation: Situation, games: pd.DataFrame) -> dict[str, Any]:
        """Entries the run's summary adds (who moves first, the victory conditions, ...)."""
        ...

    def levers(self, situation: Situation, lever: str, stronger: str) -> list:
        """`balance suggest` candidates (simulator.suggest.Candidate) of one lever other than
        `turns`: `threshold` and `units`."""
        ...

    def unit_count(self, situation: Situation) -> int: ...  # for `balance bench`

    def floor_games_per_s(self, tables, n_games: int, policies: dict) -> float | None:
        """The benchmark's floor (the unavoidable work of a game), or None if not measured;
        `policies` (side name -> spec): the players the bench times the engine with, for a
        floor measured over their games."""
        ...

    def line_of_sight(self, situation: Situation) -> LineOfSight | None:
        """The situation's line-of-sight table builder (simulator/los.py), or None for a
        ruleset without line of sight (`balance los` says so; no table is built or cached)."""
        ...
