"""Sweeps: one override key played at several values, on the same seeds, and where balance lies.

Every value is played on the same game seeds (game i uses `game_seed(seed, i)` in every run),
so the curve of win probability against the value is not jagged with independent noise.  The
balance point is where a logistic fit of "the first side won" on the value crosses 50 %
(simulator/paired.py `balance_point`), with its delta-method interval.
"""

from __future__ import annotations

import math

import numpy as np

from simulator import registry
from simulator.errors import DataError
from simulator.experiments import describe_policies
from simulator.paired import balance_point
from simulator.runner import run
from simulator.situation import load_situation
from simulator.stats import wilson
from simulator.variants import parse_value, split_top_level
from simulator.verdict import from_winners, players_phrase, sentence

MAX_VALUES = 50  # a sweep of more values than this is almost certainly a mistyped range


def parse_values(values: str | None, range_: str | None) -> list:
    """`--values 6,8,10` (TOML values) or `--range START:STOP:STEP` (numbers, STOP included)."""
    if (values is None) == (range_ is None):
        raise DataError("balance sweep", "--values/--range", "give exactly one", "--values V1,V2,... or --range START:STOP:STEP")
    if values is not None:
        out = [parse_value(v) for v in split_top_level(values)]
        if len(out) < 2:
            raise DataError("balance sweep", "--values", f"got {values!r}", "at least two values, e.g. 8,9,10")
    else:
        parts = range_.split(":")
        nums = [parse_value(p) for p in parts]
        if len(parts) != 3 or not all(isinstance(n, int | float) and not isinstance(n, bool) for n in nums):
            raise DataError("balance sweep", "--range", f"got {range_!r}", "START:STOP:STEP with numbers, e.g. 6:12:1")
        start, stop, step = nums
        if step <= 0 or stop < start:
            raise DataError("balance sweep", "--range", f"got {range_!r}", "STEP > 0 and STOP >= START")
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        if count > MAX_VALUES:
            raise DataError("balance sweep", "--range", f"{count} values", f"at most {MAX_VALUES} values")
        whole = all(isinstance(n, int) for n in nums)
        out = [start + i * step if whole else round(start + i * step, 10) for i in range(count)]
        if len(out) < 2:
            raise DataError("balance sweep", "--range", f"got {range_!r}", "a range of at least two values")
    if len({repr(v) for v in out}) != len(out):
        raise DataError("balance sweep", "--values", f"got {out!r}", "each value once")
    return out


def _numeric(values: list) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def sweep(situation: str, param: str, values: list, n_games: int, seed: int, policies: dict,
          base_sets: dict | None = None, workers: int | None = None, progress: bool = False,
          cluster: str | None = None, robust=None) -> dict:
    """Play `n_games` games for each value of `param` (on top of `base_sets`), on the same seeds.
    `robust`: the path of an equilibrium run: every value is played by its equilibrium mixtures
    (simulator/equilibrium.py `run_mixture`) instead of `policies`."""
    base_sets = dict(base_sets or {})
    # Every value is loaded (and checked) before any game is played.
    sits = [load_situation(situation, {**base_sets, param: v}) for v in values]
    sides = list(sits[0].side_names)
    turns_played = registry.ruleset(sits[0].ruleset.name).results.turns_played
    first = sides[0]
    players = describe_policies(policies, sides)
    phrase = players_phrase(players)
    mixture = None
    if robust is not None:
        from simulator.equilibrium import load_mixture, run_mixture

        mixture = load_mixture(robust, sits[0])
        phrase, players = mixture.phrase, {"equilibrium": mixture.source}
    points, xs, ys = [], [], []
    for value, sit in zip(values, sits, strict=True):
        if mixture is not None:
            res = run_mixture(sit, n_games, seed, mixture, workers=workers, progress=progress, cluster=cluster)
        else:
            res = run(sit, n_games, seed, policies, workers=workers, progress=progress, cluster=cluster)
        winner = res.winners()
        n = len(winner)   # n_games, or a few more under --robust (every pair of the mixtures plays)
        entry = {"value": value, "sides": {}}
        for s in sides:
            k = int((winner == s).sum())
            entry["sides"][s] = {"wins": k, "win": k / n, "ci95": list(wilson(k, n))}
        draws = int((winner == "draw").sum())
        entry["draw"] = {"games": draws, "share": draws / n}
        entry["mean_turns"] = float(res.games[turns_played].mean())
        if len(sides) == 2:
            entry["verdict"] = from_winners(winner, sides, phrase).as_dict()
        points.append(entry)
        xs += [value] * n
        ys += list(winner == first)
    return {"situation": sits[0].id, "param": param, "values": values, "games": n_games, "seed": seed,
            "sides": sides, "policies": players, "overrides": base_sets,
            "points": points, "balance_point": _balance(first, values, xs, ys)}


def _balance(first: str, values: list, xs: list, ys: list) -> dict:
    out = {"side": first, "value": None, "ci95": None, "b0": None, "b1": None, "note": ""}
    if not _numeric(values):
        out["note"] = "the swept values are not numbers: no curve to fit"
        return out
    y = np.asarray(ys, dtype=bool)
    if y.all() or not y.any():
        out["note"] = f"the {first} side {'won every game' if y.all() else 'won no game'} at every value"
        return out
    try:
        bp = balance_point(xs, y)
    except (ValueError, np.linalg.LinAlgError) as exc:
        out["note"] = f"the logistic fit failed: {exc}"
        return out
    out.update(b0=bp.b0, b1=bp.b1)
    if bp.crossing is None:
        out["note"] = (f"the fitted {first} win probability does not cross 50 % between "
                       f"{bp.x_range[0]:g} and {bp.x_range[1]:g}")
    else:
        out.update(value=bp.crossing, ci95=list(bp.ci95))
        out["note"] = (f"the fitted {first} win probability crosses 50 % at {bp.crossing:.3g} "
                       f"(95 % interval {bp.ci95[0]:.3g} to {bp.ci95[1]:.3g})")
    return out


def format_sweep(result: dict) -> str:
    sides = result["sides"]
    lines = [f"{result['situation']}: {result['param']} swept over {len(result['values'])} values, "
             f"{result['games']} games each, seed {result['seed']} (the same seeds for every value)", ""]
    width = max(len("value"), *(len(repr(p["value"])) for p in result["points"]))
    lines.append(f"{'value':>{width}}" + "".join(f"  {s + ' win [95% CI]':<26}" for s in sides) + "    draw")
    for p in result["points"]:
        cells = "".join(f"  {_win_cell(p['sides'][s]):<26}" for s in sides)
        lines.append(f"{p['value']!r:>{width}}{cells}  {100 * p['draw']['share']:5.1f}%")
    lines += ["", f"balance point: {result['balance_point']['note']}"]
    if all(p.get("verdict") for p in result["points"]):
        lines += ["", "verdicts:"] + [f"  {p['value']!r}: {sentence(p['verdict']['text'])}" for p in result["points"]]
    return "\n".join(lines)


def _win_cell(e: dict) -> str:
    return f"{100 * e['win']:5.1f}% [{100 * e['ci95'][0]:.1f}, {100 * e['ci95'][1]:.1f}]"
