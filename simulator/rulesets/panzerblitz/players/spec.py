"""PanzerBlitz's player catalogue: its random and heuristic players, as the command line and the
runner see them, built on the core's generic catalogue (policies/catalogue.py).

A policy is a name and a vector of plain numbers (`--policy german=heuristic:aggression=0.8`, or
`--policy german=@tuned.toml` for a policy file).  The kernels receive the name as a small
integer (`RANDOM`, `HEURISTIC`) and the parameters as a float64 row of `N_PARAMS`, in the order
of the player's kernel.  The heuristic player's parameters, with their defaults, ranges and
meanings, are data (heuristic.toml beside this file); its style variants are policy files in
styles/.  Reading `--policy`, policy files and parameter files, and checking them, is the
catalogue's; this module only declares PanzerBlitz's players and keeps the names the rest of the
ruleset reads (`parse_policy`, `parse_side_policies`, `POLICIES`, ...).
"""

from __future__ import annotations

from pathlib import Path

from policies.catalogue import Catalogue, Param, PlayerSpec, PlayerType, param_table
from simulator.rulesets.panzerblitz.players.heuristic import HEURISTIC, PARAM_NAMES
from simulator.rulesets.panzerblitz.players.random_play import RANDOM

HEURISTIC_FILE = Path(__file__).resolve().with_name("heuristic.toml")
# Style variants of a player (`balance equilibrium` puts them in its population): policy files.
STYLES_DIR = Path(__file__).resolve().with_name("styles")

HEURISTIC_PARAMS = param_table(HEURISTIC_FILE, PARAM_NAMES)

RANDOM_PARAMS = {
    "hold_fire": Param(0.25, "chance a unit holds its fire when it has a target", 0.0, 1.0),
    "stay_put": Param(0.10, "chance a unit does not move when it could", 0.0, 1.0),
}

PLAYERS = Catalogue([
    PlayerType("random", RANDOM, RANDOM_PARAMS, "any legal option, uniformly (with its chances of holding "
               "fire and staying put)"),
    PlayerType("heuristic", HEURISTIC, HEURISTIC_PARAMS, "scores the options it is given (docs/policies.md)"),
], default="heuristic", replay_default="random", doc="docs/policies.md", styles_dir=STYLES_DIR)

# A side's player as the runner carries it: the catalogue's spec.
PolicySpec = PlayerSpec
# name -> (kernel id, {parameter: Param}), parameters in kernel order.
POLICY_PARAMS: dict[str, tuple[int, dict[str, Param]]] = {
    name: (t.kernel_id, t.params) for name, t in PLAYERS.types.items()
}
# name -> (kernel id, {parameter: default}): what reports and older callers read.
POLICIES: dict[str, tuple[int, dict[str, float]]] = {
    name: (t.kernel_id, PLAYERS.defaults(name)) for name, t in PLAYERS.types.items()
}
# Width of the kernels' parameter rows: the longest policy's (no fixed cap).
N_PARAMS = PLAYERS.width


def parse_policy(text: str, where: str = "--policy") -> PolicySpec:
    """`NAME`, `NAME:KEY=VALUE[,KEY=VALUE…]` or `@FILE` (a policy file)."""
    return PLAYERS.spec(text, where)


def load_policy_file(path: Path) -> PolicySpec:
    """A policy file: `policy = "NAME"` and a `[params]` table of KEY = number (any subset)."""
    return PLAYERS.load_file(path)


def load_param_file(path: Path, names: tuple[str, ...]) -> dict[str, Param]:
    """The `[param.NAME]` tables of a policy's data file, in the kernel's order `names`."""
    return param_table(path, names)


def parse_side_policies(items: list[str] | None, sides: list[str], default: str = "heuristic") -> dict[str, PolicySpec]:
    """`--policy SIDE=SPEC` (or a bare SPEC for every side) into one spec per side."""
    return PLAYERS.parse(items, sides, default)


def param_space(name: str):
    """A policy's parameters with the range a tuner searches (heuristic.toml's min, max)."""
    return PLAYERS.space(name)


def styles(name: str) -> dict[str, dict[str, float]]:
    """The style variants of policy `name`: styles/STYLE.toml files of that policy."""
    return PLAYERS.styles(name)


def params_markdown(name: str = "heuristic") -> str:
    """The parameters table of docs/policies.md, made from the policy's data file."""
    return PLAYERS.markdown(name)
