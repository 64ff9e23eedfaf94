"""`balance equilibrium`: balance between good players, not one pair of bots.

A small population of players per side is grown and played against itself:

1. **start**: each side's default player and its style variants (the ruleset's
   `Players.styles`; PanzerBlitz: simulator/rulesets/panzerblitz/players/styles/cautious.toml, aggressive.toml);
2. **cross-table**: every pair plays `cell_games` games on the same seeds (game i of every cell
   on `game_seed(seed, i)`), and A[i, j] is the first side's mean seat score (its victory level's
   rank minus the second side's);
3. **double oracle**: the zero-sum meta-game on A is solved for its mixed equilibrium
   (simulator/metagame.py); then each side in turn gets a best response to the other side's
   current mixture (`balance tune`'s search, simulator/tune.py, on tuning seeds the table never
   uses), which joins its population and plays every player of the other side on the table's
   seeds; the game is solved again.  A best response's *gain* is its score against the mixture
   on the table's games minus the equilibrium value before it joined;
4. **stop** when no best response of a round gains more than `threshold`, after `rounds`
   rounds, or when the next step would pass the `budget` of games.

Reported: the cross-table (CSV and heatmap), each side's equilibrium mixture, the balance at
equilibrium (each side's win, draw and level chances under the two mixtures, with bootstrap
intervals over the games of each cell, the mixtures held fixed), the verdicts of the default
pair and at equilibrium side by side with "depends on play" (simulator/verdict.py), and how much
each side gains by leaving the default pair for its best member of the population (exploitability
of the default pair, paired on the table's games).  Every game goes through the runner
(`runner.player_pool`), so `--workers` and `--cluster/--scheduler` work unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simulator import __version__, registry
from simulator.api import PlayerSpec
from simulator.equilibrium_settings import DEFAULTS
from simulator.errors import DataError
from simulator.metagame import solve
from simulator.progress import Progress
from simulator.runner import player_pool, pool_batch_size, run
from simulator.situation import Situation
from simulator.stats import seat_score
from simulator.tune import Opponents, best_response, paired_gain
from simulator.verdict import Verdict, depends_on_play, from_counts, play_words, players_phrase

WHERE = "balance equilibrium"
BOOTSTRAP = 1000
TUNE_SEED_STEP = 1000   # best response k tunes on run seeds seed + 1000 (k + 1) + j: never the table's


@dataclass
class Member:
    name: str             # "default", "cautious", "br1" ...
    player: PlayerSpec
    origin: str           # in words


@dataclass
class Cell:
    score: np.ndarray     # first side's seat score, per game
    winner: np.ndarray    # side name or "draw", per game
    level: np.ndarray     # the winner's level ("none" for a draw), per game


class Table:
    """The cross-table: cells by (row member, column member), all on the same seeds."""

    def __init__(self, situation: Situation, seed: int, cell_games: int, pool, spend: Callable[[int], None]) -> None:
        self.situation, self.seed, self.n, self.pool, self.spend = situation, seed, cell_games, pool, spend
        self.rs = registry.ruleset(situation.ruleset.name)
        self.a, self.b = situation.side_names
        self.rows: list[Member] = []
        self.cols: list[Member] = []
        self.cells: dict[tuple[int, int], Cell] = {}

    def _play(self, i: int, j: int) -> None:
        res = run(self.situation, self.n, self.seed, {self.a: self.rows[i].player, self.b: self.cols[j].player},
                  progress=False, pool=self.pool, batch_size=pool_batch_size(self.pool, self.n))
        g = res.games.sort_values("game")
        r = self.rs.results
        self.cells[i, j] = Cell(seat_score(g, self.a, self.b, self.rs.levels.ranks, r.side_level),
                                g[r.winner].astype(str).to_numpy(), g[r.level].astype(str).to_numpy())
        self.spend(self.n)

    def add(self, side: str, member: Member) -> None:
        if side == self.a:
            self.rows.append(member)
            for j in range(len(self.cols)):
                self._play(len(self.rows) - 1, j)
        else:
            self.cols.append(member)
            for i in range(len(self.rows)):
                self._play(i, len(self.cols) - 1)

    def matrix(self) -> np.ndarray:
        return np.array([[self.cells[i, j].score.mean() for j in range(len(self.cols))] for i in range(len(self.rows))])

    def cost_of_adding(self, side: str) -> int:
        return self.n * (len(self.cols) if side == self.a else len(self.rows))


def equilibrium(situation: Situation, *, budget: int = DEFAULTS["budget"], cell_games: int = DEFAULTS["cell_games"],
                trials: int = DEFAULTS["trials"], games_per_trial: int = DEFAULTS["games_per_trial"],
                rounds: int = DEFAULTS["rounds"], threshold: float = DEFAULTS["threshold"], seed: int = 1,
                workers: int | None = None, cluster: str | None = None, progress: bool = True,
                log: Callable[[str], None] = lambda line: None) -> dict:
    """Grow the population, solve the meta-game, and report (the dict `equilibrium.json` holds)."""
    _check(budget, cell_games, trials, games_per_trial, rounds, threshold, seed)
    rs = registry.ruleset(situation.ruleset.name)
    sides = list(situation.side_names)
    if len(sides) != 2:
        raise DataError(str(situation.path), "side", f"{len(sides)} sides", "two sides (a zero-sum meta-game)")
    a, b = sides
    base = rs.players.parse(None, sides)
    start = {s: [Member("default", base[s], f"the default {base[s].name} player")]
             + [Member(name, rs.players.make(base[s].name, params, source=f"style {name}"), f"the {name} style")
                for name, params in rs.players.styles(base[s].name).items()] for s in sides}
    first_cost = cell_games * len(start[a]) * len(start[b])
    if first_cost > budget:
        raise DataError(WHERE, "--budget", f"{budget} games; the first cross-table alone needs {first_cost}",
                        f"at least {first_cost} games, or fewer --games a pair")
    bar = Progress(progress)
    used = {"games": 0, "note": "cross-table"}

    def spend(n: int) -> None:
        used["games"] += n
        bar.update(used["games"], budget, used["note"])

    t0 = time.perf_counter()
    history: list[dict] = []
    stop = ""
    bar.starting(f"{situation.id}: playing the population's cross-table", compiling=not rs.engine_ready())
    with player_pool(situation, base, workers, cluster) as pool:
        try:
            table = Table(situation, seed, cell_games, pool, spend)
            for m in start[a]:
                table.add(a, m)
            for m in start[b]:
                table.add(b, m)
            k = 0
            for r in range(1, rounds + 1):
                gains = []
                for side in sides:
                    cost = trials * games_per_trial + table.cost_of_adding(side)
                    if used["games"] + cost > budget:
                        stop = (f"budget: the next best response ({cost} games) would pass the budget of {budget} "
                                f"games ({used['games']} played)")
                        break
                    eq = solve(table.matrix())
                    own, other = (table.rows, table.cols) if side == a else (table.cols, table.rows)
                    own_mix, other_mix = (eq.row, eq.col) if side == a else (eq.col, eq.row)
                    opp = Opponents([m.player for m in other], list(other_mix), [m.name for m in other])
                    begin = own[int(np.argmax(own_mix))]
                    k += 1
                    used["note"] = f"round {r}: {side} best response"

                    def trial(t: int, n: int, best: float, side=side, r=r) -> None:
                        used["note"] = f"round {r}: {side} best response, trial {t}/{n}, best {best:+.2f}"

                    tuned = best_response(situation, side, begin.player, opp, trials=trials,
                                          games_per_trial=games_per_trial, seed=seed + TUNE_SEED_STEP * k,
                                          pool=pool, progress=trial, on_games=spend)
                    if tuned.best_score <= tuned.start_score:
                        # No candidate beat the player it started from: adding that same player again would
                        # cost a row of games and answer nothing.
                        gains.append(0.0)
                        history.append({"round": r, "side": side, "member": None, "from": begin.name,
                                        "tuning_start_score": tuned.start_score,
                                        "tuning_best_score": tuned.best_score, "gain_on_table": 0.0,
                                        "value_before": eq.value, "games": tuned.games})
                        log(f"round {r}: {side}: no candidate beat {begin.name} in tuning; nothing joins")
                        continue
                    member = Member(f"br{k}", rs.players.make(tuned.player.name, tuned.player.params,
                                                              source=f"best response {k}"),
                                    f"best response of round {r} to the {_other(sides, side)} mixture, from "
                                    f"{begin.name}")
                    used["note"] = f"round {r}: {member.name} against the {_other(sides, side)} population"
                    table.add(side, member)
                    new = table.matrix()
                    # Its gain on the table's games: its score against the mixture it answered,
                    # minus what the side's mixture scored there.
                    if side == a:
                        gain = float(new[-1, :] @ eq.col - eq.value)
                    else:
                        gain = float(eq.value - eq.row @ new[:, -1])
                    gains.append(gain)
                    history.append({"round": r, "side": side, "member": member.name, "from": begin.name,
                                    "tuning_start_score": tuned.start_score, "tuning_best_score": tuned.best_score,
                                    "gain_on_table": gain, "value_before": eq.value, "games": tuned.games})
                    log(f"round {r}: {side} {member.name} from {begin.name}: gain {gain:+.3f} against the mixture "
                        f"on the table's games (tuning: {tuned.start_score:+.3f} -> {tuned.best_score:+.3f})")
                if stop:
                    break
                if gains and max(gains) <= threshold:
                    stop = f"converged: no best response of round {r} gained more than {threshold:g} in mean score"
                    break
            else:
                stop = f"rounds: {rounds} rounds played"
        finally:
            bar.close()
    result = _report(situation, rs, table, history, stop, seed)
    result.update(budget=budget, games_played=used["games"], cell_games=cell_games, trials=trials,
                  games_per_trial=games_per_trial, rounds=rounds, threshold=threshold, seed=seed,
                  elapsed_s=round(time.perf_counter() - t0, 1), tool_version=__version__,
                  situation_sha256=situation.file_sha256, overrides=dict(situation.overrides))
    result["_table"] = table   # for the files; not written to JSON
    return result


def _other(sides, side):
    return next(s for s in sides if s != side)


def _check(budget, cell_games, trials, games_per_trial, rounds, threshold, seed) -> None:
    for value, option, low in ((budget, "--budget", 1), (cell_games, "--games", 2), (trials, "--trials", 2),
                               (games_per_trial, "--games-per-trial", 1), (rounds, "--rounds", 0), (seed, "--seed", 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise DataError(WHERE, option, f"got {value!r}", f"a whole number >= {low}")
    if not threshold >= 0:
        raise DataError(WHERE, "--threshold", f"got {threshold!r}", "a mean-score gain >= 0, e.g. 0.1")


# ----------------------------------------------------------------------------- the balance

def _outcomes(table: Table, x: np.ndarray, y: np.ndarray, seed: int) -> dict:
    """Win, draw and level chances and the mean score under mixtures x, y, with bootstrap 95 %
    intervals: each cell's games resampled (with replacement), the mixtures held fixed."""
    a, b = table.a, table.b
    levels = table.rs.levels.names
    cats = [(a, lv) for lv in levels] + [(b, lv) for lv in levels]
    rng = np.random.default_rng(seed)
    keys = ["win:" + a, "win:" + b, "draw", "score", *(f"level:{s}:{lv}" for s, lv in cats)]
    point = dict.fromkeys(keys, 0.0)
    boot = {k: np.zeros(BOOTSTRAP) for k in keys}
    for (i, j), cell in table.cells.items():
        w = float(x[i] * y[j])
        if w <= 0:
            continue
        n = len(cell.score)
        idx = rng.integers(0, n, size=(BOOTSTRAP, n))
        series = {"win:" + a: cell.winner == a, "win:" + b: cell.winner == b, "draw": cell.winner == "draw",
                  "score": cell.score.astype(float)}
        for s, lv in cats:
            series[f"level:{s}:{lv}"] = (cell.winner == s) & (cell.level == lv)
        for k, v in series.items():
            v = np.asarray(v, dtype=float)
            point[k] += w * v.mean()
            boot[k] += w * v[idx].mean(axis=1)
    d = boot["win:" + a] - boot["win:" + b]

    def ci(v: np.ndarray) -> list[float]:
        return [float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))]

    out = {"win": {s: {"p": point["win:" + s], "ci95": ci(boot["win:" + s])} for s in (a, b)},
           "draw": {"p": point["draw"], "ci95": ci(boot["draw"])},
           "score": {"mean": point["score"], "ci95": ci(boot["score"])},
           "difference": {"d": point["win:" + a] - point["win:" + b], "ci95": ci(d)},
           "levels": {s: {lv: {"p": point[f"level:{s}:{lv}"], "ci95": ci(boot[f"level:{s}:{lv}"])} for lv in levels}
                      for s in (a, b)},
           "bootstrap": BOOTSTRAP}
    return out


