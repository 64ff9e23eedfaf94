"""Decisions between a ruleset's rules and its players, for every ruleset (issue 17 phase B).

The rules decide what is legal; a player only chooses.  At each decision point an engine writes
the legal options into a preallocated int32 array (`option_buffer`: one row an option, the
columns the kind declares) and asks its ruleset's ONE dispatcher:

    choose(kind, options, n, <state arrays>, player, params, decisions) -> chosen

`chosen` is a row index 0..n-1, or -1 ("none": hold fire, stay put) where the kind allows it.
The engine never branches on which player plays.  A dispatcher has this shape:

    @njit(cache=True)
    def choose(kind, options, n, st, player, params, decisions):
        if replaying(decisions):                 # the players are not asked at all
            return replayed(decisions, kind, n)
        if player == RANDOM:                     # the core's random player, unchanged
            chosen = random_choice(decisions.rng, n, none_chance[kind])
        else:                                    # the ruleset's own players score the options
            chosen = my_heuristic(kind, options, n, st, params, decisions.rng)
        return decided(decisions, kind, n, chosen)

The kinds of decision belong to the ruleset: `Ruleset.decision_kinds` is a tuple of
`DecisionKind` (name, what each column of an option row holds, what "none" means if allowed);
a kind's code is its index there.

Two random streams per game, both from the game's seed: the rules' dice (`dice_stream`, or a
ruleset's own generator seeded with the seed) and the players' choices (`player_stream`, in
`decisions.rng`).  Players draw only from theirs, so the dice a game rolls depend only on the
seed and on what was chosen: a game's decisions, recorded as rows (kind, n, chosen), replay it
exactly with the players removed.  A replayed decision whose kind or number of options is not
what the game offers, or a record that ends early or is left over, is an error that says which
decision and what differed (`ReplayMismatch`).

Everything the kernels touch is a plain tuple of arrays and a NumPy Generator (numba supports
both, and compiled code draws the same numbers as NumPy), so the same functions serve numba
engines and plain-Python ones (the toy ruleset of tests/toy_ruleset/).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simulator.jit import njit

# The record's columns: one row a decision.
KIND, N_OPTIONS, CHOSEN = 0, 1, 2
NONE = -1  # the answer "none of them", where the kind allows it

# `Decisions.at` slots.
MODE, COUNT, ERROR, ERR_KIND, ERR_N, LENGTH = range(6)
# Modes: play without keeping anything (batch runs), record every decision, replay a record.
PLAY, RECORD, REPLAY = 0, 1, 2
# Errors: none, the record is full, a replayed decision differs, the game asked past the record's end.
OK, FULL, MISMATCH, PAST_END = 0, 1, 2, 3

PLAYER_STREAM = 1  # the players' stream is the seed's child with this spawn key


@dataclass(frozen=True)
class DecisionKind:
    """One kind of decision a ruleset's engine asks its players.

    `columns` names what each column of an option row holds (a hex index, a unit index, ...);
    `none` says what answering -1 means ("hold fire"), or is empty where an option must be
    chosen; `random_none` is the random player's chance of answering none when it may."""

    name: str
    meaning: str
    columns: tuple[str, ...] = ()
    none: str = ""
    random_none: float = 0.0

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name.upper() != self.name:
            raise ValueError(f"decision kind {self.name!r}: a name in capitals (SETUP_HEX)")
        if not 0.0 <= self.random_none <= 1.0 or (self.random_none and not self.none):
            raise ValueError(f"decision kind {self.name}: random_none {self.random_none} needs a none answer "
                             "and a chance in 0..1")


def kind_codes(kinds: tuple[DecisionKind, ...]) -> dict[str, int]:
    """Name -> code (the index in the ruleset's declaration)."""
    codes = {k.name: i for i, k in enumerate(kinds)}
    if len(codes) != len(kinds):
        raise ValueError("decision kinds: a name is declared twice")
    return codes


def none_chances(kinds: tuple[DecisionKind, ...]) -> np.ndarray:
    """The random player's chance of answering none, a kind (float64, by code)."""
    return np.array([k.random_none for k in kinds], dtype=np.float64)


def option_buffer(kinds: tuple[DecisionKind, ...], max_options: int) -> np.ndarray:
    """The preallocated options array: `max_options` rows, as many columns as the widest kind."""
    return np.zeros((max_options, max(1, *(len(k.columns) for k in kinds))), dtype=np.int32)


# ----------------------------------------------------------------------------- random streams

def dice_stream(seed: int) -> np.random.Generator:
    """The rules' dice of the game with this seed (a ruleset may seed its own generator instead)."""
    return np.random.default_rng(seed)


def player_stream(seed: int) -> np.random.Generator:
    """The players' choices of the game with this seed: a child of the seed, independent of the dice."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(PLAYER_STREAM,)))


# ----------------------------------------------------------------------------- per-game decisions

class Decisions(NamedTuple):
    """A game's decisions: the players' stream, and the record being written or replayed."""

    rng: np.random.Generator
    log: np.ndarray    # int32[capacity, 3]: KIND, N_OPTIONS, CHOSEN
    at: np.ndarray     # int64[6]: MODE, COUNT (decisions so far), ERROR and the offered kind and n, LENGTH


def _decisions(seed: int, mode: int, log: np.ndarray) -> Decisions:
    at = np.zeros(6, dtype=np.int64)
    at[MODE], at[LENGTH] = mode, len(log)
    return Decisions(player_stream(seed), log, at)


def for_play(seed: int) -> Decisions:
    """Play the game with this seed, keeping no record (batch runs)."""
    return _decisions(seed, PLAY, np.zeros((0, 3), dtype=np.int32))


def restart(dec: Decisions, seed: int) -> Decisions:
    """`dec` (made `for_play`) ready for the game with another seed, in place: the players'
    stream reseeded as `player_stream(seed)` would start, the count back to 0.  A batch reuses
    one, so that the kernels' structs holding it are made once (simulator/soa.py)."""
    if int(dec.at[MODE]) != PLAY:
        raise ValueError("only a Decisions made for_play is restarted (a record or a replay is made for its game)")
    dec.rng.bit_generator.state = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(PLAYER_STREAM,))).state
    dec.at[:] = 0
    dec.at[MODE] = PLAY
    return dec


