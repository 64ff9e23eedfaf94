"""`balance suggest`: the designer's usual levers, tried one at a time, to bring a situation into balance.

Balanced here means what the report's verdict means (simulator/verdict.py): D, the first side's
minus the second side's chance of winning, lies within ±5 points.  A change "brings the
situation within ±5 points" when D's 95 % interval (Newcombe's paired interval, both chances
come from the same games) lies inside [-5, +5] points; it "overlaps" the band when the interval
reaches into it without lying inside it.

Two stages, so that the figures reported are not the lucky ones picked out of many:
1. screening: the baseline and every candidate are played on `games` games with `seed`, and
   the candidates whose interval reaches the band are ranked by |D|;
2. confirmation: the best `confirm` of them and the baseline are played again on
   `confirm_games` games with a different seed (`confirm_seed`), whose games are independent
   of the screening games.  Only these confirmation figures are reported: as suggestions when
   D's interval lies inside or overlaps the band, as "not confirmed" when it misses it.

The levers: the number of turns (±1, ±2), here for every ruleset; the others are the ruleset's
to make (`Ruleset.levers`), for PanzerBlitz (simulator/rulesets/panzerblitz/levers.py) each victory
threshold of each level one step easier and one step harder and one unit more and one unit fewer
of each unit type of the stronger side.  A candidate the situation checks reject (levels out of
order, stacking) is skipped and listed with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from simulator import registry
from simulator.errors import DataError, DataErrors
from simulator.experiments import describe_policies
from simulator.runner import run
from simulator.situation import Situation, load_situation
from simulator.stats import paired_difference, wilson, win_difference
from simulator.verdict import BALANCED_POINTS, from_winners, players_phrase, sentence

BAND_POINTS = BALANCED_POINTS
CONFIRM_SEED_OFFSET = 1000  # default confirmation seed: --seed + this (any other seed is as good)


@dataclass(frozen=True)
class Candidate:
    lever: str          # "turns", "threshold" or "units"
    key: str            # the override key
    value: object       # its new value
    old: object         # its value in the baseline
    size: int           # how big a change: 1 for one step, 2 for two turns
    description: str

    def as_dict(self) -> dict:
        return {"lever": self.lever, "key": self.key, "value": self.value, "from": self.old, "size": self.size,
                "description": self.description}


def turn_candidates(sit: Situation) -> list[Candidate]:
    out = []
    for d in (-1, 1, -2, 2):
        t = sit.turns + d
        if t >= 1:
            out.append(Candidate("turns", "situation.turns", t, sit.turns, abs(d),
                                 f"{t} turns instead of {sit.turns}"))
    return out


def band(lo: float, hi: float, points: float = BAND_POINTS) -> str:
    """'inside' the ±points band, 'overlaps' it, or 'outside' it (lo, hi as probabilities)."""
    b = points / 100.0
    if -b <= lo and hi <= b:
        return "inside"
    if hi < -b or lo > b:
        return "outside"
    return "overlaps"


def figures(winner, sides: list[str], players: str = "") -> dict:
    """Win chances with Wilson intervals and D (first minus second) with Newcombe's interval, and
    the verdict in words when the players are named."""
    n = len(winner)
    wins = {s: int((winner == s).sum()) for s in sides}
    out = {"sides": {s: {"wins": k, "win": k / n, "ci95": list(wilson(k, n))} for s, k in wins.items()},
           "draw": int((winner == "draw").sum()) / n}
    d, lo, hi = win_difference(wins[sides[0]], wins[sides[1]], n)
    out.update(difference=d, ci95=[lo, hi], band=band(lo, hi))
    if players:
        out["verdict"] = from_winners(winner, sides, players).as_dict()
    return out


def suggest(situation: str, n_games: int, seed: int, policies: dict, base_sets: dict | None = None,
            confirm: int = 5, confirm_games: int | None = None, confirm_seed: int | None = None,
            levers: tuple[str, ...] = ("turns", "threshold", "units"), workers: int | None = None,
            progress: bool = False, log: Callable[[str], None] = lambda line: None,
            cluster: str | None = None, robust=None) -> dict:
    """`robust`: the path of an equilibrium run: every run (screening and confirmation) is played
    by its equilibrium mixtures instead of `policies`, so a fix is one that holds under them."""
    base_sets = dict(base_sets or {})
    confirm_games = confirm_games or 2 * n_games
    confirm_seed = seed + CONFIRM_SEED_OFFSET if confirm_seed is None else confirm_seed
    if confirm_seed == seed:
        raise DataError("balance suggest", "--confirm-seed", f"got {confirm_seed}, the screening seed",
                        "a seed different from --seed, so that the confirmation games are new games")
    if confirm < 1:
        raise DataError("balance suggest", "--confirm", f"got {confirm}", "a whole number >= 1")
    base = load_situation(situation, base_sets)
    sides = list(base.side_names)
    if len(sides) != 2:
        raise DataError(str(base.path), "side", f"{len(sides)} sides", "two sides (the balance band compares two)")

    players = describe_policies(policies, sides)
    phrase = players_phrase(players)
    mixture = None
    if robust is not None:
        from simulator.equilibrium import load_mixture, run_mixture

        mixture = load_mixture(robust, base)
        phrase, players = mixture.phrase, {"equilibrium": mixture.source}

    def play(sit: Situation, games: int, s: int):
        if mixture is not None:
            return run_mixture(sit, games, s, mixture, workers=workers, progress=progress, cluster=cluster).winners()
        res = run(sit, games, s, policies, workers=workers, progress=progress, cluster=cluster)
        return res.winners()

    log(f"screening: baseline, {n_games} games, seed {seed}")
    base_screen = play(base, n_games, seed)
    screen_fig = figures(base_screen, sides, phrase)
    wins = [screen_fig["sides"][s]["wins"] for s in sides]
    stronger = sides[0] if wins[0] >= wins[1] else sides[1]

    candidates: list[Candidate] = []
    if "turns" in levers:
        candidates += turn_candidates(base)
    rs = registry.ruleset(base.ruleset.name)
    for lever in levers:
        if lever != "turns":
            candidates += rs.levers(base, lever, stronger)
    usable, skipped = [], []
    for c in candidates:
        try:
            usable.append((c, load_situation(situation, {**base_sets, c.key: c.value})))
        except (DataError, DataErrors) as exc:
            first = exc.errors[0] if isinstance(exc, DataErrors) else exc
            skipped.append({**c.as_dict(), "reason": f"{first.field}: {first.problem}"})

    screening = []
    for i, (c, sit) in enumerate(usable):
        log(f"screening {i + 1}/{len(usable)}: {c.description}")
        fig = figures(play(sit, n_games, seed), sides)
        screening.append({**c.as_dict(), "difference": fig["difference"], "ci95": fig["ci95"], "band": fig["band"],
                          "promoted": False})
    reachable = [k for k, s in enumerate(screening) if s["band"] != "outside"]
    reachable.sort(key=lambda k: (abs(screening[k]["difference"]), screening[k]["size"]))
    promoted = reachable[:confirm]
    for k in promoted:
        screening[k]["promoted"] = True

    suggestions = []
    base_confirm = None
    if promoted:
        log(f"confirmation: baseline, {confirm_games} games, seed {confirm_seed}")
        base_confirm = play(base, confirm_games, confirm_seed)
        for j, k in enumerate(promoted):
            c, sit = usable[k]
            log(f"confirmation {j + 1}/{len(promoted)}: {c.description}")
            winner = play(sit, confirm_games, confirm_seed)
            fig = figures(winner, sides, phrase)
            # The change against the baseline in the first side's chance, on the same confirmation seeds.
            first = sides[0]
            b, v = base_confirm == first, winner == first
            a_, b_, c_, d_ = (int((b & v).sum()), int((b & ~v).sum()), int((~b & v).sum()), int((~b & ~v).sum()))
            ch, lo, hi = paired_difference(a_, b_, c_, d_)
            suggestions.append({**c.as_dict(), **fig, "change": {"side": first, "change": ch, "ci95": [lo, hi]}})
    rank = {"inside": 0, "overlaps": 1, "outside": 2}
    suggestions.sort(key=lambda s: (rank[s["band"]], s["size"], abs(s["difference"])))
    # Promising in screening but missing the band on the new games: not suggestions.
    not_confirmed = [s for s in suggestions if s["band"] == "outside"]
    suggestions = [s for s in suggestions if s["band"] != "outside"]
    return {
        "situation": base.id, "games": n_games, "seed": seed, "confirm_games": confirm_games,
        "confirm_seed": confirm_seed, "sides": sides, "policies": players,
        "overrides": base_sets, "band_points": BAND_POINTS, "levers": list(levers), "stronger_side": stronger,
        "baseline": {"screening": screen_fig,
                     "confirmation": figures(base_confirm, sides, phrase) if base_confirm is not None else None},
        "skipped": skipped, "screening": screening, "suggestions": suggestions, "not_confirmed": not_confirmed,
    }


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def format_suggest(r: dict) -> str:
    first, second = r["sides"]
    lines = [f"{r['situation']}: {len(r['screening'])} one-step changes screened on {r['games']} games (seed "
             f"{r['seed']}), the best {sum(s['promoted'] for s in r['screening'])} confirmed on {r['confirm_games']} "
             f"new games (seed {r['confirm_seed']})",
             f"D = P({first} wins) - P({second} wins), in points, with its 95 % interval; "
             f"balanced = the whole interval within ±{r['band_points']:g} points", ""]
    bc = r["baseline"]["confirmation"] or r["baseline"]["screening"]
    which = "confirmation" if r["baseline"]["confirmation"] else "screening"
    lines.append(f"baseline ({which} games): D {_pts(bc['difference'])} [{_pts(bc['ci95'][0])}, "
                 f"{_pts(bc['ci95'][1])}] ({bc['band']} the band); stronger side: {r['stronger_side']}")
    if bc.get("verdict"):
        lines.append(f"baseline verdict: {sentence(bc['verdict']['text'])}")
    if not r["suggestions"]:
        where = "on the confirmation games" if r["not_confirmed"] else "in the screening games"
        lines += ["", f"no single change tried brings D's interval to within ±{r['band_points']:g} points {where}"]
    else:
        lines += ["", f"{'change':<64} {'D, points [95% CI]':<24} {'band':<9} "
                      f"{first + ' win':>12} {second + ' win':>12}"]
        for s in r["suggestions"]:
            d = f"{_pts(s['difference'])} [{_pts(s['ci95'][0])}, {_pts(s['ci95'][1])}]"
            w1, w2 = (s["sides"][x] for x in (first, second))
            lines.append(f"{s['description'][:64]:<64} {d:<24} {s['band']:<9} "
                         f"{100 * w1['win']:>11.1f}% {100 * w2['win']:>11.1f}%")
            if s.get("verdict"):
                lines.append(f"    {sentence(s['verdict']['text'])}")
        lines += ["", "band: inside = the interval lies within the band (a confirmed fix); overlaps = it reaches "
                      "into the band but is not shown to lie in it (more games needed); outside = not a fix",
                  "to apply one: --set KEY=VALUE, e.g. " + next(f"--set {s['key']}={s['value']!r}"
                                                               for s in r["suggestions"])]
    for s in r["not_confirmed"]:
        lines.append(f"not confirmed on the new games: {s['description']}: D {_pts(s['difference'])} "
                     f"[{_pts(s['ci95'][0])}, {_pts(s['ci95'][1])}]")
    if r["skipped"]:
        lines += ["", f"{len(r['skipped'])} change(s) skipped because the situation checks reject them, e.g. "
                      f"{r['skipped'][0]['description']}: {r['skipped'][0]['reason']}"]
    return "\n".join(lines)
