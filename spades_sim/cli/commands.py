"""The command line's commands: one ``cmd_*`` function per subcommand."""

from __future__ import annotations

import json
import sys

# Only the core here: every command imports the rest of what it needs in its own function.
from ..core.errors import UsageError
from ..core.limits import MAX_CHUNK_SIZE
from ..core.rules import FIELD_DOCS, FIELD_NAMES, PRESET_DOCS, PRESETS, build_rules
from ..core.strategies import KINDS, PLUGIN_KIND, SHIPPED, format_number, seat_strategies
from ..core.strategies import PRESETS as STRATEGY_PRESETS
from .options import check_options, rules_and_strategies


def _deal_filter(args):
    """The --deal-filter option as a DealFilter (``None`` without it), parsed here, once."""
    from ..core.features import DEFAULT_MAX_TRIES, DealFilter

    if args.deal_filter is None:
        if args.max_tries is not None:
            raise UsageError("--max-tries needs --deal-filter")
        return None
    return DealFilter.parse(args.deal_filter, args.max_tries or DEFAULT_MAX_TRIES)


def _acceptance_line(acceptance) -> str:
    """One line on a deal filter's acceptance (``run.memory.deal_acceptance`` or
    ``spec_acceptance``)."""
    rates = acceptance["acceptance_rate"]
    if isinstance(rates, dict):
        shown = ", ".join(f"{name} {rate:.2%}" for name, rate in rates.items())
    else:
        shown = f"{rates:.2%}"
    return (f"deal filter {acceptance['filter']!r}: accepts {shown} of deals (measured on "
            f"the deal streams of the first {acceptance['measured_hands']:,} hands)")


def _run_to_disk(args, n_hands=None, n_games=None):
    from ..run import RunSpec, execute, make_config, parse_config, parse_shard

    if args.config and (args.rules or args.rule or args.strategy):
        raise UsageError("--config does not go with --rules, --rule or --strategy")
    configs = [parse_config(text) for text in args.config or []]
    for name in [] if configs else args.rules or ["classic"]:
        rules = build_rules(name, args.rule)
        strategies = seat_strategies(args.strategy or ["heuristic"], rules.players)
        configs.append(make_config(name, rules, strategies))
    chunk_size = args.chunk_size or (1000 if n_games else 100_000)
    spec = RunSpec(tuple(configs), args.seed, n_hands=n_hands, n_games=n_games,
                   chunk_size=chunk_size, duplicate=args.duplicate, par=args.par,
                   cards=args.cards, deal_filter=_deal_filter(args))
    shard = parse_shard(args.shard) if args.shard is not None else None
    if args.log is not None:
        _check_log_with_out(args, spec)
    summary = execute(spec, args.out, jobs=args.jobs, backend=args.backend or "loky",
                      scheduler=args.scheduler, shard=shard, quiet=args.quiet)
    if args.log is not None:
        from ..run import play_games, simulate_hands

        config = spec.configs[0]
        play = play_games if spec.games_mode else simulate_hands
        _write_hand_log(args, play(config.rules, config.strategies, spec.units, spec.seed,
                                   jobs=args.jobs, record_plays=True,
                                   deal_filter=spec.deal_filter))
    out = _summary_stream(args)
    if args.json:
        print(json.dumps(summary), file=out)
    else:
        print(f"{summary['out']}: played {summary['played_chunks']} chunk(s), skipped "
              f"{summary['skipped_chunks']} already done; {summary['units']:,} "
              f"{spec.unit_name} in {summary['seconds']:.1f} s "
              f"({summary['rate']:,.0f} {spec.unit_name}/s; start-up "
              f"{summary['warmup_seconds']:.1f} s apart)", file=out)
        if "deal_filter" in summary:
            print(_acceptance_line(summary["deal_filter"]), file=out)
        if args.log not in (None, "-"):
            print(f"hand log: {args.log}", file=out)
    return 0