def for_record(seed: int, capacity: int = 1 << 16) -> Decisions:
    """Play the game with this seed and record every decision (at most `capacity`)."""
    return _decisions(seed, RECORD, np.zeros((capacity, 3), dtype=np.int32))


def for_replay(record: np.ndarray, kinds: tuple[DecisionKind, ...], seed: int = 0) -> Decisions:
    """Replay a record (rows kind, n, chosen) with the players removed; `check_record` first."""
    log = np.ascontiguousarray(record, dtype=np.int32)
    check_record(log, kinds)
    return _decisions(seed, REPLAY, log)


class ReplayMismatch(ValueError):
    """A record that is not this game's decisions."""


def _name(kinds, code: int) -> str:
    return kinds[code].name if 0 <= code < len(kinds) else f"kind {code}"


def check_record(record: np.ndarray, kinds: tuple[DecisionKind, ...]) -> None:
    """Every row a declared kind, a chosen option within its n (none only where allowed)."""
    if record.ndim != 2 or record.shape[1] != 3:
        raise ReplayMismatch(f"a decision record has rows (kind, n, chosen), not an array of shape {record.shape}")
    for i, (kind, n, chosen) in enumerate(record.tolist()):
        where = f"decision record, row {i + 1}"
        if not 0 <= kind < len(kinds):
            raise ReplayMismatch(f"{where}: kind {kind} is not one of the ruleset's {len(kinds)} kinds of decision")
        k = kinds[kind]
        if n < 0 or not (0 <= chosen < n or (chosen == NONE and (k.none or n == 0))):
            allowed = f"0..{n - 1}" if n > 0 else "no option"
            raise ReplayMismatch(f"{where} ({k.name}): chose {chosen} of {n} options (expected {allowed}"
                                 + (f", or -1: {k.none})" if k.none else ")"))


def finished(dec: Decisions, kinds: tuple[DecisionKind, ...]) -> np.ndarray:
    """After the game: its record (a copy; recording), or a check that the replay followed the
    record to its end (replaying: `ReplayMismatch` names the first decision that differed)."""
    mode, count, error = (int(dec.at[s]) for s in (MODE, COUNT, ERROR))
    if error == FULL:
        raise ValueError(f"the game made {count} decisions, more than the record holds ({len(dec.log)}): "
                         "record it with a larger capacity")
    if mode == REPLAY:
        length = int(dec.at[LENGTH])
        offered = f"{_name(kinds, int(dec.at[ERR_KIND]))} with {int(dec.at[ERR_N])} options"
        if error == MISMATCH:
            kind, n, chosen = (int(x) for x in dec.log[count])
            raise ReplayMismatch(f"replayed decision {count + 1} of {length} does not match the game: the record "
                                 f"has {_name(kinds, kind)} with {n} options (chose {chosen}), the game offers "
                                 f"{offered}")
        if error == PAST_END:
            raise ReplayMismatch(f"the record ends after {length} decisions, but the game asks more "
                                 f"(the next: {offered})")
        if count != length:
            raise ReplayMismatch(f"the game ended after {count} of the record's {length} decisions")
    return dec.log[:count].copy() if mode == RECORD else np.zeros((0, 3), dtype=np.int32)


# ----------------------------------------------------------------------------- kernels

@njit(cache=True)
def random_option(rng, n):
    """The random player: an option uniformly among n (-1 when there is none)."""
    if n <= 0:
        return NONE
    return rng.integers(0, n)


@njit(cache=True)
def random_choice(rng, n, none_chance):
    """The random player where "none" is allowed: none with `none_chance`, else `random_option`."""
    if n > 0 and none_chance > 0.0 and rng.random() < none_chance:
        return NONE
    return random_option(rng, n)


@njit(cache=True, inline="always")
def replaying(dec):
    """Whether the game replays a record (the dispatcher then asks no player: `replayed`)."""
    return dec.at[MODE] == REPLAY


@njit(cache=True, inline="always")
def replayed(dec, kind, n):
    """The recorded answer to the next decision.  A record that does not match what the game
    offers (another kind, another number of options, or no decision left) is noted for
    `finished` to report, and the game goes on legally (first option, or none) to its end."""
    at = dec.at
    if at[ERROR] != OK:
        return 0 if n > 0 else NONE
    i = at[COUNT]
    if i >= at[LENGTH]:
        at[ERROR], at[ERR_KIND], at[ERR_N] = PAST_END, kind, n
        return 0 if n > 0 else NONE
    if dec.log[i, KIND] != kind or dec.log[i, N_OPTIONS] != n:
        at[ERROR], at[ERR_KIND], at[ERR_N] = MISMATCH, kind, n
        return 0 if n > 0 else NONE
    at[COUNT] = i + 1
    return np.int64(dec.log[i, CHOSEN])


@njit(cache=True, inline="always")
def decided(dec, kind, n, chosen):
    """Note a player's answer (recording) and return it."""
    at = dec.at
    if at[MODE] == RECORD:
        i = at[COUNT]
        if i < at[LENGTH]:
            dec.log[i, KIND], dec.log[i, N_OPTIONS], dec.log[i, CHOSEN] = kind, n, chosen
        else:
            at[ERROR] = FULL
        at[COUNT] = i + 1
    return chosen
