"""The maps of a replayed game (`balance replay --maps DIR`): one picture a frame the ruleset's
replay gives (PanzerBlitz: one a player-turn), with its units drawn as counters."""

from __future__ import annotations

from pathlib import Path

from reports.mapview import draw_situation_map


def draw_replay_maps(replay, situation, out_dir: Path) -> list[Path]:
    """Write `<frame name>.png` for each of the replay's frames; returns the paths."""
    paths = []
    for frame in replay.frames():
        counters = [{"hex": c.hex, "side": c.side, "text": c.text} for c in frame.counters]
        paths.append(draw_situation_map(situation, Path(out_dir) / f"{frame.name}.png", title=frame.title,
                                        counters=counters))
    return paths
