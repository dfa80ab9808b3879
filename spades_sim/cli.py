"""The `spades-sim` command: simulate, games, run, report, match, tournament, status, replay,
bench, rules, strategies.

Bad arguments and bad input get one line on standard error naming what is wrong, and exit
status 2 (1 for `replay` when some input line is bad); never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys

from . import __version__

# The core is imported here; every command imports the rest of what it needs in its own function,
# so that `spades-sim rules` or `--help` answer at once, without loading numba, pandas or pyarrow.
from .core.errors import SpadesError, UsageError
from .core.limits import MAX_CHUNK_SIZE, MAX_JOBS, MAX_SEED, MAX_UNITS
from .core.rules import FIELD_DOCS, FIELD_NAMES, PRESET_DOCS, PRESETS, build_rules
from .core.strategies import KINDS, format_number, seat_strategies
from .core.strategies import PRESETS as STRATEGY_PRESETS


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _bound(value: int) -> str:
    """A largest allowed value for people: ``1,000,000,000,000`` or ``2**128 - 1``."""
    return "2**128 - 1" if value == MAX_SEED else f"{value:,}"


def _shown(text: str) -> str:
    """An argument as shown in a message, shortened when it is very long."""
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def _integer(text: str, low: int, high: int) -> int:
    """``text`` as an integer from ``low`` to ``high``, or a one-line argparse error."""
    digits = text.strip().replace("_", "")
    sign = digits[:1] if digits[:1] in ("+", "-") else ""
    if digits[len(sign):].isdigit() and len(digits) > 60:  # past any bound, and int()'s limit
        value = low - 1 if sign == "-" else high + 1
    else:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{_shown(text)}' is not an integer")
    if value < low:
        at_least = "at least 1" if low == 1 else f"{low} or more"
        raise argparse.ArgumentTypeError(f"{_shown(text)} must be {at_least}")
    if value > high:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is more than the largest allowed, "
                                         f"{_bound(high)}")
    return value


def _bounded(high: int, low: int = 1):
    """An argparse type: an integer from ``low`` to ``high`` (core/limits.py)."""
    return lambda text: _integer(text, low, high)


_units = _bounded(MAX_UNITS)  # hands, games or boards
_chunk_size = _bounded(MAX_CHUNK_SIZE)
_jobs = _bounded(MAX_JOBS)
_seed = _bounded(MAX_SEED, low=0)


def _preset_name(text: str) -> str:
    """A ``--rules`` value: a preset name, never empty (it is checked against the presets when
    the rules are built)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is empty; give a preset name (spades-sim "
                                         f"rules lists them)")
    return text.strip()


def _add_rules(parser, several=False):
    if several:
        parser.add_argument("--rules", action="append", metavar="PRESET", type=_preset_name,
                            help="rule preset (see `spades-sim rules`); default classic; with "
                                 "--out, repeat it to play several presets on the same deals")
    else:
        parser.add_argument("--rules", default="classic", metavar="PRESET", type=_preset_name,
                            help="rule preset (see `spades-sim rules`); default classic")
    parser.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                        help="override one rule field (repeatable)")


def _add_strategy(parser):
    parser.add_argument("--strategy", action="append", metavar="SPEC",
                        help="NAME[:param=value,...]; once for every seat or once per seat "
                             "(default heuristic)")


def _build(args):
    preset_name = args.rules[0] if isinstance(args.rules, list) else args.rules
    rules = build_rules(preset_name or "classic", args.rule)  # None: no --rules given
    strategies = seat_strategies(args.strategy or ["heuristic"], rules.players)
    return rules, strategies


