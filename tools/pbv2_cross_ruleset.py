"""The same classic card under the classic rules and under Panzer Blitz v2.0, side by side (issue 20 item 5).

    python tools/pbv2_cross_ruleset.py --games 200 --seed 1 --out out/cross        # plays both, writes the table
    python tools/pbv2_cross_ruleset.py --runs /tmp/runs --out out/cross            # reads runs already made

Each card is played by `balance run` twice: `pb-NN` (ruleset panzerblitz) and
`situations/panzerblitz-v2/classic/pb-NN.toml` (ruleset panzerblitz-v2), heuristic against
heuristic, the same seeds.  The two engines draw their dice differently and their games do not
correspond move for move, so the same seed does not make a pair: the comparison is UNPAIRED.  For
each side: its win chance under each ruleset with the Wilson interval, the difference (v2 minus
classic) with Newcombe's square-and-add interval for independent proportions (1998, method 10),
and Fisher's exact test, Holm-corrected over all the cards and sides.  Written: cross.csv
(tidy, one row a card x side) and cross.md (the table for a designer's report), via a temporary
directory moved into place.
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
from scipy.stats import fisher_exact

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from simulator.paired import holm  # noqa: E402
from simulator.stats import wilson  # noqa: E402

CLASSIC_V2 = ROOT / "situations" / "panzerblitz-v2" / "classic"


def unpaired_difference(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """p1 - p2 of two independent samples, with Newcombe's square-and-add (Wilson) interval."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return d, max(-1.0, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)), min(1.0, d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def play(card: str, games: int, seed: int, runs: Path) -> None:
    bal = str(Path(sys.executable).with_name("balance"))
    for name, sit in (("classic", card), ("v2", str(CLASSIC_V2 / f"{card}.toml"))):
        out = runs / f"{name}-{card}"
        subprocess.run([bal, "run", sit, "--games", str(games), "--seed", str(seed), "--out", str(out)],
                       check=True, capture_output=True)


def games_of(run: Path) -> pd.DataFrame:
    for name in ("games.parquet", "games.csv"):
        if (run / name).exists():
            return pd.read_parquet(run / name) if name.endswith("parquet") else pd.read_csv(run / name)
    raise SystemExit(f"{run}: no games table (expected games.parquet or games.csv from `balance run`)")


def table(cards: list[str], runs: Path) -> pd.DataFrame:
    rows = []
    for card in cards:
        c, v = games_of(runs / f"classic-{card}"), games_of(runs / f"v2-{card}")
        sides = sorted({col[len("level_"):] for col in c.columns if col.startswith("level_") and col != "level_alt"})
        for side in sides + ["draw"]:
            kc, nc = int((c.winner == side).sum()), len(c)
            kv, nv = int((v.winner == side).sum()), len(v)
            d, lo, hi = unpaired_difference(kv, nv, kc, nc)
            p = fisher_exact([[kv, nv - kv], [kc, nc - kc]])[1]
            rows.append({"card": card, "outcome": side, "classic": kc / nc, "classic_lo": wilson(kc, nc)[0],
                         "classic_hi": wilson(kc, nc)[1], "classic_games": nc, "v2": kv / nv, "v2_lo": wilson(kv, nv)[0],
                         "v2_hi": wilson(kv, nv)[1], "v2_games": nv, "difference": d, "diff_lo": lo, "diff_hi": hi,
                         "p_fisher": p})
    df = pd.DataFrame(rows)
    df["p_holm"] = holm(df.p_fisher.tolist())
    return df


def markdown(df: pd.DataFrame) -> str:
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    out = ["| card | outcome | classic rules | v2.0 rules | v2.0 − classic | p (Holm) |", "|---|---|---|---|---|---|"]
    for r in df.itertuples():
        out.append(f"| {r.card} | {r.outcome} | {pct(r.classic)} [{pct(r.classic_lo)}, {pct(r.classic_hi)}] | "
                   f"{pct(r.v2)} [{pct(r.v2_lo)}, {pct(r.v2_hi)}] | {100 * r.difference:+.1f} "
                   f"[{100 * r.diff_lo:+.1f}, {100 * r.diff_hi:+.1f}] | {r.p_holm:.3g} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", nargs="*", default=sorted(p.stem for p in CLASSIC_V2.glob("pb-*.toml")))
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=Path, help="read `balance run` outputs classic-pb-NN/ and v2-pb-NN/ here")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        runs = a.runs
        if runs is None:
            runs = Path(tmp) / "runs"
            for card in a.cards:
                play(card, a.games, a.seed, runs)
        df = table(a.cards, runs)
        stage = Path(tmp) / "out"
        stage.mkdir()
        df.to_csv(stage / "cross.csv", index=False)
        (stage / "cross.md").write_text(
            "Heuristic against heuristic (the default players of each ruleset); unpaired: the engines do not share "
            "games, only seeds.\n\n" + markdown(df))
        if a.out.exists():
            shutil.rmtree(a.out)
        a.out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(stage), str(a.out))
    print(markdown(df))
    return 0


if __name__ == "__main__":
    sys.exit(main())
