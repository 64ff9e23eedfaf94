"""Tests of the core: hex grid, LOS, situations, runner, statistics, reports, experiments, tuning,
Dask, decisions, the ruleset boundary and the toy ruleset that proves it."""