def _add_run_options(parser, evaluation=False):
    """The options of runs written to disk; ``evaluation`` (match, tournament) leaves out those
    that choose what is played (--config, --duplicate) and --shard (a match needs every chunk)."""
    group = parser.add_argument_group("runs written to disk (chunked, resumable Parquet)")
    group.add_argument("--out", metavar="DIR", help="write the run as a Parquet dataset to DIR "
                       "(re-running the same command resumes it)"
                       + ("; default under results/" if evaluation else ""))
    group.add_argument("--chunk-size", type=_chunk_size, default=None,
                       help="hands (or games) per chunk, one file each; the results do not "
                            "depend on it (default 100000 hands or 1000 games)")
    if not evaluation:
        group.add_argument("--config", action="append", metavar="NAME=SPEC",
                           help="a named configuration, NAME=rules=PRESET;rule=FIELD=VALUE;"
                                "strategy=SPEC (rule and strategy repeat); repeat --config to "
                                "play several on the same deals (instead of --rules/--rule/"
                                "--strategy)")
        group.add_argument("--duplicate", action="store_true",
                           help="also play every deal with the partnerships' seats swapped")
    group.add_argument("--backend", choices=("loky", "dask"), default=None,
                       help="loky (the default): worker processes here; dask: a Dask cluster")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="Dask scheduler address (tcp://host:8786), with --backend dask; "
                            "none starts a local one")
    if not evaluation:
        group.add_argument("--shard", metavar="I/N", help="play only the I-th of N shares of "
                           "the chunks (for job arrays writing into one --out)")
    group.add_argument("--quiet", action="store_true", help="no progress bar")


# Options of runs on disk, and why each does nothing without --out.
_DISK_ONLY = (
    ("chunk_size", "--chunk-size", "without --out the {unit} are played in memory in one piece, "
                                   "not in chunks"),
    ("duplicate", "--duplicate", "duplicate mode is a way of playing runs written to disk "
                                 "(spades-sim match plays duplicate matches)"),
    ("shard", "--shard", "a shard is a share of the chunks of a run written to disk"),
    ("backend", "--backend", "without --out the {unit} are played here, in memory, by --jobs "
                             "processes"),
    ("scheduler", "--scheduler", "a Dask scheduler plays the chunks of a run written to disk"),
)


def _check_options(args, unit: str | None = None) -> None:
    """Refuse options that would have no effect: on simulate and games (``unit`` given) those
    of runs on disk without --out; everywhere --scheduler without --backend dask."""
    if unit is not None and not args.out:
        for name, option, why in _DISK_ONLY:
            if getattr(args, name, None):
                raise UsageError(f"{option} needs --out: {why.format(unit=unit)}")
    if args.scheduler and args.backend != "dask":
        raise UsageError("--scheduler needs --backend dask: the loky backend plays on this "
                         "machine")


def _run_to_disk(args, n_hands=None, n_games=None):
    from .run import RunSpec, execute, make_config, parse_config, parse_shard

    if args.log is not None:
        raise UsageError("--log and --out do not go together; use one or the other")
    if args.config and (args.rules or args.rule or args.strategy):
        raise UsageError("--config does not go with --rules, --rule or --strategy")
    configs = [parse_config(text) for text in args.config or []]
    for name in [] if configs else args.rules or ["classic"]:
        rules = build_rules(name, args.rule)
        strategies = seat_strategies(args.strategy or ["heuristic"], rules.players)
        configs.append(make_config(name, rules, strategies))
    chunk_size = args.chunk_size or (1000 if n_games else 100_000)
    spec = RunSpec(tuple(configs), args.seed, n_hands=n_hands, n_games=n_games,
                   chunk_size=chunk_size, duplicate=args.duplicate)
    shard = parse_shard(args.shard) if args.shard else None
    summary = execute(spec, args.out, jobs=args.jobs, backend=args.backend or "loky",
                      scheduler=args.scheduler, shard=shard, quiet=args.quiet)
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['out']}: played {summary['played_chunks']} chunk(s), skipped "
              f"{summary['skipped_chunks']} already done; {summary['units']:,} "
              f"{spec.unit_name} in {summary['seconds']:.1f} s "
              f"({summary['rate']:,.0f} {spec.unit_name}/s; start-up "
              f"{summary['warmup_seconds']:.1f} s apart)")
    return 0


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
    rules, strategies = _build(args)
    logging = args.log is not None
    if logging and args.log != "-":
        from .handlog.write import check_log_path

        check_log_path(args.log)  # before playing: a bad path must not cost the run
    run = play(rules, strategies, size, args.seed, jobs=args.jobs, record_plays=logging)
    if logging:
        from .handlog.write import write_log

        if args.log == "-":
            write_log(sys.stdout, run)
            sys.stdout.flush()
        else:
            write_log(args.log, run)
    return rules, strategies, run


