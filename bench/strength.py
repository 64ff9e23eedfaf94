"""Strength check and balance table (issue 4): every built-in situation, heuristic against
heuristic, and the heuristic player against the random one from each seat.

    python bench/strength.py [--games N] [--seed S] [--workers K] [--out bench/strength.csv]

Four pairings per situation, all on the same game seeds: heuristic vs heuristic (the balance
table), heuristic vs random from each seat, and random vs random (the seat's baseline).  Some
cards are won by one seat whatever the players do (pb-09: the Germans win unless 21 Russian
units leave by the north edge), so "the heuristic beats random" is judged seat-fairly: from a
seat, the heuristic against the random opponent must do better than a random player in the same
seat against the same opponent on the same seeds.  "Better" is the seat's outcome score per game,
its victory level minus the opponent's (-3..3, docs/policies.md), compared pairwise: the mean
gain with a paired bootstrap interval, the games better / worse, and an exact sign test
(`simulator.stats.paired_score_gain`; the normal interval is wrong for differences that are
mostly 0, docs/policies.md "How strong").

Writes one CSV row per situation and prints a Markdown table for the README.  Win rates come
with 95 % Wilson intervals (simulator/stats.py).  The heuristic-against-heuristic games are also
audited for blunders (`balance audit`, simulator/rulesets/panzerblitz/audit.py, on the same seeds): the
mean count per game of each side goes into the CSV (`audit_<side>_<count>`) and a second table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simulator import registry  # noqa: E402
from simulator.audit import run_audit  # noqa: E402
from simulator.rulesets.panzerblitz.audit import COUNTS  # noqa: E402
from simulator.rulesets.panzerblitz.players.spec import parse_policy  # noqa: E402
from simulator.runner import run  # noqa: E402
from simulator.situation import builtin_situations, load_situation  # noqa: E402
from simulator.stats import gain_verdict, paired_score_gain, seat_score, wilson  # noqa: E402

LEVEL_RANKS = registry.ruleset("panzerblitz").levels.ranks  # the card's levels, none = 0 .. decisive = 3

PAIRINGS = ("hh", "h_a", "h_b", "rr")


def pct(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", default=str(ROOT / "bench" / "strength.csv"))
    ap.add_argument("--situations", default="", help="comma-separated ids (default: all built-in)")
    args = ap.parse_args()
    sids = args.situations.split(",") if args.situations else [p.stem for p in builtin_situations()]
    h, r = parse_policy("heuristic"), parse_policy("random")
    rows = []
    for sid in sids:
        sit = load_situation(sid)
        a, b = sit.ruleset.sides
        t0 = time.perf_counter()
        row: dict = {"situation": sid, "title": sit.title, "games": args.games, "seed": args.seed,
                     "side_a": a, "side_b": b}
        pols = {"hh": {a: h, b: h}, "h_a": {a: h, b: r}, "h_b": {a: r, b: h}, "rr": {a: r, b: r}}
        scores = {}
        for label in PAIRINGS:
            res = run(sit, args.games, args.seed, pols[label], workers=args.workers, progress=False)
            g = res.games.sort_values("game")
            won = g["winner"].value_counts()
            row[f"{label}_{a}"] = int(won.get(a, 0))
            row[f"{label}_{b}"] = int(won.get(b, 0))
            row[f"{label}_draw"] = int(won.get("draw", 0))
            row[f"{label}_games_per_s"] = round(res.games_per_s, 1)
            scores[label] = {s: seat_score(g, s, o, LEVEL_RANKS) for s, o in ((a, b), (b, a))}
        for label, seat in (("h_a", a), ("h_b", b)):
            g = paired_score_gain(scores[label][seat], scores["rr"][seat])
            row[f"{label}_score"] = round(float(scores[label][seat].mean()), 3)
            row[f"{label}_gain"], row[f"{label}_gain_lo"], row[f"{label}_gain_hi"] = (
                round(g["mean"], 3), round(g["lo"], 3), round(g["hi"], 3))
            row[f"{label}_better"], row[f"{label}_worse"] = g["better"], g["worse"]
            row[f"{label}_p_sign"] = round(g["p_sign"], 6)
            row[f"{label}_verdict"] = gain_verdict(g)
        _, audit = run_audit(sit, args.games, args.seed, pols["hh"], workers=args.workers)
        for _, x in audit.iterrows():
            for c in COUNTS:
                row[f"audit_{x.side}_{c}"] = x[f"{c}_per_game"]
        row["rr_score_a"] = round(float(scores["rr"][a].mean()), 3)
        row["rr_score_b"] = round(float(scores["rr"][b].mean()), 3)
        row["elapsed_s"] = round(time.perf_counter() - t0, 1)
        rows.append(row)
        print(f"{sid}: done in {row['elapsed_s']} s", file=sys.stderr, flush=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)  # partial results survive an interruption
    df = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    print(markdown(df))
    print()
    print(audit_markdown(df))
    return 0


def audit_markdown(df: pd.DataFrame) -> str:
    """Blunders per game of each side, heuristic against heuristic (the columns audit_*)."""
    out = ["| situation | side | " + " | ".join(c.replace("_", " ") for c in COUNTS) + " |",
           "|---|---|" + "---:|" * len(COUNTS)]
    for _, x in df.iterrows():
        for s in (x.side_a, x.side_b):
            out.append(f"| {x.situation} | {s} | " + " | ".join(f"{x.get(f'audit_{s}_{c}', float('nan')):.2f}"
                                                              for c in COUNTS) + " |")
    return "\n".join(out)


def markdown(df: pd.DataFrame) -> str:
    out = ["| situation | heuristic vs heuristic | draws | heuristic vs random, seat A: win (random in that seat) "
           "| score gain; games better/worse, sign test | heuristic vs random, seat B: win (random in that seat) "
           "| score gain; games better/worse, sign test |",
           "|---|---|---|---|---|---|---|"]
    for _, x in df.iterrows():
        a, b, n = x.side_a, x.side_b, int(x.games)
        gains = [f"{x[f'{k}_gain']:+.2f} [{x[f'{k}_gain_lo']:+.2f}, {x[f'{k}_gain_hi']:+.2f}]; "
                 f"{int(x[f'{k}_better'])}/{int(x[f'{k}_worse'])}, {x[f'{k}_verdict']}" for k in ("h_a", "h_b")]
        out.append(f"| {x.situation} {x.title} | {a} {pct(x[f'hh_{a}'], n)}; {b} {pct(x[f'hh_{b}'], n)} | "
                   f"{pct(x['hh_draw'], n)} | {a} {pct(x[f'h_a_{a}'], n)} ({pct(x[f'rr_{a}'], n)}) | {gains[0]} | "
                   f"{b} {pct(x[f'h_b_{b}'], n)} ({pct(x[f'rr_{b}'], n)}) | {gains[1]} |")
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