def _report(situation: Situation, rs, table: Table, history: list[dict], stop: str, seed: int) -> dict:
    a, b = table.a, table.b
    m = table.matrix()
    eq = solve(m)
    n = table.n
    balance = _outcomes(table, eq.row, eq.col, seed)
    eq_players = (f"between the equilibrium mixtures of {len(table.rows)} {a.capitalize()} and "
                  f"{len(table.cols)} {b.capitalize()} players")
    eq_verdict = Verdict(eq_players, a, b, balance["difference"]["d"], *balance["difference"]["ci95"],
                         balance["draw"]["p"], *balance["draw"]["ci95"], interval="bootstrap")
    d0 = table.cells[0, 0]
    default_players = players_phrase({a: {"name": table.rows[0].player.name, "params": {}},
                                      b: {"name": table.cols[0].player.name, "params": {}}})
    default_verdict = from_counts(a, b, int((d0.winner == a).sum()), int((d0.winner == b).sum()), n, default_players)
    # Leaving the default pair: each side's best member against the other's default, paired on the same
    # games.  Staying with the default is one of the choices, so the gain is never below 0: a member that
    # does worse than the default exploits nothing (member None: none does better).
    exploit = {}
    for side in (a, b):
        members = table.rows if side == a else table.cols
        sign = 1 if side == a else -1
        best = {"member": None, "gain": 0.0, "ci95": [0.0, 0.0]}
        for k in range(1, len(members)):
            cell = table.cells[(k, 0) if side == a else (0, k)]
            g, lo, hi = paired_gain([sign * cell.score], [sign * d0.score], [1.0])
            if g > best["gain"]:
                best = {"member": members[k].name, "gain": g, "ci95": [lo, hi]}
        exploit[side] = best
    return {
        "situation": situation.id, "title": situation.title, "ruleset": situation.ruleset.name, "sides": [a, b],
        "score": f"the {a} side's victory level minus the {b} side's, per game "
                 f"({-len(rs.levels.names)}..{len(rs.levels.names)}); the {b} side's score is its negative",
        "population": {side: [{"name": mm.name, "origin": mm.origin, "label": mm.player.label(),
                               "params": mm.player.non_default()} for mm in members]
                       for side, members in ((a, table.rows), (b, table.cols))},
        "table": m.round(6).tolist(),
        "mixtures": {a: eq.row.round(6).tolist(), b: eq.col.round(6).tolist()},
        "value": eq.value,
        "balance": balance,
        "verdicts": {"default": default_verdict.as_dict(), "equilibrium": eq_verdict.as_dict(),
                     "depends_on_play": depends_on_play(default_verdict, eq_verdict)},
        "default_pair": {"score": float(d0.score.mean()), "exploitability": exploit},
        "history": history, "stop": stop,
    }