def _summary_stream(args):
    """Where the summary goes: standard error when the hand log takes standard output."""
    return sys.stderr if args.log == "-" else sys.stdout


def cmd_simulate(args):
    from .analysis.summary import format_table, side_summary
    from .run import simulate_hands

    _check_options(args, "hands")
    if args.out:
        return _run_to_disk(args, n_hands=args.hands)
    rules, strategies, run = _play_in_memory(args, simulate_hands, args.hands, "hands")
    table = side_summary(run.frame(), rules)
    out = _summary_stream(args)
    if args.json:
        print(table.reset_index().to_json(orient="records"), file=out)
        return 0
    print(f"{args.hands} independent hands, rules {rules.preset_name}, seed {args.seed}; "
          f"seats: {', '.join(str(s) for s in strategies)}", file=out)
    print(format_table(table), file=out)
    if args.log not in (None, "-"):
        print(f"hand log: {args.log}", file=out)
    return 0


def cmd_games(args):
    from .analysis.summary import format_table, game_summary, side_summary
    from .run import play_games

    _check_options(args, "games")
    if args.out:
        return _run_to_disk(args, n_games=args.games)
    rules, strategies, run = _play_in_memory(args, play_games, args.games, "games")
    frame = run.frame()
    games = game_summary(frame, rules)
    out = _summary_stream(args)
    if args.json:
        print(json.dumps({"games": games.reset_index().to_dict(orient="records"),
                          "ties": games.attrs["ties"], "mean_hands": games.attrs["mean_hands"]}),
              file=out)
        return 0
    print(f"{args.games} games to {rules.target}, rules {rules.preset_name}, seed {args.seed}; "
          f"seats: {', '.join(str(s) for s in strategies)}", file=out)
    print(format_table(games), file=out)
    print(f"ties/draws: {games.attrs['ties']}; mean hands per game: "
          f"{games.attrs['mean_hands']:.2f}", file=out)
    print(file=out)
    print(format_table(side_summary(frame, rules)), file=out)
    if args.log not in (None, "-"):
        print(f"hand log: {args.log}", file=out)
    return 0


def cmd_run(args):
    from .experiment import default_results_dir, load_experiment, run_experiment

    _check_options(args)
    experiment = load_experiment(args.file)
    out = args.out or default_results_dir(experiment)
    summaries = run_experiment(experiment, out, jobs=args.jobs, backend=args.backend,
                               scheduler=args.scheduler, quiet=args.quiet)
    for mode, summary in summaries.items():
        print(f"{summary['out']}: {mode}: played {summary['played_chunks']} chunk(s), skipped "
              f"{summary['skipped_chunks']} already done; {summary['units']:,} {mode} in "
              f"{summary['seconds']:.1f} s")
    return _report(out, args.reports)


def cmd_report(args):
    return _report(args.dir, args.reports)


def _report(results_dir, reports_root):
    from .report import build_report

    index = build_report(results_dir, reports_root)
    print(index)
    return 0