def _check_log_with_out(args, spec) -> None:
    """``--log`` with ``--out``: the hand log holds the run's hands, played again with their
    plays recorded after the dataset is written (the same seed gives the same hands), so the
    run must be one configuration, whole, and small enough to hold in memory; the log's path is
    checked before anything is played."""
    if len(spec.configs) > 1:
        raise UsageError("--log with --out needs one configuration (a hand log line does not "
                         "name its configuration); `spades-sim hand` replays any hand of a "
                         "run with several")
    if spec.duplicate:
        raise UsageError("--log with --out does not go with --duplicate; `spades-sim hand "
                         "--duplicate` replays a hand of the rotated copy")
    if args.shard:
        raise UsageError("--log with --out does not go with --shard: the log holds the whole "
                         "run")
    if spec.units > MAX_CHUNK_SIZE:
        raise UsageError(f"--log with --out: the hand log is written from memory, so at most "
                         f"{MAX_CHUNK_SIZE:,} {spec.unit_name}; `spades-sim hand` replays any "
                         f"hand of a larger run")
    if args.log != "-":
        from ..handlog.write import check_log_path

        check_log_path(args.log)  # before playing: a bad path must not cost the run


def _write_hand_log(args, run) -> None:
    """Write the hand log of ``run`` to ``--log``'s file, or to standard output (``-``)."""
    from ..handlog.write import write_log

    if args.log == "-":
        write_log(sys.stdout, run)
        sys.stdout.flush()
    else:
        write_log(args.log, run)


def _play_in_memory(args, play, size, unit):
    """Play without --out (one configuration), writing the hand log when asked: to a regular
    file (checked before playing), or to standard output with ``--log -``."""
    if args.config:
        raise UsageError("--config needs --out (a run on disk)")
    if args.rules and len(args.rules) > 1:
        raise UsageError("several --rules need --out (a run on disk)")
    if size > MAX_CHUNK_SIZE:
        raise UsageError(f"--{unit} {size:,} without --out: a run played in memory is held "
                         f"whole, like one chunk, so at most {MAX_CHUNK_SIZE:,}; write larger "
                         f"runs with --out DIR (in chunks)")
    rules, strategies = rules_and_strategies(args)
    logging = args.log is not None
    if logging and args.log != "-":
        from ..handlog.write import check_log_path

        check_log_path(args.log)  # before playing: a bad path must not cost the run
    run = play(rules, strategies, size, args.seed, jobs=args.jobs, record_plays=logging,
               deal_filter=_deal_filter(args))
    if logging:
        _write_hand_log(args, run)
    return rules, strategies, run


def _summary_stream(args):
    """Where the summary goes: standard error when the hand log takes standard output."""
    return sys.stderr if args.log == "-" else sys.stdout


def cmd_simulate(args):
    from ..analysis.summary import format_table, side_summary
    from ..run import simulate_hands

    check_options(args, "hands")
    if args.out:
        return _run_to_disk(args, n_hands=args.hands)
    rules, strategies, run = _play_in_memory(args, simulate_hands, args.hands, "hands")
    table = side_summary(run.frame(), rules)
    out = _summary_stream(args)
    if args.json:
        print(table.reset_index().to_json(orient="records"), file=out)
        if run.acceptance is not None:  # (apart: the records stay what they are)
            print(_acceptance_line(run.acceptance), file=sys.stderr)
        return 0
    print(f"{args.hands} independent hands, rules {rules.preset_name}, seed {args.seed}; "
          f"seats: {', '.join(str(s) for s in strategies)}", file=out)
    if run.acceptance is not None:
        print(_acceptance_line(run.acceptance), file=out)
    print(format_table(table), file=out)
    if args.log not in (None, "-"):
        print(f"hand log: {args.log}", file=out)
    return 0