def read_equilibrium(path) -> dict:
    """A saved equilibrium run: its folder (`balance equilibrium --out`) or its equilibrium.json."""
    import json
    from pathlib import Path

    path = Path(path)
    file = path / "equilibrium.json" if path.is_dir() else path
    try:
        data = json.loads(file.read_text())
    except (OSError, ValueError) as exc:
        raise DataError(str(file), "--equilibrium", f"cannot read: {exc}",
                        "a folder written by `balance equilibrium --out`") from exc
    for key in ("situation", "verdicts", "sides"):
        if key not in data:
            raise DataError(str(file), key, "missing", "an equilibrium.json written by `balance equilibrium`")
    data["_source"] = str(file)
    return data


def check_same_situation(eq: dict, situation: str, sha256: str | None, overrides: dict | None) -> None:
    """Refuse an equilibrium run of another situation, of a changed file, or with other changes."""
    where = eq.get("_source", "--equilibrium")
    if eq["situation"] != situation:
        raise DataError(where, "situation", f"an equilibrium of {eq['situation']}, the run is of {situation}",
                        "the equilibrium run of the same situation")
    if eq.get("situation_sha256") and sha256 and eq["situation_sha256"] != sha256:
        raise DataError(where, "situation_sha256", "the situation file changed since the equilibrium run",
                        "an equilibrium run of the situation as it is now")
    if (eq.get("overrides") or {}) != (overrides or {}):
        raise DataError(where, "overrides", f"{eq.get('overrides')} differ from the run's {overrides}",
                        "an equilibrium run with the same --set changes")


