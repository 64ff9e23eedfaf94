"""`balance tune`: the best response of one side's player to an opponent (or a mixture of them),
by a derivative-free search over the player's parameters, with common random numbers.

What is searched is the ruleset's to say (`Players.space`: every parameter with its bounds, as
data; PanzerBlitz: simulator/rulesets/panzerblitz/players/heuristic.toml's min and max).  The objective is the side's mean seat
score (its victory level's rank minus its opponent's, as bench/strength.py: -3..3 for
PanzerBlitz) against the opponents, each opponent j playing its share w_j of the games.

- **Common random numbers**: every candidate plays the same games, game i of opponent j's block
  on `game_seed(seed + j, i)`, so two candidates differ by their play, not by their dice.
- **Optimiser**: CMA-ES (the `cma` package, by CMA-ES's author): it needs no gradient, copes with
  noise, and moves a whole population from the starting player, which is what a few dozen
  trials in ~50 dimensions can afford.  The search runs in the unit cube (each parameter scaled by
  its range), starts at the starting player with a step of `SIGMA0` of each range, and the
  starting player itself is trial 0, so the best found is never worse on the tuning games.
- **Honest gain**: the best trial's tuning score is the best of many noisy measures and too
  high.  The gain reported is measured again on `fresh_games` games per opponent block whose
  seeds tuning never used (`seed + FRESH_OFFSET + j`), the tuned player and the starting player
  on the same games: the mean paired difference with its 95 % interval.
- **Hold-out check** (`holdout_games`, optional): before the fresh measure, the tuned and the
  starting player play `holdout_games` games a block on seeds neither tuning nor the fresh
  measure use (`seed + HOLDOUT_OFFSET + j`); when the tuned player does not beat the starting
  player there (mean paired gain <= 0), the tuner keeps the starting player, whose gain is then
  0 by construction.  The best of many noisy trials wins its tuning games by luck as well as
  play (bench/tune_seats.py: pb-07's German gained on its tuning games and lost on fresh ones);
  the check catches that before the policy file is written.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from simulator import __version__, registry
from simulator.api import ParamRange, PlayerSpec
from simulator.errors import DataError
from simulator.progress import Progress
from simulator.runner import pool_batch_size, run
from simulator.situation import Situation
from simulator.stats import seat_score

SIGMA0 = 0.15            # CMA-ES's first step, as a fraction of each parameter's range
FRESH_OFFSET = 1_000_000  # fresh games' run seeds: seed + this + j, never used by tuning
HOLDOUT_OFFSET = 2_000_000  # hold-out games' run seeds: seed + this + j, used by neither tuning nor the fresh games
WHERE = "balance tune"


@dataclass
class Opponents:
    """Who a side plays against: players and their weights (a mixture; one player = weight 1)."""

    players: list[PlayerSpec]
    weights: list[float]
    labels: list[str] = field(default_factory=list)

    def blocks(self, n_games: int) -> list[int]:
        """Games each opponent plays out of about n_games: its share, at least 1 when its weight
        is not 0 (largest remainders)."""
        w = np.asarray(self.weights, dtype=float)
        w = w / w.sum()
        raw = w * n_games
        n = np.floor(raw).astype(int)
        for k in np.argsort(-(raw - n), kind="stable")[: n_games - int(n.sum())]:
            n[k] += 1
        n[(w > 0) & (n == 0)] = 1
        return [int(x) for x in n]


def scores(result, side: str, opponent: str) -> np.ndarray:
    """Per game of a run, in game order, `side`'s seat score against `opponent`."""
    rs = registry.ruleset(result.summary["ruleset"])
    games = result.games.sort_values("game")
    return seat_score(games, side, opponent, rs.levels.ranks, rs.results.side_level)


class Evaluator:
    """Plays players of one side against the opponents on fixed games and scores them."""

    def __init__(self, situation: Situation, side: str, opponents: Opponents, n_games: int, seed: int,
                 pool=None, workers: int | None = None, cluster: str | None = None,
                 on_games: Callable[[int], None] = lambda n: None) -> None:
        sides = list(situation.side_names)
        if side not in sides or len(sides) != 2:
            raise DataError(WHERE, "--side", f"got {side!r}", "one of " + ", ".join(sides))
        self.situation, self.side = situation, side
        self.other = next(s for s in sides if s != side)
        self.opponents = opponents
        self.counts = opponents.blocks(n_games)
        w = np.asarray(opponents.weights, dtype=float)
        self.weights = w / w.sum()
        self.seed = seed
        self.pool, self.workers, self.cluster = pool, workers, cluster
        self.on_games = on_games
        self.played = 0

    def block_scores(self, player: PlayerSpec) -> list[np.ndarray]:
        """The side's scores per game, one array per opponent (empty where its weight is 0)."""
        out = []
        for j, (opp, n) in enumerate(zip(self.opponents.players, self.counts, strict=True)):
            if n == 0 or self.weights[j] == 0:
                out.append(np.zeros(0))
                continue
            res = run(self.situation, n, self.seed + j, {self.side: player, self.other: opp}, workers=self.workers,
                      progress=False, pool=self.pool, cluster=None if self.pool is not None else self.cluster,
                      batch_size=pool_batch_size(self.pool, n) if self.pool is not None else None)
            out.append(scores(res, self.side, self.other))
            self.played += n
            self.on_games(n)
        return out

    def mean(self, blocks: list[np.ndarray]) -> float:
        return float(sum(w * b.mean() for w, b in zip(self.weights, blocks, strict=True) if len(b)))