def cmd_games(args):
    from ..analysis.summary import format_table, game_summary, side_summary
    from ..run import play_games

    check_options(args, "games")
    if args.out:
        return _run_to_disk(args, n_games=args.games)
    rules, strategies, run = _play_in_memory(args, play_games, args.games, "games")
    frame = run.frame()
    games = game_summary(frame, rules)
    out = _summary_stream(args)
    if args.json:
        print(json.dumps({"games": games.reset_index().to_dict(orient="records"),
                          "ties": games.attrs["ties"], "mean_hands": games.attrs["mean_hands"],
                          **({"deal_filter": run.acceptance} if run.acceptance else {})}),
              file=out)
        return 0
    print(f"{args.games} games to {rules.target}, rules {rules.preset_name}, seed {args.seed}; "
          f"seats: {', '.join(str(s) for s in strategies)}", file=out)
    if run.acceptance is not None:
        print(_acceptance_line(run.acceptance), file=out)
    print(format_table(games), file=out)
    print(f"ties/draws: {games.attrs['ties']}; mean hands per game: "
          f"{games.attrs['mean_hands']:.2f}", file=out)
    print(file=out)
    print(format_table(side_summary(frame, rules)), file=out)
    if args.log not in (None, "-"):
        print(f"hand log: {args.log}", file=out)
    return 0


def cmd_run(args):
    from ..experiment import default_results_dir, load_experiment, run_experiment
    from ..run import parse_shard

    check_options(args)
    shard = parse_shard(args.shard) if args.shard is not None else None
    experiment = load_experiment(args.file)
    out = args.out or default_results_dir(experiment)
    summaries = run_experiment(experiment, out, jobs=args.jobs, backend=args.backend,
                               scheduler=args.scheduler, quiet=args.quiet, shard=shard)
    share = f" (shard {shard[0]}/{shard[1]})" if shard else ""
    for mode, summary in summaries.items():
        print(f"{summary['out']}: {mode}{share}: played {summary['played_chunks']} chunk(s), "
              f"skipped {summary['skipped_chunks']} already done; {summary['units']:,} "
              f"{mode.split()[-1]} in {summary['seconds']:.1f} s")
        if "deal_filter" in summary:
            print(f"{summary['out']}: " + _acceptance_line(summary["deal_filter"]))
    if shard:
        print(f"shard {shard[0]}/{shard[1]} done; the report is built by spades-sim report "
              f"{out} once all shards are in (spades-sim status {out} shows them)")
        return 0
    return _report(out, args.reports, args.quiet)


def cmd_report(args):
    from ..experiment import finish_results

    finish_results(args.dir)  # every run complete (one line naming what is missing otherwise)
    return _report(args.dir, args.reports, args.quiet)


def _report(results_dir, reports_root, quiet=False):
    from ..report import build_report

    index = build_report(results_dir, reports_root, progress=not quiet)
    print(index)
    return 0


def cmd_status(args):
    from pathlib import Path

    from ..experiment import EXPERIMENT_COPY, results_status
    from ..run import run_status
    from ..run.dataset import META

    if (Path(args.dir) / EXPERIMENT_COPY).exists() and not (Path(args.dir) / META).exists():
        return _experiment_status(results_status(args.dir), args.json)
    status = run_status(args.dir)
    if args.json:
        print(json.dumps(status))
        return 0
    share = status["units_done"] / status["units"] if status["units"] else 1.0
    print(f"{status['out']}: {status['units_done']:,}/{status['units']:,} {status['unit']} "
          f"({share:.1%}), {status['done']}/{status['chunks']} chunks of {status['chunk_size']:,}"
          f"; seed {status['seed']}; configurations: {', '.join(status['configs'])}")
    if status["corrupt"]:
        print(f"corrupt, foreign or unfinished chunk files (played again on resume): "
              f"{status['corrupt']}")
        for name, why in status.get("problems", {}).items():
            print(f"  {name}: {why}")
    if status["missing"]:
        shown = status["missing"][:20]
        more = " ..." if len(status["missing"]) > 20 else ""
        print(f"missing chunks: {shown}{more}")
    if status.get("beyond"):
        print(f"kept beyond this size (read again if the run grows): {len(status['beyond'])} "
              f"chunk(s)")
    if status.get("stray"):
        print(f"stray files in {status['out']}/data (not chunks of this run; Parquet readers of "
              f"the folder read them too): {', '.join(status['stray'])}")
    if status.get("layout") == "legacy":
        print("older layout: chunk files beside meta.json; the next command that writes to the "
              "run moves them into data/")
    print("complete" if status["complete"] else f"incomplete: {_resume_hint(status)}")
    return 0