def against_equilibrium(summary: dict, eq: dict) -> dict:
    """A run's verdict beside the equilibrium's of the same situation (what summary.json's
    `equilibrium` and the report's side-by-side section hold)."""
    from simulator.verdict import from_dict

    where = eq.get("_source", "--equilibrium")
    check_same_situation(eq, summary["situation"], summary.get("situation_sha256"), summary.get("overrides"))
    if not summary.get("verdict"):
        raise DataError(where, "verdict", "the run's summary has no verdict (saved by an older version)",
                        "a run saved by this version: run it again")
    mine, theirs = from_dict(summary["verdict"]), from_dict(eq["verdicts"]["equilibrium"])
    return {"source": where, "verdict": eq["verdicts"]["equilibrium"], "depends_on_play": depends_on_play(mine, theirs),
            "games_played": eq.get("games_played"), "bootstrap": eq.get("balance", {}).get("bootstrap")}


def cross_table_frame(result: dict) -> pd.DataFrame:
    """The cross-table as a tidy table: one row a pair, with its games' figures."""
    table: Table = result["_table"]
    a, b = table.a, table.b
    rows = []
    for (i, j), c in sorted(table.cells.items()):
        n = len(c.score)
        se = c.score.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
        rows.append({f"{a}_player": table.rows[i].name, f"{b}_player": table.cols[j].name, "games": n,
                     "seed": table.seed, f"{a}_score": round(float(c.score.mean()), 4),
                     "score_lo": round(float(c.score.mean() - 1.959964 * se), 4),
                     "score_hi": round(float(c.score.mean() + 1.959964 * se), 4),
                     f"{a}_win": round(float((c.winner == a).mean()), 4), f"{b}_win": round(float((c.winner == b).mean()), 4),
                     "draw": round(float((c.winner == "draw").mean()), 4),
                     f"{a}_weight": result["mixtures"][a][i], f"{b}_weight": result["mixtures"][b][j]})
    return pd.DataFrame(rows)