def paired_gain(better: list[np.ndarray], base: list[np.ndarray], weights) -> tuple[float, float, float]:
    """The weighted mean of per-game score differences (same games), with a normal 95 % interval."""
    mean, var = 0.0, 0.0
    for w, a, b in zip(weights, better, base, strict=True):
        if len(a) == 0:
            continue
        d = a.astype(float) - b.astype(float)
        mean += w * d.mean()
        var += w ** 2 * (d.var(ddof=1) / len(d) if len(d) > 1 else math.inf)
    half = 1.959964 * math.sqrt(var)
    return mean, mean - half, mean + half


@dataclass
class Tuned:
    player: PlayerSpec
    params: dict[str, float]          # every searched parameter of the tuned player
    start_score: float                # on the tuning games
    best_score: float                 # on the tuning games (the best of `trials`: biased up)
    trials: int
    history: list[float]              # each trial's tuning score, in order
    games: int                        # games played while tuning


def _to_params(space: tuple[ParamRange, ...], x: np.ndarray) -> dict[str, float]:
    out = {}
    for p, u in zip(space, np.clip(x, 0.0, 1.0), strict=True):
        v = p.lo + float(u) * (p.hi - p.lo)
        out[p.name] = float(round(v)) if p.whole else round(v, 4)
    return out


