"""The summary of a batch of games: outcome probabilities with their intervals, as a dict.

The dict is what `balance run --json` prints and `--out` saves as summary.json; its keys are
fixed (README, "The summary JSON") because other tools read it.  `format_summary` is the same
content as a short table for people.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pandas as pd

from simulator import __version__, registry
from simulator.api import PlayerSpec, Ruleset
from simulator.situation import Situation
from simulator.stats import goodman, wilson
from simulator.verdict import from_counts, play_words, players_phrase, sentence

DIGITS = 6  # probabilities and bounds: enough for any run size, short enough to read

# A list of numbers that json.dumps(indent=...) spread over several lines.  JSON strings never
# hold a raw newline, so this cannot match inside one.
_NUMBER_LIST = re.compile(r"\[\n\s*(-?[0-9][0-9.eE+-]*(?:,\n\s*-?[0-9][0-9.eE+-]*)*)\n\s*\]")


def _r(x: float) -> float:
    return round(float(x), DIGITS)


def _level_shares(winner: pd.Series, level: pd.Series, sides: list[str], levels: tuple[str, ...]
                  ) -> tuple[dict, dict, int]:
    """Per side and level the share of games won there, with the simultaneous intervals, and the draws."""
    n = len(winner)
    # The multinomial behind the level intervals: every (side, level) a game can end in, and the draw.
    cells = [(s, lv) for s in sides for lv in levels]
    counts = [int(((winner == s) & (level == lv)).sum()) for s, lv in cells]
    draws = int((winner == "draw").sum())
    if sum(counts) + draws != n:
        odd = sorted(set(zip(winner, level, strict=True)) - set(cells) - {("draw", "none")})
        raise ValueError(f"games ended in results the summary does not know: {odd[:5]} "
                         f"(expected a side in {sides} at a level in {list(levels)}, or a draw)")
    joint = goodman([*counts, draws])
    shares = {s: {lv: _r(c / n) for (side, lv), c in zip(cells, counts, strict=True) if side == s} for s in sides}
    ci = {s: {lv: [_r(x) for x in joint[i]] for i, (side, lv) in enumerate(cells) if side == s} for s in sides}
    return shares, ci, draws


def summarize(games: pd.DataFrame, *, situation: Situation, seed: int, policies: dict[str, PlayerSpec],
              ruleset: Ruleset, elapsed_s: float, until_ci: dict | None = None,
              startup_s: float = 0.0, play_s: float | None = None) -> dict:
    """Outcomes of `games` (one row a game; the ruleset's results schema names the winner
    column, side or "draw", and the winner's level; optionally the level under the other value
    of a two-way reading, `VictoryLevels.alternative`), and the facts the ruleset adds."""
    sides = list(situation.side_names)
    levels, res = ruleset.levels, ruleset.results
    n = len(games)
    winner = games[res.winner].astype(str)
    level = games[res.level].astype(str)
    shares, levels_ci, draws = _level_shares(winner, level, sides, levels.names)
    outcomes = {}
    for s in sides:
        wins = int((winner == s).sum())
        outcomes[s] = {"win": _r(wins / n), "ci95": [_r(x) for x in wilson(wins, n)], "levels": shares[s]}
    alternative = None
    alt_reading = levels.alternative
    if alt_reading and alt_reading.column in games:
        alt = games[alt_reading.column].astype(str)
        alt_shares, alt_ci, _ = _level_shares(winner, alt, sides, levels.names)
        alternative = {"reading": _other_reading(situation, alt_reading.key, alt_reading.values, alt_reading.default),
                       "games_differ": int((alt != level).sum()), "levels": alt_shares, "levels_ci95": alt_ci}
    play_s = elapsed_s - startup_s if play_s is None else play_s
    players = {s: describe_player(policies[s]) for s in sides}
    verdict = None
    if len(sides) == 2:
        wins = [int((winner == s).sum()) for s in sides]
        verdict = from_counts(sides[0], sides[1], wins[0], wins[1], n, players_phrase(players)).as_dict()
    return {
        "situation": situation.id,
        "title": situation.title,
        "turns": situation.turns,
        "date": datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
        "ruleset": situation.ruleset.name,
        "games": n,
        "seed": seed,
        # Each player by name and the parameters that differ from its defaults (simulator/rulesets/panzerblitz/players/heuristic.toml).
        "policies": players,
        "outcomes": outcomes,
        # The verdict in words, naming the players, with its measure and band (simulator/verdict.py).
        "verdict": verdict,
        "draw": _r(draws / n),
        "mean_turns": round(float(games[res.turns_played].mean()), 3),
        "elapsed_s": round(elapsed_s, 3),
        # Playing speed: games / play_s.  Start-up (preparing the situation, loading or on a
        # first run compiling the engine) is startup_s, apart.
        "games_per_s": round(n / play_s, 1) if play_s > 0 else None,
        "startup_s": round(startup_s, 3),
        "play_s": round(play_s, 3),
        "levels_ci95": levels_ci,
        "draw_ci95": [_r(x) for x in wilson(draws, n)],
        "until_ci": until_ci,
        "tool_version": __version__,
        "situation_sha256": situation.file_sha256,
        "situation_file": str(situation.path),
        "overrides": dict(situation.overrides),
        "alternative_levels": alternative,
        # The ruleset's own facts (PanzerBlitz: who sets up and moves first, the victory
        # conditions, counters lost at set-up).
        **ruleset.summary_facts(situation, games),
    }


def describe_player(p: PlayerSpec) -> dict:
    """A player as summaries record it: its name, the parameters changed from its defaults, and the
    policy file it came from (a tuned player), if any."""
    out = {"name": p.name, "params": p.non_default()}
    if getattr(p, "source", ""):
        out["source"] = p.source
    return out


def _other_reading(situation: Situation, key: str, values: tuple[str, str], default: str) -> str:
    """`KEY = "VALUE"` for the value of a two-way reading that is not in force in this run."""
    node = situation.ruleset.data
    for part in key.split("."):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    now = node if isinstance(node, str) else default
    return f'{key} = "{values[1] if now == values[0] else values[0]}"'


def run_warnings(summary: dict) -> list[str]:
    """The warnings a run prints after its games (its ruleset's: counters lost at set-up, say)."""
    return registry.ruleset(summary["ruleset"]).report.warnings(summary)


def summary_json(summary: dict) -> str:
    """Indented JSON with each interval ([lo, hi]) on one line: a third as long, same content."""
    text = json.dumps(summary, indent=2)
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def speed_text(s: dict) -> str:
    """'1000 games in 45.2 s (22.1 games/s), after 93.4 s of start-up': playing speed apart
    from preparing the situation and loading or compiling the engine."""
    play = s.get("play_s", s["elapsed_s"])
    startup = s.get("startup_s") or 0.0
    return (f"{s['games']} games in {play:.1f} s ({s['games_per_s']} games/s), after {startup:.1f} s of start-up "
            f"(preparing the situation, loading or compiling the engine)")


def format_summary(s: dict) -> str:
    """The summary as a few lines of text: win chances with intervals, levels, draws, speed."""
    levels = next(iter(s["outcomes"].values()))["levels"].keys()
    head = f"{s['situation']} ({s['ruleset']}): {s['games']} games, seed {s['seed']}"
    if s.get("until_ci"):
        u = s["until_ci"]
        head += (f" (until every win interval is within ±{u['half_width']:g}: "
                 f"{'reached' if u['reached'] else 'stopped at --max-games ' + str(u['max_games'])})")
    # Written as --policy arguments, so a run can be repeated by copying them.
    pol = " ".join(f"{side}={p['name']}" + "".join(
        (":" if i == 0 else ",") + f"{k}={v:g}" for i, (k, v) in enumerate(p["params"].items()))
        for side, p in s["policies"].items())
    width = max(len(side) for side in s["outcomes"])
    lines = [head, f"policies: {pol}", "",
             f"{'':<{width}}  {'win':>6}  {'95% interval':<17}" + "".join(f"{lv:>10}" for lv in levels)]
    for side, o in s["outcomes"].items():
        lo, hi = o["ci95"]
        lines.append(f"{side:<{width}}  {_pct(o['win']):>6}  {f'[{_pct(lo)}, {_pct(hi)}]':<17}"
                     + "".join(f"{_pct(o['levels'][lv]):>10}" for lv in levels))
    lo, hi = s["draw_ci95"]
    lines.append(f"{'draw':<{width}}  {_pct(s['draw']):>6}  [{_pct(lo)}, {_pct(hi)}]")
    alt = s.get("alternative_levels")
    if alt and alt["games_differ"]:
        # The same winners, other levels: say so only where the reading changes something.
        n = alt["games_differ"]
        lines += ["", f"with {alt['reading']} the same winners, {n} game{'' if n == 1 else 's'} at another level:"]
        for side, shares in alt["levels"].items():
            lines.append(f"{side:<{width}}  {'':>6}  {'':<17}" + "".join(f"{_pct(shares[lv]):>10}" for lv in levels))
    if s.get("verdict"):
        lines += ["", sentence(s["verdict"]["text"])]
    if s.get("equilibrium"):
        lines.append("At equilibrium: " + sentence(s["equilibrium"]["verdict"]["text"]))
        lines.append(play_words(s["equilibrium"]["depends_on_play"]))
    lines += ["", f"mean turns {s['mean_turns']:g}; {speed_text(s)}"]
    return "\n".join(lines)