def format_equilibrium(r: dict) -> str:
    from simulator.verdict import sentence

    a, b = r["sides"]
    lines = [f"{r['situation']}: equilibrium of {len(r['population'][a])} {a} and {len(r['population'][b])} {b} "
             f"players, {r['cell_games']} games a pair on the same seeds (seed {r['seed']}); {r['games_played']} of "
             f"{r['budget']} games, {r['elapsed_s']:.0f} s; stopped on {r['stop']}", "",
             f"mean {a} score (rows {a}, columns {b}; {r['score']}):"]
    names_b = [m["name"] for m in r["population"][b]]
    w = max(len(b) + 9, *(len(m["name"]) + 8 for m in r["population"][a]))
    c = max(8, *(len(n) for n in names_b)) + 2
    lines.append(" " * w + "".join(f"{n:>{c}}" for n in names_b))
    for m, row, x in zip(r["population"][a], r["table"], r["mixtures"][a], strict=True):
        lines.append(f"{m['name'] + f' ({x:.2f})':<{w}}" + "".join(f"{v:>+{c}.2f}" for v in row))
    lines.append(f"{'(' + b + ' weight)':<{w}}" + "".join(f"{y:>{c}.2f}" for y in r["mixtures"][b]))
    bal = r["balance"]
    lines += ["", f"value of the game: {r['value']:+.3f} mean {a} score "
                  f"(95 % bootstrap interval {bal['score']['ci95'][0]:+.3f} to {bal['score']['ci95'][1]:+.3f})"]
    for s in (a, b):
        lo, hi = bal["win"][s]["ci95"]
        lines.append(f"at equilibrium the {s} side wins {100 * bal['win'][s]['p']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]")
    lo, hi = bal["draw"]["ci95"]
    lines.append(f"draws {100 * bal['draw']['p']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]")
    lines += ["", "default pair: " + sentence(r["verdicts"]["default"]["text"]),
              "equilibrium:  " + sentence(r["verdicts"]["equilibrium"]["text"])]
    lines.append(play_words(r["verdicts"]["depends_on_play"]))
    lines.append("")
    for s, e in r["default_pair"]["exploitability"].items():
        if e["member"]:
            lines.append(f"the {s} side leaving the default pair for {e['member']}: {e['gain']:+.3f} mean score "
                         f"[{e['ci95'][0]:+.3f}, {e['ci95'][1]:+.3f}] (paired, on the table's games)")
        else:
            lines.append(f"the {s} side: no player of the population does better than its default against "
                         "the other side's default")
    for h in r["history"]:
        if h["member"] is None:
            lines.append(f"round {h['round']}: {h['side']}: no candidate beat {h['from']} in tuning; nothing joined")
            continue
        lines.append(f"round {h['round']}: {h['side']} {h['member']} (from {h['from']}): gain {h['gain_on_table']:+.3f} "
                     "against the mixture it answered, on the table's games")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- --robust

