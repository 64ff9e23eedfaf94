"""Every rule ID of the digest is named by a test or accounted for in docs/rulings.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IDS = [line.strip() for line in (ROOT / "docs" / "rule-ids.txt").read_text().splitlines() if line.strip()]


def _tests_text() -> str:
    return " ".join(p.read_text() for p in (ROOT / "tests").rglob("*.py") if p.name != "test_rule_coverage.py")


def _named(rule: str, text: str) -> bool:
    pattern = re.escape(rule).replace(r"\-", "[-_]") + r"(?![0-9])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _table() -> dict[str, str]:
    md = (ROOT / "docs" / "rulings.md").read_text()
    section = md.split("## Rule coverage", 1)[1]
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^\| (PB-[A-Z0-9-]+) \| ([^|]+)\|", section, re.M)}


def test_every_rule_is_tested_or_listed():
    text = _tests_text()
    table = _table()
    missing = [r for r in IDS if not _named(r, text) and r not in table]
    assert not missing, f"rules neither tested nor listed in docs/rulings.md: {missing}"


def test_the_table_lists_no_rule_that_now_has_a_test():
    text = _tests_text()
    stale = [r for r, status in _table().items() if _named(r, text)]
    assert not stale, f"these rules have tests now; take them out of the table in docs/rulings.md: {stale}"
