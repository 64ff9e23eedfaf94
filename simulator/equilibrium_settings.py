"""`balance equilibrium`'s default budget and sizes, apart from simulator/equilibrium.py so that the
command line's parser reads them without importing the meta-game's solver, pandas and scipy
(every command builds the whole parser: a warm `balance run` paid ~0.4 CPU-s for them)."""

DEFAULTS = {"budget": 12_000, "cell_games": 200, "trials": 32, "games_per_trial": 50, "rounds": 3,
            "threshold": 0.1}
