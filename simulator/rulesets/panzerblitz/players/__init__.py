"""PanzerBlitz's players: the heuristic (heuristic.py, its parameters heuristic.toml, its reading of
the situation goals.py, its style variants styles/), the random player's answers (random_play.py),
the player catalogue `--policy` reads (spec.py) and the blunder audit's thresholds (audit.toml).
The engine asks them only through dispatch.py; they read the rules only through for_players.py."""
