"""First Panzer Army: which reconstructed values move the balance most (issue 19, item 4).

Plays the baseline and one variant per reconstructed value (each at the low and high end of the
range docs/first-panzer-army/README.md gives it) on the same seeds with the default players,
plus the town and FL set (PLACE_VARIANTS: hexes of the prepared tables re-marked), and prints
a markdown table: mean Soviet VP with its 95 % t interval, the paired change against
the baseline (same seeds) with its 95 % interval, and the Soviet win / draw / German win shares
with Wilson intervals (FPA 4.3).  The variants are overrides, made from the data as it stands,
so the table follows any edit of the data:

    .venv/bin/python tools/fpa_sensitivity.py --games 200 [--out docs/first-panzer-army/sensitivity.md]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simulator.rulesets.first_panzer_army import consts as c  # noqa: E402
from simulator.rulesets.first_panzer_army.engine import play_games, prepare  # noqa: E402
from simulator.rulesets.first_panzer_army.players import PLAYERS  # noqa: E402
from simulator.situation import load_situation  # noqa: E402
from simulator.stats import wilson  # noqa: E402

SITUATION = "situations/first-panzer-army/kamenets-podolsky.toml"
UNITS = ROOT / "situations" / "rulesets" / "first-panzer-army" / "units.toml"


def scaled(factors: list[int], f: float) -> list[int]:
    """Each factor times f, rounded half up, at least 1 where it was."""
    return [max(1, math.floor(x * f + 0.5)) if x > 0 else 0 for x in factors]


def variants() -> dict[str, dict]:
    """Name -> overrides: the low and high end of each uncertain reconstructed value."""
    units = tomllib.loads(UNITS.read_text())["units"]
    sit = tomllib.loads((ROOT / SITUATION).read_text())
    german = next(s for s in sit["side"] if s["name"] == "german")
    relief = [r["turn"] for r in german.get("reinforcement", [])]
    divisions = [k for k, v in units.items() if v["side"] == "german" and v.get("size") == "XX"
                 and not v.get("garrison")]
    mobile = [k for k, v in units.items() if v["side"] == "soviet" and v.get("size") == "XXX"
              and v.get("type") in ("tank", "motorized_rifle")]
    rifle = [k for k, v in units.items() if v["side"] == "soviet" and v.get("size") == "XXX" and v.get("type") == "rifle"]

    def top(k: str, delta: int = 0, value: int | None = None) -> list[int]:
        a = list(units[k]["attack"])
        a[0] = value if value is not None else a[0] + delta
        return a

    out = {}
    for d, word in ((-1, "earlier"), (1, "later")):
        out[f"relief one turn {word}"] = {f"situation.side.german.reinforcement.{i}.turn": t + d
                                          for i, t in enumerate(relief)}
    for f in (0.75, 1.25):
        out[f"German division AF x{f}"] = {f"units.{k}.attack": scaled(units[k]["attack"], f) for k in divisions}
    for d in (-1, 1):
        out[f"Soviet tank/mech corps AF {d:+d}"] = {f"units.{k}.attack": top(k, d) for k in mobile}
    for v in (2, 4):
        out[f"Soviet rifle corps AF {v}"] = {f"units.{k}.attack": top(k, value=v) for k in rifle}
    out["German concentric 1R (OQ-FPA-3)"] = {"concentric.german_shift": 1}
    out["9 Mech DF 12 (OQ-FPA-5)"] = {"units.9-mc.defense": [12, units["9-mc"]["defense"][1]]}
    return out


BOARD = ROOT / "situations" / "rulesets" / "first-panzer-army" / "boards" / "board-fpa.json"

# The town and FL set (map.md, "Towns"): the map's VP sites are not in the text.  A variant
# re-marks hexes of the prepared tables (vp_hex, is_fl, terrain, start_control, vp_list) as the
# generator would mark them: a dropped town becomes clear terrain, a promoted place a town
# (1 VP) held by the Germans at the start, an FL demoted a town, a town promoted an FL (4 VP).
PLACE_VARIANTS = {
    "FLs: Ternopol only (Proskurov, Kamenets-Podolsky towns)": {"Proskurov": "town", "Kamenets-Podolsky": "town"},
    "FLs: + Vinnitsa (its 3 hexes)": {"Vinnitsa": "fortified_locality"},
    "3 western towns dropped (Gusyatin, Skala-Podolskaya, Gorodenka)":
        {"Gusyatin": "clear", "Skala-Podolskaya": "clear", "Gorodenka": "clear"},
    "3 western places made towns (Kopychintsy, Borshchev, Monastyriska)":
        {"Kopychintsy": "town", "Borshchev": "town", "Monastyriska": "town"},
}


def replace_places(prep, kinds: dict[str, str]):
    """`prep` with its tables re-marked per `kinds` (place name -> town / fortified_locality /
    clear), as PLACE_VARIANTS says."""
    places = json.loads(BOARD.read_text())["places"]
    vic = prep.situation.ruleset.data["victory"]
    t = prep.t
    vp_hex, is_fl, terrain, control = t.vp_hex.copy(), t.is_fl.copy(), t.terrain.copy(), t.start_control.copy()
    index = {lab: i for i, lab in enumerate(prep.labels)}
    for name, kind in kinds.items():
        for lab in places[name]["hexes"]:
            h = index[lab]
            if kind == "clear":
                vp_hex[h], is_fl[h], terrain[h], control[h] = 0, 0, c.CLEAR, -1
            else:
                fl = kind == "fortified_locality"
                vp_hex[h] = int(vic["fortified_locality_hex"] if fl else vic["town_hex"])
                is_fl[h] = 1 if fl else 0
                terrain[h] = c.FL if fl else c.TOWN
                if control[h] < 0:
                    control[h] = c.GERMAN      # OQ-FPA-9: every other town and FL starts German
    t = t._replace(vp_hex=vp_hex, is_fl=is_fl, terrain=terrain, start_control=control,
                   vp_list=np.flatnonzero(vp_hex > 0).astype(np.int64))
    return dataclasses.replace(prep, t=t)


def play(overrides: dict | None, seeds, places: dict | None = None) -> np.ndarray:
    sit = load_situation(SITUATION, overrides=overrides)
    prep = prepare(sit)
    if places:
        prep = replace_places(prep, places)
    players = {s: PLAYERS.spec(PLAYERS.default) for s in sit.side_names}
    games, _, _ = play_games(prep, seeds, players)
    return games["vp"].to_numpy()


def t_interval(x: np.ndarray) -> tuple[float, float, float]:
    m = float(np.mean(x))
    if len(x) < 2 or np.std(x) == 0:
        return m, m, m
    h = stats.t.ppf(0.975, len(x) - 1) * float(np.std(x, ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def shares(vp: np.ndarray) -> str:
    n = len(vp)
    cells = []
    for k in (int((vp >= 32).sum()), int(((vp >= 28) & (vp <= 31)).sum()), int((vp <= 27).sum())):
        lo, hi = wilson(k, n)
        cells.append(f"{100 * k / n:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}]")
    return " | ".join(cells)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    seeds = list(range(args.seed, args.seed + args.games))
    t0 = time.time()
    base = play(None, seeds)
    m, lo, hi = t_interval(base)
    rows = [f"| baseline (the data as they stand) | {m:.1f} [{lo:.1f}, {hi:.1f}] | — | {shares(base)} |"]
    effects = []
    runs = [(name, sets, None) for name, sets in variants().items()]
    runs += [(name, None, kinds) for name, kinds in PLACE_VARIANTS.items()]
    for name, sets, kinds in runs:
        vp = play(sets, seeds, kinds)
        m, lo, hi = t_interval(vp)
        d, dlo, dhi = t_interval(vp - base)
        effects.append((abs(d), f"| {name} | {m:.1f} [{lo:.1f}, {hi:.1f}] | {d:+.1f} [{dlo:+.1f}, {dhi:+.1f}] | "
                                f"{shares(vp)} |"))
        print(f"{name}: {m:.1f} ({d:+.1f})", file=sys.stderr, flush=True)
    rows += [r for _, r in sorted(effects, key=lambda e: -e[0])]
    head = [f"Heuristic v heuristic (the default players on both sides), seeds {seeds[0]}-{seeds[-1]}, "
            f"{args.games} games a row, the same seeds in every row ({time.time() - t0:.0f} s).", "",
            "| reconstructed value | mean Soviet VP [95 %] | change v baseline, paired [95 %] | Soviet win | draw | "
            "German win |", "|---|---|---|---|---|---|"]
    text = "\n".join(head + rows) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
