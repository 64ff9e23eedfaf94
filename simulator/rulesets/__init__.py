"""Rulesets built into the tool, one package each (engine, rules, schemas, report hooks, players)."""
