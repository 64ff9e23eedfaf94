"""The map renderer writes a plausible PNG, with and without counters."""

from __future__ import annotations

import struct

import pytest

from reports.mapview import draw_situation_map
from simulator.situation import load_situation

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def pb01():
    return load_situation("pb-01")


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_render_pb01(pb01, tmp_path):
    out = draw_situation_map(pb01, tmp_path / "maps" / "pb-01.png", dpi=60)
    assert out == tmp_path / "maps" / "pb-01.png" and out.exists()
    width, height = png_size(out)
    assert 500 < width < 60 * 41 and 500 < height < 60 * 41  # hexes at a readable size, capped
    assert height > width  # three boards stacked top to bottom
    assert [p.name for p in out.parent.iterdir()] == ["pb-01.png"]  # no temp file left behind


def test_render_with_counters(pb01, tmp_path):
    m = pb01.map
    hex_ = m.lookup("2G7")
    counters = [{"hex": hex_, "side": "german", "text": f"U{k}"} for k in range(5)]
    counters += [{"hex": m.lookup("1C9"), "side": "russian", "text": "T-34c"},
                 {"hex": 0, "side": "other", "text": "?"}]
    out = draw_situation_map(pb01, tmp_path / "counters.png", dpi=50, title="replay", counters=counters)
    assert png_size(out)[0] > 400
    with pytest.raises(ValueError):
        draw_situation_map(pb01, tmp_path / "bad.png", counters=[{"hex": m.n_hexes, "side": "german", "text": "x"}])