@dataclass
class Mixture:
    """The equilibrium mixtures of a saved run as pairs of players with their weights, for
    `suggest --robust` and `sweep --robust`: a fix is a fix only if it holds under them."""

    pairs: list[tuple[dict[str, PlayerSpec], float]]
    phrase: str           # the players' words of the verdicts
    source: str


def load_mixture(path, situation: Situation) -> Mixture:
    from pathlib import Path

    eq = read_equilibrium(path)
    check_same_situation(eq, situation.id, situation.file_sha256, eq.get("overrides"))
    rs = registry.ruleset(situation.ruleset.name)
    a, b = eq["sides"]
    folder = Path(eq["_source"]).parent / "players"
    sides = list(situation.side_names)

    def player(side: str, member: dict) -> PlayerSpec:
        file = folder / f"{side}-{member['name']}.toml"
        if not file.exists():
            raise DataError(eq["_source"], "players", f"{file} is missing", "the players/ folder the run wrote")
        return rs.players.parse([f"{side}=@{file}"], sides)[side]

    pairs = [({a: player(a, ma), b: player(b, mb)}, wa * wb)
             for ma, wa in zip(eq["population"][a], eq["mixtures"][a], strict=True) if wa > 0
             for mb, wb in zip(eq["population"][b], eq["mixtures"][b], strict=True) if wb > 0]
    phrase = (f"between the equilibrium mixtures of {len(eq['population'][a])} {a.capitalize()} and "
              f"{len(eq['population'][b])} {b.capitalize()} players")
    return Mixture(pairs, phrase, eq["_source"])


@dataclass
class MixtureRun:
    """The games of a run under the mixtures: each pair its share of the games, one block a pair
    (block k on run seed seed + k, so every variant plays the same games)."""

    games: pd.DataFrame
    winner_column: str

    def winners(self) -> np.ndarray:
        return self.games[self.winner_column].to_numpy()


def run_mixture(situation: Situation, n_games: int, seed: int, mixture: Mixture, **run_options) -> MixtureRun:
    rs = registry.ruleset(situation.ruleset.name)
    counts = Opponents([None] * len(mixture.pairs), [w for _, w in mixture.pairs]).blocks(n_games)
    frames = []
    for k, ((players, _), n) in enumerate(zip(mixture.pairs, counts, strict=True)):
        if n:
            res = run(situation, n, seed + k, players, **run_options)
            frames.append(res.games.sort_values("game").assign(pair=k))
    games = pd.concat(frames, ignore_index=True)
    games["game"] = np.arange(len(games))
    return MixtureRun(games, rs.results.winner)
