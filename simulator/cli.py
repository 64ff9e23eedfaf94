"""The `balance` command line: list, validate and show situations; line of sight; play games; benchmark."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from simulator import __version__
from simulator.cluster import add_cluster_options, cluster_from_args, shared_cluster
from simulator.errors import DataError, DataErrors


def cmd_list(args: argparse.Namespace) -> int:
    from simulator import registry
    from simulator.ruleset import read_toml
    from simulator.situation import SITUATIONS_DIR, builtin_situations, ruleset_situations

    rows, waiting = [], []
    for path in builtin_situations() + ruleset_situations():
        doc = read_toml(path)
        # A situation in a ruleset's own folder goes by its path, a built-in one by its id.
        sid = doc.get("id", path.stem) if path.parent == SITUATIONS_DIR else str(path.relative_to(SITUATIONS_DIR.parent))
        row = (sid, doc.get("ruleset", "?"), str(doc.get("turns", "?")), doc.get("title", ""))
        (rows if registry.status(row[1]) == "engine" else waiting).append(row)
    width = max(len(r[0]) for r in rows) if rows else 2
    rw = max([len("ruleset"), *(len(r[1]) for r in rows)])
    print(f"{'id':<{width}}  {'ruleset':<{rw}} {'turns':>5}  title")
    for sid, rs, turns, title in rows:
        print(f"{sid:<{width}}  {rs:<{rw}} {turns:>5}  {title}")
    if waiting:
        print("\nrulesets with data but no rules engine yet: their situations cannot be checked or played")
        pw = max(len(r[0]) for r in waiting)
        rw = max(len(r[1]) for r in waiting)
        for path, rs, turns, title in waiting:
            print(f"{path:<{pw}}  {rs:<{rw}} {turns:>5}  {title}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from simulator.situation import check_file

    bad = 0
    for f in args.files:
        problems = check_file(f)
        if problems:
            bad += 1
            for p in problems:
                print(p.line())
        elif not args.quiet:
            print(f"{f}: ok")
    return 1 if bad else 0


def _load(name: str, sets: list[str] | None = None):
    from simulator.situation import load_situation

    return load_situation(name, parse_sets(sets or []))


def _ruleset(sit):
    from simulator import registry

    return registry.ruleset(sit.ruleset.name)


def _players(items: list[str] | None, sit, default: str | None = None) -> dict:
    """`--policy` options read by the situation's ruleset: one player a side."""
    return _ruleset(sit).players.parse(items, sit.side_names, default)


def parse_sets(items: list[str]) -> dict:
    """`--set KEY=VALUE` pairs; VALUE is read as a TOML value (5, 2.5, true, "text", ["2", "3"])."""
    from simulator.variants import parse_assignment

    return dict(parse_assignment(item, "--set") for item in items)


def _sets(args: argparse.Namespace) -> dict:
    """The overrides of every run of a command: `--set-file` files first, then `--set` options."""
    from simulator.variants import read_set_file

    out: dict = {}
    for f in getattr(args, "set_file", None) or []:
        out.update(read_set_file(f))
    out.update(parse_sets(args.set or []))
    return out


def cmd_show(args: argparse.Namespace) -> int:
    from reports.mapview import draw_situation_map
    from simulator.outdir import check_output_file

    check_output_file(Path(args.out))
    sit = _load(args.situation, args.set)
    out = draw_situation_map(sit, Path(args.out))
    print(f"wrote {out}")
    return 0


