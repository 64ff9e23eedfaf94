"""Tuned players against the default, seat by seat (issue 18): for each situation and side,
`balance tune` against the default heuristic opponent, and the gain on fresh seeds.

    python bench/tune_seats.py [--situations pb-01,pb-04] [--budget 1200] [--games-per-trial 40]
                               [--fresh-games 300] [--holdout-games 0] [--seed 1] [--workers K]
                               [--out bench/tune_seats.csv]
    python bench/tune_seats.py --check-holdout 300      # afterwards: the hold-out check of every tuned seat

Writes one CSV row a seat (the gain in mean score with its paired 95 % interval, measured on
fresh games tuning never saw; the tuned and the starting player's scores there; the tuning
scores, which are biased up and only for reading) and the tuned policy files beside it
(bench/tuned/SITUATION-SIDE.toml), and prints a Markdown table.  Long: run it under `nice`.
A rerun resumes: seats already in the CSV (same budget and seed) are skipped.

`--check-holdout N` plays each seat's tuned player (its policy file) and the default on N games
of the hold-out seeds (`tune.HOLDOUT_OFFSET`: neither the tuning nor the fresh games) and adds
what `balance tune --holdout-games N` would have kept: the tuned player if it beats the default
there, else the default (gain 0).

**Where anything can be gained** (column `can_gain`): a seat whose default player already takes
the top seat score (the highest victory level with the opponent at none: +3 for PanzerBlitz) in
every fresh game cannot gain; every other seat can.  Read from the data (`default_score` is the
mean of per-game scores that cannot exceed the top, so it equals the top only when every game
does), not chosen by hand.
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
from simulator.tune import Opponents, holdout_gain, tune  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--situations", default="", help="comma-separated ids (default: all built-in)")
    ap.add_argument("--sides", default="", help="comma-separated sides (default: both)")
    ap.add_argument("--budget", type=int, default=1200)
    ap.add_argument("--games-per-trial", type=int, default=40)
    ap.add_argument("--fresh-games", type=int, default=300)
    ap.add_argument("--holdout-games", type=int, default=0,
                    help="tune with `balance tune`'s hold-out check (default 0: none)")
    ap.add_argument("--check-holdout", type=int, default=0, metavar="N",
                    help="do not tune: add the hold-out check on N games to every seat of the CSV")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", default=str(ROOT / "bench" / "tune_seats.csv"))
    args = ap.parse_args()
    out = Path(args.out)
    rows = pd.read_csv(out).to_dict("records") if out.exists() else []
    if args.check_holdout:
        rows = check_holdout(rows, args.check_holdout, out, args.workers)
        print(markdown(pd.DataFrame(rows)))
        return 0
    sids = args.situations.split(",") if args.situations else [p.stem for p in builtin_situations()]
    done = {(r["situation"], r["side"], r["budget"], r["seed"]) for r in rows}
    for sid in sids:
        sit = load_situation(sid)
        rs = registry.ruleset(sit.ruleset.name)
        base = rs.players.parse(None, sit.side_names)
        for side in (args.sides.split(",") if args.sides else sit.side_names):
            if (sid, side, args.budget, args.seed) in done:
                continue
            other = next(s for s in sit.side_names if s != side)
            t0 = time.perf_counter()
            r = tune(sit, side, base[other], base[side], args.budget, args.games_per_trial, args.fresh_games,
                     args.seed, out.parent / "tuned" / f"{sid}-{side}.toml", workers=args.workers, progress=False,
                     holdout_games=args.holdout_games)
            f = r["fresh"]
            row = {"situation": sid, "side": side, "budget": args.budget, "trials": r["trials"],
                   "games_per_trial": args.games_per_trial, "seed": args.seed, "fresh_games": f["games"],
                   "gain": round(f["gain"], 4), "gain_lo": round(f["ci95"][0], 4),
                   "gain_hi": round(f["ci95"][1], 4),
                   "tuned_score": round(f["tuned_score"], 4) if f["tuned_score"] is not None else None,
                   "default_score": round(f["start_score"], 4) if f["start_score"] is not None else None,
                   "tuning_start": round(r["tuning"]["start_score"], 4),
                   "tuning_best": round(r["tuning"]["best_score"], 4),
                   "elapsed_s": round(time.perf_counter() - t0, 1)}
            if r["holdout"]:
                row.update(_holdout_columns(r["holdout"], row))
            rows.append(row)
            print(f"{sid} {side}: gain {f['gain']:+.3f} [{f['ci95'][0]:+.3f}, {f['ci95'][1]:+.3f}] "
                  f"({row['elapsed_s']} s)", file=sys.stderr, flush=True)
            pd.DataFrame(rows).to_csv(out, index=False)   # partial results survive an interruption
    print(markdown(pd.DataFrame(rows)))
    return 0


def _holdout_columns(held: dict, row: dict) -> dict:
    keep = "tuned" if held["gain"] > 0 else "default"
    return {"holdout_games": held["games"], "holdout_gain": round(held["gain"], 4),
            "holdout_lo": round(held["ci95"][0], 4), "holdout_hi": round(held["ci95"][1], 4), "holdout_keeps": keep,
            "guarded_gain": row["gain"] if keep == "tuned" else 0.0,
            "guarded_lo": row["gain_lo"] if keep == "tuned" else 0.0,
            "guarded_hi": row["gain_hi"] if keep == "tuned" else 0.0}


def check_holdout(rows: list[dict], n_games: int, out: Path, workers: int | None) -> list[dict]:
    """The hold-out check of every seat's tuned policy file against the default (see the module's doc)."""
    from simulator.runner import player_pool

    for sid in dict.fromkeys(r["situation"] for r in rows):
        todo = [r for r in rows if r["situation"] == sid and r.get("holdout_games") != n_games]
        if not todo:
            continue
        sit = load_situation(sid)
        rs = registry.ruleset(sit.ruleset.name)
        base = rs.players.parse(None, sit.side_names)
        with player_pool(sit, base, workers) as pool:
            for r in todo:
                side = r["side"]
                other = next(s for s in sit.side_names if s != side)
                path = out.parent / "tuned" / f"{sid}-{side}.toml"
                tuned = rs.players.parse([f"{side}=@{path}"], sit.side_names)[side]
                t0 = time.perf_counter()
                held = holdout_gain(sit, side, tuned, base[side], Opponents([base[other]], [1.0]), n_games,
                                    int(r["seed"]), pool=pool)
                r.update(_holdout_columns(held, r))
                print(f"{sid} {side}: hold-out {held['gain']:+.3f} [{held['ci95'][0]:+.3f}, {held['ci95'][1]:+.3f}]"
                      f" keeps {r['holdout_keeps']} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)
                pd.DataFrame(rows).to_csv(out, index=False)
    return rows


def top_score(situation: str) -> int:
    """The highest seat score of the situation's ruleset: its top level's rank, the opponent at none."""
    return max(registry.ruleset(load_situation(situation).ruleset.name).levels.ranks.values())


def can_gain(x) -> bool:
    """Not already at the top seat score in every fresh game (see the module's doc)."""
    return bool(x.default_score < top_score(x.situation))


def holm(df: pd.DataFrame, alpha: float = 0.05) -> pd.Series:
    """Per seat, whether its gain stays above 0 under Holm's correction over the seats that can
    gain (two-sided normal p from the paired interval; a seat with no differing game has p = 1)."""
    from scipy.stats import norm

    se = (df.gain_hi - df.gain_lo) / (2 * 1.959964)
    z = (df.gain / se.where(se > 0)).fillna(0.0)
    p = pd.Series(2 * norm.sf(z.abs()), index=df.index)
    family = [i for i, x in df.iterrows() if can_gain(x)]
    out = pd.Series(False, index=df.index)
    for k, i in enumerate(sorted(family, key=lambda i: p[i])):
        if p[i] > alpha / (len(family) - k):
            break
        out[i] = bool(df.gain[i] > 0)
    return out


def markdown(df: pd.DataFrame) -> str:
    held = "holdout_keeps" in df.columns
    out = ["| situation | side | trials x games | tuning gain (biased up) | fresh games | default score | tuned score | "
           "gain [95 %] | can gain | beats default | after Holm |" + (" hold-out gain [95 %] | kept |" if held else ""),
           "|---|---|---|---:|---:|---:|---:|---|---|---|---|" + ("---|---|" if held else "")]
    corrected = holm(df)
    for _, x in df.iterrows():
        line = (f"| {x.situation} | {x.side} | {x.trials} x {x.games_per_trial} | "
                f"{x.tuning_best - x.tuning_start:+.3f} | {x.fresh_games} | "
                f"{x.default_score:+.2f} | {x.tuned_score:+.2f} | {x.gain:+.3f} [{x.gain_lo:+.3f}, {x.gain_hi:+.3f}] | "
                f"{'yes' if can_gain(x) else 'no'} | {'yes' if x.gain_lo > 0 else 'no'} | "
                f"{'yes' if corrected[_] else 'no'} |")
        if held:
            line += (f" {x.holdout_gain:+.3f} [{x.holdout_lo:+.3f}, {x.holdout_hi:+.3f}] | {x.holdout_keeps} |"
                     if pd.notna(x.get("holdout_keeps")) else " | |")
        out.append(line)
    sub = df[[can_gain(x) for _, x in df.iterrows()]]
    out.append("")
    out.append(f"Seats where anything can be gained: {len(sub)} of {len(df)}; the tuned player beats the default "
               f"on fresh games (95 % interval above 0) in {int((sub.gain_lo > 0).sum())} of them, in "
               f"{int(corrected[sub.index].sum())} after Holm's correction over those {len(sub)}.")
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