def best_response(situation: Situation, side: str, start: PlayerSpec, opponents: Opponents, *, trials: int,
                  games_per_trial: int, seed: int, pool=None, workers: int | None = None,
                  cluster: str | None = None, progress: Callable[[int, int, float], None] | None = None,
                  on_games: Callable[[int], None] = lambda n: None) -> Tuned:
    """Search `start`'s parameters (the ruleset's `Players.space`) for the best mean score of
    `side` against `opponents` in `trials` candidates of `games_per_trial` games each (the first
    candidate is `start` itself).  `progress(trial, trials, best)` is called after each trial."""
    import cma

    players = registry.ruleset(situation.ruleset.name).players
    space = players.space(start.name)
    if not space:
        raise DataError(WHERE, "--side", f"the {side} player {start.name!r} has no parameters to tune",
                        "a player with tunable parameters: " + ", ".join(n for n in players.names() if players.space(n)))
    if trials < 2:
        raise DataError(WHERE, "--budget", f"{trials} trial(s)", "a budget of at least two trials' games")
    ev = Evaluator(situation, side, opponents, games_per_trial, seed, pool, workers, cluster, on_games)
    fixed = {k: v for k, v in start.full_params().items() if k not in {p.name for p in space}}
    base = start.full_params()
    x0 = np.array([(base[p.name] - p.lo) / (p.hi - p.lo) for p in space]).clip(0.0, 1.0)
    popsize = max(4, min(4 + int(3 * math.log(len(space))), (trials - 1) // 3))
    es = cma.CMAEvolutionStrategy(x0, SIGMA0, {"bounds": [0.0, 1.0], "popsize": popsize, "seed": seed + 1,
                                                "verbose": -9})

    def candidate(params: dict[str, float]) -> PlayerSpec:
        return players.make(start.name, {**start.params, **fixed, **params})

    history = [ev.mean(ev.block_scores(start))]
    best, best_params = history[0], {p.name: base[p.name] for p in space}
    if progress:
        progress(1, trials, best)
    while len(history) < trials:
        xs = es.ask()[: trials - len(history)]
        fits = []
        for x in xs:
            params = _to_params(space, x)
            s = ev.mean(ev.block_scores(candidate(params)))
            history.append(s)
            fits.append(-s)
            if s > best:
                best, best_params = s, params
            if progress:
                progress(len(history), trials, best)
        if len(xs) == popsize:
            es.tell(xs, fits)
    return Tuned(candidate(best_params), best_params, history[0], best, trials, history, ev.played)


def paired_check(situation: Situation, side: str, tuned: PlayerSpec, start: PlayerSpec, opponents: Opponents,
                 n_games: int, run_seed: int, pool=None, workers=None, cluster=None,
                 on_games: Callable[[int], None] = lambda n: None) -> dict:
    """The tuned player's gain over the starting player on the games of run seed `run_seed`
    (opponent j's block on `run_seed + j`), both on the same games: paired."""
    ev = Evaluator(situation, side, opponents, n_games, run_seed, pool, workers, cluster, on_games)
    a, b = ev.block_scores(tuned), ev.block_scores(start)
    gain, lo, hi = paired_gain(a, b, ev.weights)
    return {"gain": gain, "ci95": [lo, hi], "games": int(sum(ev.counts)), "seed": run_seed,
            "tuned_score": ev.mean(a), "start_score": ev.mean(b)}


def fresh_gain(situation: Situation, side: str, tuned: PlayerSpec, start: PlayerSpec, opponents: Opponents,
               n_games: int, seed: int, pool=None, workers=None, cluster=None,
               on_games: Callable[[int], None] = lambda n: None) -> dict:
    """The tuned player's gain over the starting player on games tuning never saw (paired)."""
    return paired_check(situation, side, tuned, start, opponents, n_games, seed + FRESH_OFFSET, pool, workers,
                        cluster, on_games)


def holdout_gain(situation: Situation, side: str, tuned: PlayerSpec, start: PlayerSpec, opponents: Opponents,
                 n_games: int, seed: int, pool=None, workers=None, cluster=None,
                 on_games: Callable[[int], None] = lambda n: None) -> dict:
    """The hold-out check: the same paired measure on games neither tuning nor `fresh_gain` uses."""
    return paired_check(situation, side, tuned, start, opponents, n_games, seed + HOLDOUT_OFFSET, pool, workers,
                        cluster, on_games)


# ----------------------------------------------------------------------------- policy files

def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(float(v)) if isinstance(v, float) else str(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    import json

    return json.dumps(str(v))  # a TOML basic string: JSON's escapes are TOML's


def write_policy_file(path: Path, player: PlayerSpec, provenance: dict, comment: str = "") -> Path:
    """A policy file `--policy SIDE=@FILE` loads: the player, its parameters and where it came from."""
    lines = [f"# {line}" for line in comment.splitlines()] + [f"policy = {_toml_value(player.name)}", "", "[provenance]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in provenance.items()]
    lines += ["", "[params]"] + [f"{k} = {_toml_value(float(v))}" for k, v in player.full_params().items()]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)
    return path


# ----------------------------------------------------------------------------- the command

def tune(situation: Situation, side: str, against: PlayerSpec, start: PlayerSpec, budget: int,
         games_per_trial: int, fresh_games: int, seed: int, out: Path, workers: int | None = None,
         cluster: str | None = None, progress: bool = True, against_text: str = "", holdout_games: int = 0) -> dict:
    """`balance tune`: tune, check the tuned player on hold-out games (when `holdout_games`;
    the starting player is kept unless the tuned one beats it there), write the policy file,
    measure the gain on fresh games."""
    from simulator.runner import player_pool

    for value, option, low in ((budget, "--budget", 2), (games_per_trial, "--games-per-trial", 1),
                               (fresh_games, "--fresh-games", 2), (seed, "--seed", 0),
                               (holdout_games, "--holdout-games", 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise DataError(WHERE, option, f"got {value!r}", f"a whole number >= {low}")
    trials = budget // games_per_trial
    if trials < 2:
        raise DataError(WHERE, "--budget", f"{budget} games make {trials} trial(s) of {games_per_trial} games",
                        "at least two trials' games")
    other = next(s for s in situation.side_names if s != side)
    opponents = Opponents([against], [1.0], [against.label()])
    if holdout_games == 1:
        raise DataError(WHERE, "--holdout-games", "got 1", "0 (no hold-out check) or at least 2 games")
    total = trials * games_per_trial + 2 * holdout_games + 2 * fresh_games
    bar = Progress(progress)
    state = {"games": 0, "note": ""}

    def games_done(n: int) -> None:
        state["games"] += n
        bar.update(state["games"], total, state["note"])

    def trial_done(k: int, n: int, best: float) -> None:
        state["note"] = f"trial {k}/{n}, best score {best:+.3f}"
        bar.update(state["games"], total, state["note"])

    t0 = time.perf_counter()
    bar.starting(f"tuning the {side} player of {situation.id}: {trials} trials of {games_per_trial} games",
                 compiling=False)
    with player_pool(situation, {side: start, other: against}, workers, cluster) as pool:
        try:
            tuned = best_response(situation, side, start, opponents, trials=trials, games_per_trial=games_per_trial,
                                  seed=seed, pool=pool, progress=trial_done, on_games=games_done)
            held = None
            if holdout_games:
                state["note"] = f"hold-out check (best tuning score {tuned.best_score:+.3f})"
                held = holdout_gain(situation, side, tuned.player, start, opponents, holdout_games, seed, pool=pool,
                                    on_games=games_done)
            kept_start = bool(held is not None and held["gain"] <= 0)
            if kept_start:
                # The starting player again: the same games, a gain of exactly 0, nothing to play.
                fresh = {"gain": 0.0, "ci95": [0.0, 0.0], "games": 0, "seed": seed + FRESH_OFFSET,
                         "tuned_score": None, "start_score": None}
                bar.update(total, total, "kept the starting player")
            else:
                state["note"] = f"measuring the gain on fresh games (best tuning score {tuned.best_score:+.3f})"
                fresh = fresh_gain(situation, side, tuned.player, start, opponents, fresh_games, seed, pool=pool,
                                   on_games=games_done)
        finally:
            bar.close()
    import cma

    provenance = {
        "tool": "balance tune", "tool_version": __version__, "situation": situation.id,
        "situation_sha256": situation.file_sha256, "overrides": str(dict(situation.overrides) or ""),
        "side": side, "against": against_text or against.label(), "start": start.label(),
        "budget": budget, "trials": trials, "games_per_trial": games_per_trial,
        "tuning_seeds": f"run seed {seed}: game i on game_seed({seed}, i)", "seed": seed,
        "optimiser": f"CMA-ES (cma {cma.__version__}), sigma0 {SIGMA0} of each range",
        "holdout_games": held["games"] if held else 0,
        "holdout_gain": round(held["gain"], 4) if held else "",
        "holdout_gain_ci95": [round(x, 4) for x in held["ci95"]] if held else "",
        "kept": "the starting player (the tuned one did not beat it on the hold-out games)" if kept_start
                else "the tuned player",
        "fresh_games": fresh["games"], "fresh_seed": fresh["seed"],
        "gain": round(fresh["gain"], 4), "gain_ci95": [round(x, 4) for x in fresh["ci95"]],
        "date": datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
    }
    if kept_start:
        comment = (f"The {side} player of {situation.id} tuned by `balance tune` against {provenance['against']}: "
                   f"the starting player kept.\nThe best tuned candidate gained {held['gain']:+.3f} (95 % interval "
                   f"{held['ci95'][0]:+.3f} to {held['ci95'][1]:+.3f}) on {held['games']} hold-out games: no gain.")
    else:
        comment = (f"The {side} player of {situation.id} tuned by `balance tune` against {provenance['against']}.\n"
                   f"Gain over its starting player on {fresh['games']} fresh games: {fresh['gain']:+.3f} "
                   f"(95 % interval {fresh['ci95'][0]:+.3f} to {fresh['ci95'][1]:+.3f}) in mean score.")
    chosen = start if kept_start else tuned.player
    player = registry.ruleset(situation.ruleset.name).players.make(chosen.name, chosen.params, source=str(out))
    write_policy_file(out, player, provenance, comment)
    return {"situation": situation.id, "side": side, "against": provenance["against"], "start": start.label(),
            "budget": budget, "trials": trials, "games_per_trial": games_per_trial, "seed": seed,
            "tuning": {"start_score": tuned.start_score, "best_score": tuned.best_score, "history": tuned.history,
                       "games": tuned.games},
            "holdout": held, "kept_start": kept_start,
            "fresh": fresh, "params": tuned.params, "out": str(out), "elapsed_s": round(time.perf_counter() - t0, 1)}


def format_tune(r: dict) -> str:
    lines = [f"{r['situation']}: the {r['side']} player tuned against {r['against']}: {r['trials']} trials of "
             f"{r['games_per_trial']} games (seed {r['seed']}), {r['elapsed_s']:.0f} s"]
    held = r.get("holdout")
    if held:
        hlo, hhi = held["ci95"]
        lines.append(f"hold-out check on {held['games']} games (seed {held['seed']}): the tuned player "
                     f"{held['gain']:+.3f} mean score over {r['start']}, 95 % interval {hlo:+.3f} to {hhi:+.3f}")
    if r.get("kept_start"):
        lines.append(f"kept the starting player {r['start']}: the tuned one did not beat it on the hold-out games "
                     f"(gain 0 by construction; no fresh games played)")
    else:
        lo, hi = r["fresh"]["ci95"]
        lines += [
            f"gain over {r['start']} on {r['fresh']['games']} fresh games (seed {r['fresh']['seed']}, never used in "
            f"tuning): {r['fresh']['gain']:+.3f} mean score, 95 % interval {lo:+.3f} to {hi:+.3f}",
            f"  (score: the {r['side']} side's victory level minus its opponent's, per game; the tuned player "
            f"{r['fresh']['tuned_score']:+.3f}, the starting player {r['fresh']['start_score']:+.3f} on those games)"]
    lines.append(f"wrote {r['out']} (use it with --policy {r['side']}=@{r['out']})")
    return "\n".join(lines)