def _resume_hint(status) -> str:
    """How to finish an incomplete run: the same command, or, for a run played in shards,
    which shards still have chunks to play."""
    shards = status.get("shards") or 1
    lacking = sorted(status["missing"] + status["corrupt"])
    if isinstance(shards, int) and shards > 1:
        unfinished = sorted({chunk % shards + 1 for chunk in lacking})
        named = ", ".join(f"{index}/{shards}" for index in unfinished)
        return (f"the chunks of shard{'s' if len(unfinished) > 1 else ''} {named} are missing: "
                f"run the same command with --shard {named.split(', ')[0]}"
                + (" (and so on for each)" if len(unfinished) > 1 else "")
                + ", or without --shard to play every missing chunk")
    return "re-run the same command to resume"


def cmd_hand(args):
    from ..handlog import hand_record_checked

    obj, checked = hand_record_checked(args.dir, args.hand, config=args.config, game=args.game,
                                       duplicate=args.duplicate)
    if args.show:
        from ..handlog import hand_diagram

        print(hand_diagram(obj), end="")
    else:
        print(json.dumps(obj))
    if not checked:
        print("spades-sim hand: note: the run was played without --cards, so the replayed deal "
              "could not be checked against the dataset (its bids, tricks and scores were)",
              file=sys.stderr)
    return 0


def _experiment_status(status, as_json):
    """``spades-sim status`` of an experiment's results folder: one line per run."""
    from ..experiment.execute import missing_text

    if as_json:
        print(json.dumps(status))
        return 0
    width = max(len(run["run"]) for run in status["runs"])
    for run in status["runs"]:
        line = (f"{run['run']:<{width}}  {run['done']}/{run['chunks']} chunks, "
                f"{run['units_done']:,}/{run['units']:,} {run['unit']}")
        if not run["complete"]:
            line += "; " + missing_text(run).split(": ", 1)[1]
        print(line)
    print(f"{status['out']}: " + ("complete: spades-sim report builds the report"
                                 if status["complete"] else "incomplete"))
    return 0


def cmd_replay(args):
    from ..handlog import replay_file

    if args.file != "-":
        with open(args.file, "rb"):
            pass  # an unreadable file is an argument error (status 2), not a bad line
    return replay_file(args.file, sys.stdout, sys.stderr)


def cmd_par(args):
    if args.file != "-":
        # Before the solver is imported (its first import may compile it, for a minute): an
        # unreadable file is an argument error (status 2), not a bad line.
        with open(args.file, "rb"):
            pass
    from ..handlog.par import par_file

    return par_file(args.file, sys.stdout, sys.stderr)


def cmd_bench(args):
    from ..bench import run_bench

    rules, strategies = rules_and_strategies(args)
    result = run_bench(rules, strategies, args.hands, args.jobs, seed=args.seed,
                       record_history=not args.no_history)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['hands']} hands, {', '.join(result['strategies'])}, rules {result['rules']}, "
          f"{result['jobs']} job(s)")
    print(f"warm hands/s per core: {result['hands_per_second']:,.0f} (fastest chunk), "
          f"{result['hands_per_second_median']:,.0f} (median chunk), "
          f"{result['hands_per_second_run']:,.0f} (whole run)")
    print(f"warm hands/s, all jobs together: {result['hands_per_second_total']:,.0f}")
    print(f"compile (or cache load) and warm-up: {result['compile_seconds']:.2f} s")
    return 0


def _evaluation_options(args) -> dict:
    check_options(args)
    units = {"n_games": args.games} if args.games else {"n_hands": args.hands}
    return {**units, "seed": args.seed, "jobs": args.jobs, "out": args.out,
            "rule_overrides": args.rule, "chunk_size": args.chunk_size,
            "backend": args.backend or "loky", "scheduler": args.scheduler,
            "quiet": args.quiet}


