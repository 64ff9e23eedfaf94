"""Panzer Blitz series rules v2.0 (Hill of Death): ruleset `panzerblitz-v2` (issue 20).

docs/panzerblitz-v2/engine.md is the design; rule cases are cited PB2-<case>
(docs/panzerblitz-v2/rules-digest.md)."""
