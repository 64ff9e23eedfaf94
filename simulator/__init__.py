"""Monte Carlo balance analyzer for hex-and-counter wargames: the engine core."""

from simulator._numba_cache import configure as _configure_numba_cache

_configure_numba_cache()

__version__ = "0.1.0"