def cmd_status(args):
    from .run import run_status

    status = run_status(args.dir)
    if args.json:
        print(json.dumps(status))
        return 0
    share = status["units_done"] / status["units"] if status["units"] else 1.0
    print(f"{status['out']}: {status['units_done']:,}/{status['units']:,} {status['unit']} "
          f"({share:.1%}), {status['done']}/{status['chunks']} chunks of {status['chunk_size']:,}"
          f"; seed {status['seed']}; configurations: {', '.join(status['configs'])}")
    if status["corrupt"]:
        print(f"corrupt or unfinished chunk files (played again on resume): {status['corrupt']}")
    if status["missing"]:
        shown = status["missing"][:20]
        more = " ..." if len(status["missing"]) > 20 else ""
        print(f"missing chunks: {shown}{more}")
    print("complete" if status["complete"] else "incomplete: re-run the same command to resume")
    return 0


def cmd_replay(args):
    from .handlog import replay_file

    if args.file != "-":
        with open(args.file, "rb"):
            pass  # an unreadable file is an argument error (status 2), not a bad line
    return replay_file(args.file, sys.stdout, sys.stderr)


def cmd_bench(args):
    from .bench import run_bench

    rules, strategies = _build(args)
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
    _check_options(args)
    units = {"n_games": args.games} if args.games else {"n_hands": args.hands}
    return {**units, "seed": args.seed, "jobs": args.jobs, "out": args.out,
            "rule_overrides": args.rule, "chunk_size": args.chunk_size,
            "backend": args.backend or "loky", "scheduler": args.scheduler,
            "quiet": args.quiet}


def cmd_match(args):
    from .evaluate import format_match, match

    result = match(args.a, args.b, args.rules, **_evaluation_options(args))
    print(json.dumps(result.to_dict()) if args.json else format_match(result))
    return 0


def cmd_tournament(args):
    from .evaluate import format_tournament, tournament

    result = tournament(args.strategies, args.rules, **_evaluation_options(args))
    print(json.dumps(result.to_dict()) if args.json else format_tournament(result))
    return 0


