"""First Panzer Army (Decision Games 2019): the Kamenets-Podolsky pocket, March-April 1944.

docs/first-panzer-army/engine.md describes the package; `ruleset.py` holds `RULESET`.
"""
