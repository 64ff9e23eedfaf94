"""The core never imports a ruleset (issue 17, DEVELOPERS.md "the core never imports a ruleset").

The core is simulator/*.py (not the ruleset packages of simulator/rulesets/), reports/*.py and
policies/*.py (what is generic to every ruleset's players; a ruleset's own players live in its
package, PanzerBlitz's in simulator/rulesets/panzerblitz/players/).  No import statement
anywhere in a core module, at the top or inside a function, may name a ruleset's module: the
core reaches a ruleset only by name, through simulator/registry.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Modules that belong to a ruleset: its rules, its data readers, its players.
RULESET_MODULES = ("simulator.rulesets", "tests.toy_ruleset")


def core_modules() -> list[Path]:
    files = sorted((ROOT / "simulator").glob("*.py")) + sorted((ROOT / "reports").glob("*.py"))
    return [*files, *sorted((ROOT / "policies").glob("*.py"))]


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in the file, relative imports resolved."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return out


def crosses(module: str) -> bool:
    return any(module == r or module.startswith(r + ".") for r in RULESET_MODULES)


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_module_imports_no_ruleset(path):
    bad = [f"line {line}: {module}" for line, module in imported(path) if crosses(module)]
    assert not bad, f"{path.relative_to(ROOT)} imports a ruleset's module: {bad}"


def test_the_scan_sees_lazy_and_relative_imports(tmp_path):
    probe = ROOT / "simulator" / "_probe_for_test.py"
    try:
        probe.write_text("def f():\n    from simulator.rulesets.panzerblitz import rules\n    from .rulesets.panzerblitz.state import X\n"
                         "import simulator.rulesets.panzerblitz.players.spec\n")
        found = [m for _, m in imported(probe) if crosses(m)]
        assert {"simulator.rulesets.panzerblitz", "simulator.rulesets.panzerblitz.state", "simulator.rulesets.panzerblitz.players.spec"} <= set(found)
    finally:
        probe.unlink()


def test_the_registry_names_rulesets_by_module_path_only():
    from simulator import registry

    assert registry.BUILT_IN == {"panzerblitz": "simulator.rulesets.panzerblitz.ruleset",
                                 "first-panzer-army": "simulator.rulesets.first_panzer_army.ruleset",
                                 "panzerblitz-v2": "simulator.rulesets.panzerblitz_v2.ruleset"}
    assert registry.data_only() == []


def test_both_rulesets_have_the_whole_interface():
    """Every attribute and method of simulator.api.Ruleset and of its parts, on PanzerBlitz and
    on the toy (a missing one would fail only when some command first needs it)."""
    from simulator import api, registry
    from tests.toy_ruleset import NAME, register

    register()
    try:
        for name in ("panzerblitz", "panzerblitz-v2", NAME):
            rs = registry.ruleset(name)
            assert isinstance(rs, api.Ruleset), name
            assert isinstance(rs.schema, api.SituationSchema) and isinstance(rs.players, api.Players), name
            assert isinstance(rs.report, api.ReportHooks), name
    finally:
        registry.unregister(NAME)