def cmd_rules(args):
    if args.preset is None:
        width = max(map(len, PRESETS))
        for name in PRESETS:
            changed = ", ".join(f"{k}={v}" for k, v in PRESETS[name].items()) or "(the base)"
            print(f"{name:<{width}}  {PRESET_DOCS[name]}: {changed}")
        return 0
    rules = build_rules(args.preset, args.rule)
    width = max(map(len, FIELD_NAMES))
    print(f"preset {args.preset} ({PRESET_DOCS[args.preset]})")
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
    print("presets (NAME or NAME:param=value,... like a kind):")
    for preset in STRATEGY_PRESETS.values():
        changes = ", ".join(f"{k}={format_number(v)}" for k, v in preset.params.items())
        print(f"{preset.name}: {preset.kind} with {changes}\n    {preset.doc}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="spades-sim", description="Monte Carlo simulation of Spades.")
    parser.add_argument("--version", action="version", version=f"spades-sim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    for name, unit, default, func, help_text in (
        ("simulate", "--hands", 100_000, cmd_simulate, "play independent hands and summarise them"),
        ("games", "--games", 1000, cmd_games, "play whole games to the target"),
    ):
        play = sub.add_parser(name, help=help_text)
        _add_rules(play, several=True)
        _add_strategy(play)
        play.add_argument(unit, type=_units, default=default)
        play.add_argument("--seed", type=_seed, default=0)
        play.add_argument("--jobs", type=_jobs, default=1)
        play.add_argument("--log", metavar="FILE",
                          help="write a hand log (JSON Lines) to FILE, a regular file written "
                               "whole (a symbolic link, FIFO, device or directory is refused); "
                               "- writes it to standard output, and the summary then goes to "
                               "standard error")
        play.add_argument("--json", action="store_true", help="print the results as JSON")
        _add_run_options(play)
        play.set_defaults(func=func)

    run = sub.add_parser("run", help="run an experiment file and build its report")
    run.add_argument("file", help="experiment file (TOML), such as experiments/variants.toml")
    run.add_argument("--jobs", type=_jobs, default=1)
    run.add_argument("--backend", choices=("loky", "dask"), default="loky",
                     help="loky: worker processes here; dask: a Dask cluster")
    run.add_argument("--scheduler", metavar="ADDRESS",
                     help="Dask scheduler address (tcp://host:8786); none starts a local one")
    run.add_argument("--out", metavar="DIR", help="results folder (default results/NAME); "
                     "re-running resumes, a different experiment there is refused")
    run.add_argument("--reports", metavar="DIR", default="reports",
                     help="the report goes to DIR/NAME/ (default reports)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(func=cmd_run)

    report = sub.add_parser("report", help="rebuild an experiment's report from its results")
    report.add_argument("dir", help="the experiment's results folder, such as results/variants")
    report.add_argument("--reports", metavar="DIR", default="reports",
                        help="the report goes to DIR/NAME/ (default reports)")
    report.set_defaults(func=cmd_report)

    status = sub.add_parser("status", help="progress of a run directory (--out)")
    status.add_argument("dir")
    status.add_argument("--json", action="store_true")
    status.set_defaults(func=cmd_status)

    replay = sub.add_parser("replay", help="validate and score a hand log")
    replay.add_argument("file", help="hand log (JSON Lines); - for standard input")
    replay.set_defaults(func=cmd_replay)

    bench = sub.add_parser("bench", help="measure warm hands per second per core")
    _add_rules(bench)
    _add_strategy(bench)
    bench.add_argument("--hands", type=_units, default=2_000_000)
    bench.add_argument("--jobs", type=_jobs, default=1)
    bench.add_argument("--seed", type=_seed, default=0)
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--no-history", action="store_true",
                       help="do not append to benchmarks/history.jsonl")
    bench.set_defaults(func=cmd_bench)

    for name, func, help_text in (
        ("match", cmd_match, "a duplicate match: strategy A (seats 0, 2) against B (1, 3)"),
        ("tournament", cmd_tournament, "a round robin of duplicate matches, with ratings"),
    ):
        evaluation = sub.add_parser(name, help=help_text)
        if name == "match":
            evaluation.add_argument("a", metavar="A", help="strategy spec of seats 0 and 2")
            evaluation.add_argument("b", metavar="B", help="strategy spec of seats 1 and 3")
        else:
            evaluation.add_argument("strategies", nargs="+", metavar="SPEC",
                                    help="two or more different strategy specs")
        _add_rules(evaluation)
        units = evaluation.add_mutually_exclusive_group(required=True)
        units.add_argument("--games", type=_units, help="boards of whole games "
                           "(each deal sequence is played twice)")
        units.add_argument("--hands", type=_units, help="boards of single hands "
                           "(each deal is played twice)")
        evaluation.add_argument("--seed", type=_seed, default=0)
        evaluation.add_argument("--jobs", type=_jobs, default=1)
        evaluation.add_argument("--json", action="store_true", help="print one JSON object")
        _add_run_options(evaluation, evaluation=True)
        evaluation.set_defaults(func=func)

    rules = sub.add_parser("rules", help="list presets, or show every field of one")
    rules.add_argument("preset", nargs="?")
    rules.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE")
    rules.set_defaults(func=cmd_rules)

    strategies = sub.add_parser("strategies", help="list strategies and their parameters")
    strategies.set_defaults(func=cmd_strategies)
    return parser


def main(argv=None) -> int:
    """Run one command; returns the exit status (2 for bad arguments, input or options, each
    reported as one line on standard error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # a bad argument (one line already printed), --help, --version
        return 0 if exit_.code is None else exit_.code if isinstance(exit_.code, int) else 2
    try:
        return args.func(args)
    except SpadesError as error:
        message = " ".join(str(error).split("\n"))
        print(f"spades-sim {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`spades-sim ... | head`): stop quietly, as Unix tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        print(f"spades-sim {args.command}: error: {error.strerror or error}: "
              f"{error.filename or ''}".rstrip(": "), file=sys.stderr)
        return 2
    except MemoryError:
        print(f"spades-sim {args.command}: error: out of memory; write large runs to disk with "
              f"--out DIR (in chunks), or play fewer at once", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"spades-sim {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
