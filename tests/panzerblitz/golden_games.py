"""Fingerprints of whole games, to prove that a speed-up changed no game's result.

For every built-in situation, seeds 0..4, heuristic against heuristic and random against
random: a hash of the event log (every set-up, move, attack and die roll, in order) and the
outcome.  `tests/panzerblitz/data/golden_games.json` holds them as recorded before the engine was
optimised; tests/panzerblitz/test_golden_games.py replays the games and compares.

Regenerate only when a game result is meant to change (a rule fix), never for a speed-up:
    .venv/bin/python -m tests.panzerblitz.golden_games --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from simulator.rulesets.panzerblitz.batch import prepare
from simulator.rulesets.panzerblitz.replay import GameRecord, play
from simulator.situation import builtin_situations, load_situation

GOLDEN = Path(__file__).resolve().parent / "data" / "golden_games.json"
SEEDS = range(5)
PAIRINGS = (("heuristic", "heuristic"), ("random", "random"))


def fingerprint(rec: GameRecord) -> dict:
    o = rec.outcome
    return {
        "events": hashlib.sha256(rec.events.tobytes()).hexdigest()[:24],
        "n_events": int(rec.events.shape[0]),
        "winner": o.winner or "draw",
        "level": o.level,
        "values": {s: float(v) for s, v in sorted(o.values.items())},
    }


def key(sid: str, pairing: tuple[str, str], seed: int) -> str:
    return f"{sid}/{pairing[0]}-{pairing[1]}/{seed}"


def situation_fingerprints(sid: str) -> dict[str, dict]:
    t = prepare(load_situation(sid))
    return {key(sid, p, seed): fingerprint(play(t, seed, p)) for p in PAIRINGS for seed in SEEDS}


def all_fingerprints() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path in builtin_situations():
        out.update(situation_fingerprints(path.stem))
    return out


if __name__ == "__main__":
    if "--write" not in sys.argv:
        raise SystemExit("usage: python -m tests.panzerblitz.golden_games --write   (overwrites tests/panzerblitz/data/golden_games.json)")
    GOLDEN.write_text(json.dumps(all_fingerprints(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
