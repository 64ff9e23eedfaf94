"""Strength check and balance table (issue 4): every built-in situation, heuristic against
heuristic, and the heuristic player against the random one from each seat.

    python bench/strength.py [--games N] [--seed S] [--workers K] [--out bench/strength.csv]

Writes one CSV row per situation and prints a Markdown table for the README.  Win rates come
with 95 % Wilson intervals (simulator/stats.py); the same seeds are used in every pairing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from policies.spec import parse_policy  # noqa: E402
from simulator.runner import run  # noqa: E402
from simulator.situation import builtin_situations, load_situation  # noqa: E402
from simulator.stats import wilson  # noqa: E402


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
        for label, pols in (("hh", {a: h, b: h}), ("h_a", {a: h, b: r}), ("h_b", {a: r, b: h})):
            res = run(sit, args.games, args.seed, pols, workers=args.workers, progress=False)
            won = res.games["winner"].value_counts()
            row[f"{label}_{a}"] = int(won.get(a, 0))
            row[f"{label}_{b}"] = int(won.get(b, 0))
            row[f"{label}_draw"] = int(won.get("draw", 0))
            row[f"{label}_games_per_s"] = round(res.games_per_s, 1)
        row["elapsed_s"] = round(time.perf_counter() - t0, 1)
        rows.append(row)
        print(f"{sid}: done in {row['elapsed_s']} s", file=sys.stderr, flush=True)
    df = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    n = args.games
    print("| situation | heuristic vs heuristic: side A wins | side B wins | draws | heuristic (A) beats random | "
          "heuristic (B) beats random |")
    print("|---|---|---|---|---|---|")
    for _, x in df.iterrows():
        a, b = x.side_a, x.side_b
        print(f"| {x.situation} {x.title} | {a} {pct(x[f'hh_{a}'], n)} | {b} {pct(x[f'hh_{b}'], n)} | "
              f"{pct(x['hh_draw'], n)} | {pct(x[f'h_a_{a}'], n)} | {pct(x[f'h_b_{b}'], n)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