def cmd_match(args):
    from ..evaluate import format_match, match

    result = match(args.a, args.b, args.rules, **_evaluation_options(args))
    if args.json:
        from ..evaluate import split_to_dict

        data = result.to_dict()
        data["split"] = None if result.split is None else split_to_dict(result.split)
        print(json.dumps(data))
    else:
        print(format_match(result))
    return 0


def cmd_tournament(args):
    from ..evaluate import format_tournament, tournament

    result = tournament(args.strategies, args.rules, **_evaluation_options(args))
    print(json.dumps(result.to_dict()) if args.json else format_tournament(result))
    return 0


def cmd_tune(args):
    from ..tuning import format_result, tune

    check_options(args)
    result = tune(args.family, args.rules, against=args.against, rule_overrides=args.rule,
                  params=args.param, start=args.start, generations=args.generations,
                  popsize=args.popsize, boards=args.boards, holdout_boards=args.holdout_boards,
                  seed=args.seed, sigma=args.sigma, objective=args.objective, jobs=args.jobs,
                  backend=args.backend or "loky", scheduler=args.scheduler, out=args.out,
                  quiet=args.quiet)
    print(json.dumps(result.to_dict(), allow_nan=False) if args.json else format_result(result))
    return 0


def cmd_bid_model(args):
    from ..analysis import bidmodel

    if args.action == "fit":
        seed = bidmodel.FIT_SEED if args.seed is None else args.seed
        if args.shape:
            raise UsageError("bid-model fit: --shape is for check only (a fit writes every "
                              "shape)")
        model = bidmodel.fit_model(args.hands or 400_000, seed,
                                   progress=lambda line: print(line, file=sys.stderr))
        path = bidmodel.write_model(model, args.out) if args.out else bidmodel.write_model(model)
        print(f"wrote {path}; the engine recompiles with it on its next start")
        return 0
    seed = bidmodel.FIT_SEED + 7 if args.seed is None else args.seed
    report = bidmodel.check_model(args.hands or 100_000, seed, args.shape)
    print(json.dumps(report) if args.json else bidmodel.format_check(report))
    return 0


def cmd_rules(args):
    if args.preset is None and not args.rule:
        width = max(map(len, PRESETS))
        for name in PRESETS:
            changed = ", ".join(f"{k}={v}" for k, v in PRESETS[name].items()) or "(the base)"
            print(f"{name:<{width}}  {PRESET_DOCS[name]}: {changed}")
        return 0
    preset = args.preset or "classic"  # --rule alone overrides the default preset
    rules = build_rules(preset, args.rule)
    width = max(map(len, FIELD_NAMES))
    overridden = f", with {', '.join(args.rule)}" if args.rule else ""
    print(f"preset {preset} ({PRESET_DOCS[preset]}){overridden}")
    for field in FIELD_NAMES:
        value = getattr(rules, field)
        if value is None:
            text = "null"
        else:
            text = str(value).lower() if isinstance(value, bool) else str(value)
        print(f"{field:<{width}}  {text:<16}  {FIELD_DOCS[field]}")
    return 0


def cmd_strategies(args):
    shown = set()
    for kind in KINDS.values():
        print(f"{kind.name}: {kind.doc}")
        inherited = [p for p in kind.params if p.name in shown]
        if inherited:
            print(f"    (the parameters above, {inherited[0].name} .. {inherited[-1].name}, "
                  f"with the same defaults; and:)")
        for param in kind.params:
            if param.name not in shown:
                print(f"    {param.name} = {format_number(param.default)}    {param.doc}")
        shown.update(p.name for p in kind.params)
    for shipped in SHIPPED.values():
        kind = shipped.kind
        print(f"{kind.name}: {kind.doc}")
        for param in kind.params:
            print(f"    {param.name} = {format_number(param.default)}    {param.doc}")
    print("presets (NAME or NAME:param=value,... like a kind):")
    for preset in STRATEGY_PRESETS.values():
        changes = ", ".join(f"{k}={format_number(v)}" for k, v in preset.params.items())
        print(f"{preset.name}: {preset.kind} with {changes}\n    {preset.doc}")
    print(f"plug-ins: {PLUGIN_KIND.doc}")
    return 0


