"""Tuned players against the default, seat by seat (issue 18): for each situation and side,
`balance tune` against the default heuristic opponent, and the gain on fresh seeds.

    python bench/tune_seats.py [--situations pb-01,pb-04] [--budget 1200] [--games-per-trial 40]
                               [--fresh-games 300] [--seed 1] [--workers K] [--out bench/tune_seats.csv]

Writes one CSV row a seat (the gain in mean score with its paired 95 % interval, measured on
fresh games tuning never saw; the tuned and the starting player's scores there; the tuning
scores, which are biased up and only for reading) and the tuned policy files beside it
(bench/tuned/SITUATION-SIDE.toml), and prints a Markdown table.  Long: run it under `nice`.
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
from simulator.situation import builtin_situations, load_situation  # noqa: E402
from simulator.tune import tune  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--situations", default="", help="comma-separated ids (default: all built-in)")
    ap.add_argument("--sides", default="", help="comma-separated sides (default: both)")
    ap.add_argument("--budget", type=int, default=1200)
    ap.add_argument("--games-per-trial", type=int, default=40)
    ap.add_argument("--fresh-games", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", default=str(ROOT / "bench" / "tune_seats.csv"))
    args = ap.parse_args()
    sids = args.situations.split(",") if args.situations else [p.stem for p in builtin_situations()]
    out = Path(args.out)
    rows = pd.read_csv(out).to_dict("records") if out.exists() else []
    done = {(r["situation"], r["side"], r["budget"], r["seed"]) for r in rows}
    for sid in sids:
        sit = load_situation(sid)
        players = registry.ruleset(sit.ruleset.name).players
        base = players.parse(None, sit.side_names)
        for side in (args.sides.split(",") if args.sides else sit.side_names):
            if (sid, side, args.budget, args.seed) in done:
                continue
            other = next(s for s in sit.side_names if s != side)
            t0 = time.perf_counter()
            r = tune(sit, side, base[other], base[side], args.budget, args.games_per_trial, args.fresh_games,
                     args.seed, out.parent / "tuned" / f"{sid}-{side}.toml", workers=args.workers, progress=False)
            f = r["fresh"]
            rows.append({"situation": sid, "side": side, "budget": args.budget, "trials": r["trials"],
                         "games_per_trial": args.games_per_trial, "seed": args.seed, "fresh_games": f["games"],
                         "gain": round(f["gain"], 4), "gain_lo": round(f["ci95"][0], 4),
                         "gain_hi": round(f["ci95"][1], 4), "tuned_score": round(f["tuned_score"], 4),
                         "default_score": round(f["start_score"], 4),
                         "tuning_start": round(r["tuning"]["start_score"], 4),
                         "tuning_best": round(r["tuning"]["best_score"], 4),
                         "elapsed_s": round(time.perf_counter() - t0, 1)})
            print(f"{sid} {side}: gain {f['gain']:+.3f} [{f['ci95'][0]:+.3f}, {f['ci95'][1]:+.3f}] "
                  f"({rows[-1]['elapsed_s']} s)", file=sys.stderr, flush=True)
            pd.DataFrame(rows).to_csv(out, index=False)   # partial results survive an interruption
    print(markdown(pd.DataFrame(rows)))
    return 0


def markdown(df: pd.DataFrame) -> str:
    out = ["| situation | side | trials x games | fresh games | default score | tuned score | gain [95 %] | beats default |",
           "|---|---|---|---:|---:|---:|---|---|"]
    for _, x in df.iterrows():
        out.append(f"| {x.situation} | {x.side} | {x.trials} x {x.games_per_trial} | {x.fresh_games} | "
                   f"{x.default_score:+.2f} | {x.tuned_score:+.2f} | {x.gain:+.3f} [{x.gain_lo:+.3f}, {x.gain_hi:+.3f}] | "
                   f"{'yes' if x.gain_lo > 0 else 'no'} |")
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
