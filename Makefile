# Every target creates the virtual environment on first use, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# numba's compiled kernels are cached under ~/.cache/wargame-balance/numba/<hash of the engine
# source> (simulator/_numba_cache.py), so reruns and CI on the same machine reuse them.
export MPLBACKEND ?= Agg

.PHONY: test test-slow demo bench lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow

demo: $(STAMP)
	$(BIN)/balance show pb-01 --out out/demo/pb-01-map.png
	@echo "demo: wrote out/demo/pb-01-map.png"

bench: $(STAMP)
	$(BIN)/python bench/bench_los.py

lint: $(STAMP)
	$(BIN)/ruff check simulator policies reports situations tests tools bench

clean:
	rm -rf $(VENV) .cache out build *.egg-info
