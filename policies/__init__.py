"""AI players (policies): they choose among the legal actions the rules engine offers."""

import simulator  # noqa: F401  (sets up numba's cache before any kernel is compiled)
