"""Rule-change experiments: a baseline and variants played on the same game seeds, compared pairwise.

Game i of every run uses seed `game_seed(seed, i)`, so baseline and variant games pair up by
index (common random numbers).  A changed rule makes the paired games diverge after the change;
the paired test stays valid, it is only less tightened.
"""

from __future__ import annotations

from simulator.paired import holm, mcnemar_exact, paired_table
from simulator.runner import run
from simulator.situation import load_situation
from simulator.stats import paired_difference, wilson
from simulator.verdict import from_winners, players_phrase, sentence


def _wins(result, side: str):
    return result.winners() == side


def compare(situation: str, variants: dict[str, dict], n_games: int, seed: int, policies: dict,
            base_sets: dict | None = None, workers: int | None = None, progress: bool = False,
            cluster: str | None = None) -> dict:
    """Play the baseline and each variant (a dict of overrides on top of `base_sets`) on the same seeds.

    Returns, per variant and side, the change in win probability (variant minus baseline) with
    Newcombe's paired interval, the exact McNemar p-value and its Holm-adjusted value.  Holm's
    correction runs over every (variant, side) pair reported, together.
    """
    base_sets = dict(base_sets or {})
    base_sit = load_situation(situation, base_sets)
    sides = list(base_sit.side_names)
    base = run(base_sit, n_games, seed, policies, workers=workers, progress=progress, cluster=cluster)
    base_wins = {s: _wins(base, s) for s in sides}
    players = describe_policies(policies, sides)
    phrase = players_phrase(players)
    out = {"situation": base_sit.id, "games": n_games, "seed": seed, "sides": sides,
           "policies": players, "overrides": base_sets,
           "baseline": {s: _win_figure(base_wins[s]) for s in sides}, "variants": {}}
    if len(sides) == 2:
        out["verdict"] = from_winners(base.winners(), sides, phrase).as_dict()
    tests = []
    for name, sets in variants.items():
        sit = load_situation(situation, {**base_sets, **sets})
        res = run(sit, n_games, seed, policies, workers=workers, progress=progress, cluster=cluster)
        entry = {"overrides": sets, "sides": {}}
        if len(sides) == 2:
            entry["verdict"] = from_winners(res.winners(), sides, phrase).as_dict()
        for s in sides:
            wins = _wins(res, s)
            a, b, c, d = paired_table(base_wins[s], wins)
            diff, lo, hi = paired_difference(a, b, c, d)
            entry["sides"][s] = {"win": _win_figure(wins), "change": diff, "ci95": [lo, hi],
                                 "table": {"both": a, "baseline_only": b, "variant_only": c, "neither": d},
                                 "p_value": mcnemar_exact(b, c)}
            tests.append(entry["sides"][s])
        out["variants"][name] = entry
    for t, adj in zip(tests, holm([t["p_value"] for t in tests]), strict=True):
        t["p_holm"] = adj
        t["significant"] = adj < 0.05
    return out


def _win_figure(wins) -> dict:
    k, n = int(wins.sum()), len(wins)
    lo, hi = wilson(k, n)
    return {"win": k / n, "ci95": [lo, hi]}


def describe_policies(policies: dict, sides: list[str]) -> dict:
    """The players as the run summary records them: name, the parameters changed from their
    defaults, and the policy file of a tuned player."""
    from simulator.summary import describe_player

    return {s: describe_player(policies[s]) for s in sides}


def format_p(p: float) -> str:
    """A p-value to read: four decimals, or powers of ten below 0.0001 (not a flat 0.0000)."""
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


INTERVAL_ONLY_NOTE = (
    "the 95 % interval excludes 0 but the change is not significant: the interval is this line's "
    "alone, while Holm's p is corrected for every line of the table (and the exact McNemar test, "
    "on the few games whose result changed, is the more cautious of the two); a hint to confirm "
    "with more games, not a shown effect")


def interval_only(e: dict) -> bool:
    """A line whose own interval excludes 0 while its Holm-adjusted p is not below 0.05."""
    lo, hi = e["ci95"]
    return (lo > 0 or hi < 0) and not e["significant"]


def significance(e: dict) -> str:
    return "yes" if e["significant"] else ("no*" if interval_only(e) else "no")


def format_compare(result: dict) -> str:
    """The comparison as a table for people: one line per variant and side."""
    sides = result["sides"]
    lines = [f"{result['situation']}: baseline and {len(result['variants'])} variant(s), {result['games']} games each, "
             f"seed {result['seed']} (game i of every run is played on the same seed)"]
    if result["overrides"]:
        lines.append(f"all runs with: {', '.join(f'{k}={v!r}' for k, v in result['overrides'].items())}")
    lines.append("")
    width = max([len("variant"), *(len(n) for n in result["variants"])])
    sw = max(len(s) for s in sides)
    lines.append(f"{'variant':<{width}}  {'side':<{sw}}  {'baseline':>8}  {'variant':>8}  "
                 f"{'change, points [95% CI]':<26}{'p':>9}{'Holm p':>9}  significant")
    for name, v in result["variants"].items():
        for s in sides:
            e = v["sides"][s]
            lo, hi = e["ci95"]
            change = f"{_pts(e['change'])} [{_pts(lo)}, {_pts(hi)}]"
            lines.append(f"{name:<{width}}  {s:<{sw}}  {100 * result['baseline'][s]['win']:>7.1f}%  "
                         f"{100 * e['win']['win']:>7.1f}%  {change:<26}{format_p(e['p_value']):>9}{format_p(e['p_holm']):>9}  "
                         f"{significance(e)}")
    lines += ["", "change = variant minus baseline win probability; p = exact McNemar test on the paired games; "
              "Holm p = adjusted over every line above; significant = Holm p < 0.05"]
    if any(interval_only(v["sides"][s]) for v in result["variants"].values() for s in sides):
        lines.append(f"* {INTERVAL_ONLY_NOTE}")
    for name, v in result["variants"].items():
        lines.append(f"  {name}: {', '.join(f'{k}={val!r}' for k, val in v['overrides'].items())}")
    if result.get("verdict"):
        lines += ["", "verdicts:", f"  baseline: {sentence(result['verdict']['text'])}"]
        lines += [f"  {name}: {sentence(v['verdict']['text'])}" for name, v in result["variants"].items()]
    return "\n".join(lines)
