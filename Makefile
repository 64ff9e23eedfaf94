# Every target creates the virtual environment on first use, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# numba's compiled kernels are cached under ~/.cache/wargame-balance/numba/<hash of the engine
# source> (simulator/_numba_cache.py), so reruns and CI on the same machine reuse them.
export MPLBACKEND ?= Agg

.PHONY: test test-slow demo bench strength lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow

# The main job: 1,000 games of Situation 4, heuristic against heuristic, tables and summary.
demo: $(STAMP)
	$(BIN)/balance run pb-04 --games 1000 --seed 1 --out out/demo/pb-04
	$(BIN)/balance show pb-04 --out out/demo/pb-04-map.png
	@echo "demo: wrote out/demo/pb-04 (games, turns, losses, summary.json, report.html, charts/) and out/demo/pb-04-map.png"

# LOS tables (bench/los.csv), then the engine: games/s per situation on 1 and all workers, the
# floor, pure Python, memory, cold/warm start (bench/results.csv and .json; ~10 min on 2 cores).
BENCH_GAMES ?= 200
bench: $(STAMP)
	$(BIN)/python bench/bench_los.py
	$(BIN)/balance bench --games $(BENCH_GAMES) --out bench/results.csv

# Issue 4 strength check: heuristic vs heuristic and vs random on every situation (long).
strength: $(STAMP)
	$(BIN)/python bench/strength.py --games 100

lint: $(STAMP)
	$(BIN)/ruff check simulator policies reports situations tests tools bench

clean:
	rm -rf $(VENV) .cache out build *.egg-info