def cmd_los(args: argparse.Namespace) -> int:
    import numpy as np

    from simulator.los import default_cache_dir

    sit = _load(args.situation, args.set)
    los = _ruleset(sit).line_of_sight(sit)
    if los is None:
        raise DataError(str(sit.path), "ruleset", f"{sit.ruleset.name!r} has no line of sight",
                        "a situation of a ruleset whose rules use line of sight")
    cache = Path(args.cache_dir) if args.cache_dir else default_cache_dir() / "los"
    path = cache / f"los-{los.cache_key()}.npy"
    cached = path.exists()
    t0 = time.perf_counter()
    table = los.table(cache)
    dt = time.perf_counter() - t0
    n = sit.map.n_hexes
    print(f"{sit.id}: {n} hexes, {n * (n - 1) // 2} pairs, {table[~np.eye(n, dtype=bool)].mean():.1%} clear; "
          f"{'loaded from cache' if cached else 'built'} in {dt:.2f} s ({path})")
    if args.pair:
        a, b = (sit.map.lookup(x) for x in args.pair)
        print(f"{sit.map.labels[a]} -> {sit.map.labels[b]}: {'clear' if table[a, b] else 'blocked'}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    if args.maps:
        from simulator.outdir import check_writable_dir

        check_writable_dir(Path(args.maps), "--maps")
    sit = _load(args.situation, args.set)
    rs = _ruleset(sit)
    rec = rs.replay(sit, args.seed, _players(args.policy, sit, rs.players.replay_default), debug=args.debug)
    for line in rec.lines():
        print(line)
    if args.maps:
        from reports.replay_maps import draw_replay_maps

        paths = draw_replay_maps(rec, sit, Path(args.maps))
        print(f"wrote {len(paths)} maps to {args.maps}")
    return 1 if rec.violation else 0


def cmd_run(args: argparse.Namespace) -> int:
    from simulator.runner import run
    from simulator.situation import load_situation
    from simulator.summary import format_summary, run_warnings, summary_json

    sit = load_situation(args.situation, _sets(args))
    if args.out:  # before the first game: a run is never played only to be lost at the end
        from simulator.outdir import check_output_dir
        from simulator.run_output import run_files

        check_output_dir(Path(args.out), run_files(sit.ruleset.name), "balance run")
    policies = _players(args.policy, sit)
    eq = None
    if args.equilibrium:
        from simulator.equilibrium import check_same_situation, read_equilibrium

        eq = read_equilibrium(args.equilibrium)   # before the first game: a mismatch fails at once
        check_same_situation(eq, sit.id, sit.file_sha256, dict(sit.overrides))
    result = run(sit, args.games, args.seed, policies, workers=args.workers, until_ci=args.until_ci,
                 max_games=args.max_games, cluster=cluster_from_args(args))
    if eq is not None:
        from simulator.equilibrium import against_equilibrium

        result.summary["equilibrium"] = against_equilibrium(result.summary, eq)
    for warning in run_warnings(result.summary):
        print(warning, file=sys.stderr)
    failed: dict = {}
    if args.out:
        from simulator.run_output import write_run

        out, failed = write_run(result, Path(args.out), sit)
        for name, why in failed.items():
            print(f"warning: the {name} chart could not be drawn ({why}); the tables, summary.json and the "
                  f"rest of the report are written", file=sys.stderr)
        if not args.json:
            from simulator.run_output import table_names

            print(f"wrote {out}/: {', '.join(table_names(sit.ruleset.name))} (.parquet, .csv), summary.json, "
                  "report.html, charts/")
    if args.json:
        print(summary_json(result.summary))
    else:
        print(format_summary(result.summary))
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from simulator.audit import audit_module, format_audit, run_audit
    from simulator.situation import load_situation

    sit = load_situation(args.situation, _sets(args))
    audit = audit_module(sit)
    policies = _players(args.policy, sit)
    changes = {}
    for item in args.threshold or []:
        name, eq, value = item.partition("=")
        if not eq:
            raise DataError("--threshold", item, "not NAME=VALUE", "a threshold of simulator/rulesets/panzerblitz/players/audit.toml and its value")
        changes[name.strip()] = value.strip()
    rows, summary = run_audit(sit, args.games, args.seed, policies, workers=args.workers,
                              thresholds=audit.load_thresholds(changes=changes))
    print(format_audit(sit.id, summary, audit.COUNTS))
    if args.out:
        from simulator.audit import write_csv

        table = rows if args.per_game else summary
        out = write_csv(table.assign(situation=sit.id, seed=args.seed), Path(args.out))
        print(f"wrote {out}")
    return 0


def _experiment_setup(args: argparse.Namespace):
    """The situation as every run of an experiment starts from, its overrides and the players;
    `--out` is checked first, before any game is played."""
    from simulator.situation import load_situation

    if args.out:
        from simulator.outdir import check_output_dir

        kind = args.command
        check_output_dir(Path(args.out), (f"{kind}.json", f"{kind}.png", "report.html"), f"balance {kind}")
    base_sets = _sets(args)
    sit = load_situation(args.situation, base_sets)
    return sit, base_sets, _players(args.policy, sit)


def _print_json(data: dict) -> None:
    from simulator.summary import summary_json

    print(summary_json(data))


def _experiment_output(args: argparse.Namespace, result: dict, kind: str, text) -> int:
    """Write `--out` (reports/<kind>_report.py), then print the JSON or the readable table."""
    if args.out:
        import importlib

        write = getattr(importlib.import_module(f"reports.{kind}_report"), f"write_{kind}")
        out = write(result, Path(args.out))
        if not args.json:
            print(f"wrote {out}/: {kind}.json, {kind}.png, report.html")
    if args.json:
        _print_json(result)
    else:
        print(text(result))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from simulator.experiments import compare, format_compare
    from simulator.variants import collect_variants

    variants = collect_variants(args.variant, args.variants)
    if not variants:
        raise DataError("balance compare", "--variant", "no variants given",
                        "one or more --variant NAME:KEY=VALUE[,KEY=VALUE...] or --variants FILE")
    _, base_sets, policies = _experiment_setup(args)
    # Every variant is loaded (and checked) before any game is played: a typo fails in a second.
    from simulator.situation import load_situation

    for sets in variants.values():
        load_situation(args.situation, {**base_sets, **sets})
    with shared_cluster(cluster_from_args(args)) as cluster:
        result = compare(args.situation, variants, args.games, args.seed, policies, base_sets,
                         workers=args.workers, progress=not args.json, cluster=cluster)
    return _experiment_output(args, result, "compare", format_compare)


def cmd_sweep(args: argparse.Namespace) -> int:
    from simulator.sweep import format_sweep, parse_values, sweep

    values = parse_values(args.values, args.range)
    _, base_sets, policies = _experiment_setup(args)
    with shared_cluster(cluster_from_args(args)) as cluster:
        result = sweep(args.situation, args.param, values, args.games, args.seed, policies, base_sets,
                       workers=args.workers, progress=not args.json, cluster=cluster, robust=args.robust)
    return _experiment_output(args, result, "sweep", format_sweep)


def cmd_suggest(args: argparse.Namespace) -> int:
    from simulator.suggest import format_suggest, suggest

    levers = tuple(x.strip() for x in args.levers.split(",") if x.strip())
    bad = [x for x in levers if x not in ("turns", "threshold", "units")]
    if bad or not levers:
        raise DataError("balance suggest", "--levers", f"got {args.levers!r}", "a comma list of turns, threshold, units")
    _, base_sets, policies = _experiment_setup(args)
    quiet = args.json

    def log(line: str) -> None:
        if not quiet:
            print(line, file=sys.stderr, flush=True)

    with shared_cluster(cluster_from_args(args)) as cluster:
        result = suggest(args.situation, args.games, args.seed, policies, base_sets, confirm=args.confirm,
                         confirm_games=args.confirm_games, confirm_seed=args.confirm_seed, levers=levers,
                         workers=args.workers, progress=not quiet, log=log, cluster=cluster, robust=args.robust)
    return _experiment_output(args, result, "suggest", format_suggest)


def _add_experiment_options(s: argparse.ArgumentParser, games: int, what: str) -> None:
    s.add_argument("situation", help="built-in id (pb-01) or a situation file")
    s.add_argument("--games", type=int, default=games, metavar="N", help=f"{what} (default {games})")
    s.add_argument("--seed", type=int, default=1, help="seed: game i is played on the same seed in every run (default 1)")
    s.add_argument("--policy", action="append", metavar="SIDE=NAME[:K=V,...]",
                   help="a side's player and its parameters; a bare NAME sets both sides (default heuristic)")
    s.add_argument("--workers", type=int, metavar="K", help="worker processes (default: one per CPU; 1 = no pool)")
    s.add_argument("--json", action="store_true", help="print the result as JSON (and nothing else) on stdout")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a ruleset entry or a situation field (situation.turns=8) in every run")
    s.add_argument("--set-file", action="append", metavar="FILE", help="a TOML file of KEY = VALUE overrides for every run")
    add_cluster_options(s)


def cmd_tune(args: argparse.Namespace) -> int:
    import json

    from simulator.outdir import check_output_file
    from simulator.tune import format_tune, tune

    sit = _load(args.situation)
    sides = list(sit.side_names)
    if args.side not in sides:
        raise DataError("balance tune", "--side", f"got {args.side!r}", "one of " + ", ".join(sides))
    other = next(s for s in sides if s != args.side)
    players = _ruleset(sit).players
    against = players.parse([f"{other}={args.against}"], sides)[other]
    start = players.parse([f"{args.side}={args.start}"] if args.start else None, sides)[args.side]
    out = Path(args.out or f"out/tune/{sit.id}-{args.side}.toml")
    check_output_file(out)
    result = tune(sit, args.side, against, start, args.budget, args.games_per_trial, args.fresh_games, args.seed,
                  out, workers=args.workers, cluster=cluster_from_args(args), progress=not args.json,
                  against_text=args.against, holdout_games=args.holdout_games)
    print(json.dumps(result, indent=2) if args.json else format_tune(result))
    return 0


def cmd_equilibrium(args: argparse.Namespace) -> int:
    from simulator.equilibrium import equilibrium, format_equilibrium
    from simulator.outdir import check_output_dir
    from simulator.summary import summary_json

    sit = _load(args.situation, args.set)
    out = Path(args.out or f"out/equilibrium/{sit.id}")
    from reports.equilibrium_report import FILES, write_equilibrium

    check_output_dir(out, FILES, "balance equilibrium")

    def log(line: str) -> None:
        if not args.json:
            print(line, file=sys.stderr, flush=True)

    result = equilibrium(sit, budget=args.budget, cell_games=args.games, trials=args.trials,
                         games_per_trial=args.games_per_trial, rounds=args.rounds, threshold=args.threshold,
                         seed=args.seed, workers=args.workers, cluster=cluster_from_args(args),
                         progress=not args.json, log=log)
    write_equilibrium(result, out)
    data = {k: v for k, v in result.items() if not k.startswith("_")}
    if args.json:
        print(summary_json(data))
    else:
        print(format_equilibrium(data))
        print(f"\nwrote {out}/: equilibrium.json, cross_table.csv, cross_table.png, players/, report.html")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    import sys

    from simulator.run_output import read_run, rebuild_report

    _, summary = read_run(Path(args.dir))
    situation, why = _run_situation(summary)
    if situation is None:
        print(f"note: the loss map is left out: {why}", file=sys.stderr)
    extra = None
    if args.equilibrium:
        from simulator.equilibrium import against_equilibrium, read_equilibrium

        extra = {"equilibrium": against_equilibrium(summary, read_equilibrium(args.equilibrium))}
    page, failed = rebuild_report(Path(args.dir), situation, extra)
    for name, why in failed.items():
        print(f"warning: the {name} chart could not be drawn ({why})", file=sys.stderr)
    print(f"wrote {page}")
    return 0


def _run_situation(summary: dict):
    """The situation a saved run played (for its map), if its file is still there unchanged."""
    from simulator.errors import DataError, DataErrors
    from simulator.situation import load_situation

    name = summary.get("situation_file") or summary.get("situation")
    try:
        sit = load_situation(name, summary.get("overrides") or None)
    except (DataError, DataErrors) as exc:
        return None, f"cannot load situation {name!r}: {exc}"
    if summary.get("situation_sha256") and sit.file_sha256 != summary["situation_sha256"]:
        return None, f"{sit.path} has changed since the run (its SHA-256 differs)"
    return sit, ""


def cmd_bench(args: argparse.Namespace) -> int:
    from simulator.bench import run_bench
    from simulator.situation import builtin_situations, ruleset_situations

    # Every built-in situation: situations/*.toml by id, and those in a ruleset's own folder
    # (First Panzer Army, PanzerBlitz v2) by path.
    situations = args.situations or ([p.stem for p in builtin_situations()]
                                     + [str(p) for p in ruleset_situations()])
    run_bench(situations, args.games, Path(args.out), workers=args.workers, python_games=args.python_games,
              python_timeout=args.python_timeout, first_result=None if args.no_first_result else situations[0])
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="balance", description="Monte Carlo balance analyzer for hex-and-counter wargames.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("list", help="list the built-in situations")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("validate", help="check situation files; exit 1 if any has a problem")
    s.add_argument("files", nargs="+", help="situation files (.toml) or built-in ids")
    s.add_argument("-q", "--quiet", action="store_true", help="print problems only")
    s.set_defaults(func=cmd_validate)

    s = sub.add_parser("show", help="draw a situation's map, set-up areas, entries and objectives")
    s.add_argument("situation", help="built-in id (pb-01) or a situation file")
    s.add_argument("--out", required=True, help="PNG file to write")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a ruleset entry or a situation field (situation.turns=8)")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("replay", help="play one game and print its log turn by turn")
    s.add_argument("situation")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--policy", action="append", metavar="[SIDE=]NAME[:K=V,...]",
                   help="random (default) or heuristic, for both sides or one (repeat per side)")
    s.add_argument("--maps", metavar="DIR", help="also draw one map per player-turn into DIR")
    s.add_argument("--debug", action="store_true", help="check the rules' invariants after every action")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a ruleset entry or a situation field (situation.turns=8)")
    s.set_defaults(func=cmd_replay)

    s = sub.add_parser("run", help="play many games of a situation and report the outcomes with their uncertainty")
    s.add_argument("situation", help="built-in id (pb-01) or a situation file")
    s.add_argument("--games", type=int, metavar="N",
                   help="games to play (with --until-ci: the first round, default 200)")
    s.add_argument("--seed", type=int, default=1, help="seed of the run; game i is the same game for the same seed (default 1)")
    s.add_argument("--policy", action="append", metavar="SIDE=NAME[:K=V,...]",
                   help="a side's player and its parameters, e.g. german=heuristic:aggression=0.8; "
                        "a bare NAME sets both sides (default heuristic)")
    s.add_argument("--workers", type=int, metavar="K", help="worker processes (default: one per CPU; 1 = no pool)")
    add_cluster_options(s)
    s.add_argument("--out", metavar="DIR", help="write games and turns tables (.parquet, .csv) and summary.json into DIR")
    s.add_argument("--json", action="store_true", help="print the summary as JSON (and nothing else) on stdout")
    s.add_argument("--equilibrium", metavar="DIR", help="an equilibrium run of this situation (`balance "
                   "equilibrium --out DIR`): its verdict beside this run's, flagging 'depends on play'")
    s.add_argument("--until-ci", type=float, metavar="H",
                   help="play until every side's 95%% win interval is within +-H (e.g. 0.02)")
    s.add_argument("--max-games", type=int, metavar="M", help="with --until-ci: stop after M games (default 20000)")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a ruleset entry or a situation field (situation.turns=8)")
    s.add_argument("--set-file", action="append", metavar="FILE", help="a TOML file of KEY = VALUE overrides")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("audit", help="play heuristic games and count, per side and game, the blunders a veteran "
                                     "would laugh at (units lost to own minefields, idle carriers, ...)")
    s.add_argument("situation", help="built-in id (pb-01) or a situation file")
    s.add_argument("--games", type=int, default=200, metavar="N", help="games to play (default 200)")
    s.add_argument("--seed", type=int, default=1, help="seed of the run (default 1)")
    s.add_argument("--policy", action="append", metavar="SIDE=NAME[:K=V,...]",
                   help="a side's player (default heuristic for both)")
    s.add_argument("--workers", type=int, metavar="K", help="worker processes (default: one per CPU; 1 = no pool)")
    s.add_argument("--threshold", action="append", metavar="NAME=VALUE",
                   help="change a threshold of simulator/rulesets/panzerblitz/players/audit.toml for this run, e.g. walk_hexes=6")
    s.add_argument("--out", metavar="CSV", help="write the per-side table (with --per-game: one row a game and side)")
    s.add_argument("--per-game", action="store_true", help="--out writes one row a game and side")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a ruleset entry or a situation field (situation.turns=8)")
    s.add_argument("--set-file", action="append", metavar="FILE", help="a TOML file of KEY = VALUE overrides")
    s.set_defaults(func=cmd_audit)

    s = sub.add_parser("compare", help="play the situation and variants of it on the same seeds; compare win chances")
    _add_experiment_options(s, 200, "games a run (the baseline and each variant)")
    s.add_argument("--variant", action="append", metavar="NAME:KEY=VALUE[,KEY=VALUE...]",
                   help="a variant: a name and its overrides, e.g. short:situation.turns=8 (repeat for more)")
    s.add_argument("--variants", action="append", metavar="FILE", help="a TOML file of [variant.NAME] tables")
    s.add_argument("--out", metavar="DIR", help="write compare.json, compare.png and report.html into DIR")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("sweep", help="play the situation at several values of one override; find the balance point")
    _add_experiment_options(s, 200, "games a value")
    s.add_argument("--param", required=True, metavar="KEY", help="the override key to sweep, e.g. situation.turns")
    s.add_argument("--values", metavar="V1,V2,...", help="the values to play")
    s.add_argument("--range", metavar="START:STOP:STEP", help="evenly spaced values, STOP included")
    s.add_argument("--out", metavar="DIR", help="write sweep.json, sweep.png and report.html into DIR")
    s.add_argument("--robust", metavar="EQDIR", help="play every value by the equilibrium mixtures of "
                                                     "`balance equilibrium --out EQDIR` instead of --policy")
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser("suggest", help="try the usual levers one at a time; list the changes that balance the situation")
    _add_experiment_options(s, 200, "screening games a change")
    s.add_argument("--confirm", type=int, default=5, metavar="K", help="changes to confirm on new games (default 5)")
    s.add_argument("--confirm-games", type=int, metavar="M", help="confirmation games a change (default 2 x --games)")
    s.add_argument("--confirm-seed", type=int, metavar="S",
                   help="seed of the confirmation games, not --seed (default --seed + 1000)")
    s.add_argument("--levers", default="turns,threshold,units", metavar="LIST",
                   help="which levers to try: turns, threshold, units (default all)")
    s.add_argument("--out", metavar="DIR", help="write suggest.json, suggest.png and report.html into DIR")
    s.add_argument("--robust", metavar="EQDIR", help="play every run by the equilibrium mixtures of `balance "
                                                     "equilibrium --out EQDIR`: a fix must hold under them")
    s.set_defaults(func=cmd_suggest)

    s = sub.add_parser("tune", help="search one side's player parameters for the best response to an opponent "
                                    "(common random numbers); write a policy file; measure the gain on fresh games")
    s.add_argument("situation", help="built-in id (pb-01) or a situation file")
    s.add_argument("--side", required=True, help="the side whose player is tuned")
    s.add_argument("--against", default="heuristic", metavar="POLICY",
                   help="the opponent: NAME[:K=V,...] or @FILE (default heuristic)")
    s.add_argument("--start", metavar="POLICY", help="the player tuning starts from (default: the default player)")
    s.add_argument("--budget", type=int, default=4000, metavar="GAMES",
                   help="games the search may play: trials x --games-per-trial (default 4000)")
    s.add_argument("--games-per-trial", type=int, default=100, metavar="N",
                   help="games a candidate plays, the same games for every candidate (default 100)")
    s.add_argument("--fresh-games", type=int, default=400, metavar="N",
                   help="games on new seeds that measure the gain, for each of the tuned and the starting "
                        "player (default 400)")
    s.add_argument("--holdout-games", type=int, default=0, metavar="N",
                   help="first play the tuned and the starting player on N games of seeds neither tuning nor "
                        "the fresh games use; keep the starting player unless the tuned one beats it there "
                        "(default 0: no check)")
    s.add_argument("--seed", type=int, default=1, help="seed of the tuning games and the search (default 1)")
    s.add_argument("--out", metavar="FILE", help="policy file to write (default out/tune/SITUATION-SIDE.toml)")
    s.add_argument("--workers", type=int, metavar="K", help="worker processes (default: one per CPU; 1 = no pool)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    add_cluster_options(s)
    s.set_defaults(func=cmd_tune)

    from simulator.equilibrium_settings import DEFAULTS as EQ

    s = sub.add_parser("equilibrium", help="grow a population of players per side (default, styles, tuned best "
                                           "responses), play every pair on the same seeds, and report the balance "
                                           "at the meta-game's equilibrium beside the default pair's")
    s.add_argument("situation", help="built-in id (pb-01) or a situation file")
    s.add_argument("--budget", type=int, default=EQ["budget"], metavar="GAMES",
                   help=f"games the whole run may play (default {EQ['budget']})")
    s.add_argument("--games", type=int, default=EQ["cell_games"], metavar="N",
                   help=f"games a pair of players in the cross-table, on the same seeds (default {EQ['cell_games']})")
    s.add_argument("--trials", type=int, default=EQ["trials"], help=f"candidates a best response tries (default {EQ['trials']})")
    s.add_argument("--games-per-trial", type=int, default=EQ["games_per_trial"], metavar="N",
                   help=f"games a candidate plays (default {EQ['games_per_trial']})")
    s.add_argument("--rounds", type=int, default=EQ["rounds"],
                   help=f"double-oracle rounds at most: a best response for each side a round (default {EQ['rounds']})")
    s.add_argument("--threshold", type=float, default=EQ["threshold"],
                   help=f"stop when no best response of a round gains more mean score than this (default {EQ['threshold']})")
    s.add_argument("--seed", type=int, default=1, help="seed of the cross-table's games (default 1)")
    s.add_argument("--out", metavar="DIR", help="where to write (default out/equilibrium/SITUATION)")
    s.add_argument("--workers", type=int, metavar="K", help="worker processes (default: one per CPU; 1 = no pool)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a ruleset entry or a situation field (situation.turns=8)")
    add_cluster_options(s)
    s.set_defaults(func=cmd_equilibrium)

    s = sub.add_parser("report", help="rebuild report.html and charts/ of a saved run, without simulating")
    s.add_argument("dir", help="a directory written by `balance run --out`")
    s.add_argument("--equilibrium", metavar="DIR", help="show this run's verdict beside the equilibrium's of "
                                                       "`balance equilibrium --out DIR`, flagging 'depends on play'")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("los", help="build (or load from cache) a situation's line-of-sight table")
    s.add_argument("situation")
    s.add_argument("--pair", nargs=2, metavar="HEX", help="print whether two hexes see each other")
    s.add_argument("--cache-dir", help="where LOS tables are cached (default: ~/.cache/wargame-balance/los)")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a ruleset entry or a situation field (situation.turns=8)")
    s.set_defaults(func=cmd_los)

    s = sub.add_parser("bench", help="measure games per second per situation (1 and all workers), against the "
                                     "floor and pure Python; memory and time to the first result")
    s.add_argument("--games", type=int, default=200, metavar="N", help="timed games a situation and worker count (default 200)")
    s.add_argument("--situations", nargs="+", metavar="ID", help="built-in ids or situation files (default: every "
                                                                 "built-in situation, the other rulesets' folders included)")
    s.add_argument("--out", default="bench/results.csv", help="CSV to write; a .json with the run's machine "
                                                              "and targets goes beside it (default bench/results.csv)")
    s.add_argument("--workers", type=int, metavar="K", help="workers of the parallel measure (default: one per CPU)")
    s.add_argument("--python-games", type=int, default=1, metavar="N",
                   help="games a situation with numba's JIT disabled (0 = skip; default 1)")
    s.add_argument("--python-timeout", type=float, default=120.0, metavar="S",
                   help="time limit of the pure-Python games of one situation (default 120 s)")
    s.add_argument("--no-first-result", action="store_true",
                   help="skip the cold/warm time to the first result (the cold run compiles everything)")
    s.set_defaults(func=cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # Ctrl-C: a line, not a traceback
        print("interrupted", file=sys.stderr)
        return 130
    except DataErrors as exc:
        for e in exc.errors:
            print(e.line(), file=sys.stderr)
        return 1
    except DataError as exc:
        print(exc.line(), file=sys.stderr)
        return 1
    except OSError as exc:  # a file the command could not write or read: a line, not a traceback
        print(f"balance {args.command}: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
