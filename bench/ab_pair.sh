#!/bin/sh
# One A/B pair: main's tree (a `git archive` copy, its own numba cache) then this tree, each
# playing the same games (bench/ab_games.py); run it a few times, alternating, under the same load.
#   bench/ab_pair.sh MAIN_COPY "pb-04 pb-10" 100
here=$(cd "$(dirname "$0")/.." && pwd)
main=$1; cards=$2; games=${3:-100}
PYTHONPATH=$main XDG_CACHE_HOME=$main.cache "$here/.venv/bin/python" "$here/bench/ab_games.py" $cards --games "$games"
PYTHONPATH=$here XDG_CACHE_HOME=$here.cache "$here/.venv/bin/python" "$here/bench/ab_games.py" $cards --games "$games"
