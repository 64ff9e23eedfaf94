"""Monte Carlo balance analyzer for hex-and-counter wargames: the engine core."""

__version__ = "0.1.0"
