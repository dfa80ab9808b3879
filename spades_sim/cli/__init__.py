"""The `spades-sim` command: simulate, games, run, report, match, tournament, tune, status,
hand, replay, par, bench, rules, strategies. ``options`` holds the option types and groups,
``commands`` one function per subcommand, this module the parser and ``main``.

Only the core is imported up front; every command imports the rest of what it needs in its own
function, so that `spades-sim rules` or `--help` answer at once, without loading numba, pandas or
pyarrow.

Bad arguments and bad input get one line on standard error naming what is wrong, and exit
status 2 (1 for `replay` and `par` when some input line is bad); never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback

from .. import __version__
from ..core.bidmodel import SHAPES
from ..core.errors import SpadesError
from ..core.notices import set_notice
from .commands import (
    cmd_bench,
    cmd_bid_model,
    cmd_games,
    cmd_hand,
    cmd_match,
    cmd_par,
    cmd_replay,
    cmd_report,
    cmd_rules,
    cmd_run,
    cmd_simulate,
    cmd_status,
    cmd_strategies,
    cmd_tournament,
    cmd_tune,
)
from .options import (
    Parser,
    add_rules,
    add_run_options,
    add_strategy,
    index_type,
    jobs_type,
    seed_type,
    units_type,
)

#: Commands that play chunks of runs (their process keeps its heap between chunks).
_PLAYING_COMMANDS = frozenset({"simulate", "games", "run", "match", "tournament", "tune",
                               "bench"})

SEED_HELP = "the seed: the same seed gives the same results whatever --jobs (default 0)"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="spades-sim", description="Monte Carlo simulation of Spades.")
    parser.add_argument("--version", action="version", version=f"spades-sim {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the traceback (a plug-in's own) too")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    for name, unit, default, func, help_text in (
        ("simulate", "--hands", 100_000, cmd_simulate, "play independent hands and summarise them"),
        ("games", "--games", 1000, cmd_games, "play whole games to the target"),
    ):
        play = sub.add_parser(name, help=help_text)
        add_rules(play, several=True)
        add_strategy(play)
        play.add_argument(unit, type=units_type, default=default,
                          help=f"how many {unit[2:]} to play (default {default:,})")
        play.add_argument("--seed", type=seed_type, default=0,
                          help=SEED_HELP)
        play.add_argument("--jobs", type=jobs_type, default=1,
                          help="worker processes on this machine (default 1)")
        play.add_argument("--log", metavar="FILE",
                          help="write a hand log (JSON Lines) to FILE, a regular file written "
                               "whole (a symbolic link, FIFO, device or directory is refused); "
                               "- writes it to standard output, and the summary then goes to "
                               "standard error")
        play.add_argument("--json", action="store_true", help="print the results as JSON")
        play.add_argument("--deal-filter", metavar="EXPR",
                          help="play only deals EXPR accepts, such as 'seat0.spades >= 4 and "
                               "seat0.aces == 0' (comparisons of seatN.FEATURE joined by and / "
                               "or; features in docs/runs.md); each hand takes the first "
                               "accepted deal on its own deal stream, so the seed still fixes "
                               "the hands")
        play.add_argument("--max-tries", type=units_type, default=None, metavar="N",
                          help="with --deal-filter: the deals one hand may draw before the run "
                               "stops with an error (default 100000)")
        add_run_options(play)
        play.set_defaults(func=func)

    run = sub.add_parser("run", help="run an experiment file and build its report")
    run.add_argument("file", help="experiment file (TOML), such as experiments/variants.toml")
    run.add_argument("--jobs", type=jobs_type, default=1,
                     help="worker processes (loky) or Dask workers started here (default 1)")
    run.add_argument("--backend", choices=("loky", "dask"), default="loky",
                     help="loky: worker processes here; dask: a Dask cluster")
    run.add_argument("--scheduler", metavar="ADDRESS",
                     help="Dask scheduler address (tcp://host:8786); none starts a local one")
    run.add_argument("--out", metavar="DIR", help="results folder (default results/NAME); "
                     "re-running resumes, a different experiment there is refused")
    run.add_argument("--reports", metavar="DIR", default="reports",
                     help="the report goes to DIR/NAME/ (default reports)")
    run.add_argument("--shard", metavar="I/N", help="play only the I-th of N shares of the "
                     "chunks of every run (an array job's task); the report is then built by "
                     "spades-sim report DIR once all shards are in")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(func=cmd_run)

    report = sub.add_parser("report", help="build an experiment's report from its results "
                            "(refused while a run or shard is unfinished)")
    report.add_argument("dir", help="the experiment's results folder, such as results/variants")
    report.add_argument("--reports", metavar="DIR", default="reports",
                        help="the report goes to DIR/NAME/ (default reports)")
    report.add_argument("--quiet", action="store_true",
                        help="no progress lines (one per section) on standard error")
    report.set_defaults(func=cmd_report)

    status = sub.add_parser("status", help="progress of a run directory (--out) or of an "
                            "experiment's results folder")
    status.add_argument("dir", help="a run folder written with --out, or an experiment's "
                        "results folder (one line per run)")
    status.add_argument("--json", action="store_true", help="print one JSON object")
    status.set_defaults(func=cmd_status)

    hand = sub.add_parser("hand", help="one hand of a run on disk, replayed, as a hand-log "
                                       "line")
    hand.add_argument("dir", help="a run folder written with --out")
    hand.add_argument("--hand", type=index_type, required=True, metavar="H",
                      help="the hand id (hands runs), or the hand's number within --game "
                           "(games runs, from 0)")
    hand.add_argument("--game", type=index_type, metavar="G",
                      help="the game id (games runs only)")
    hand.add_argument("--config", metavar="NAME",
                      help="the configuration (needed when the run has several)")
    hand.add_argument("--duplicate", action="store_true",
                      help="the copy played with the seats rotated (runs with --duplicate)")
    hand.add_argument("--show", action="store_true",
                      help="print the hand as a diagram (the deal by compass seat, the bids, "
                           "the exchange and every trick) instead of its hand-log line")
    hand.set_defaults(func=cmd_hand)

    replay = sub.add_parser("replay", help="validate and score a hand log")
    replay.add_argument("file", help="hand log (JSON Lines); - for standard input")
    replay.set_defaults(func=cmd_replay)

    par = sub.add_parser("par", help="a hand log's double-dummy tricks and nil safety")
    par.add_argument("file", help="hand log (JSON Lines); - for standard input")
    par.set_defaults(func=cmd_par)

    bench = sub.add_parser("bench", help="measure warm hands per second per core")
    add_rules(bench)
    add_strategy(bench)
    bench.add_argument("--hands", type=units_type, default=2_000_000,
                       help="hands to time, after a warm-up (default 2,000,000)")
    bench.add_argument("--jobs", type=jobs_type, default=1,
                       help="worker processes; the rate is also given per core (default 1)")
    bench.add_argument("--seed", type=seed_type, default=0,
                       help="the seed of the timed hands (default 0)")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--no-history", action="store_true",
                       help="do not append to benchmarks/history.jsonl")
    bench.set_defaults(func=cmd_bench)

    for name, func, help_text in (
        ("match", cmd_match, "a match of strategy A against B on shared deals: duplicate "
                             "with partnerships (A at seats 0, 2, B at 1, 3, then swapped); "
                             "with 2 or 3 players (cutthroat, two-player) every deal once per "
                             "rotation, A at one seat and B at the others"),
        ("tournament", cmd_tournament, "a round robin of matches (duplicate or rotated) on the "
                                       "same deals, with ratings"),
    ):
        evaluation = sub.add_parser(name, help=help_text)
        if name == "match":
            evaluation.add_argument("a", metavar="A", help="strategy spec of seats 0 and 2 "
                                    "(with 2 or 3 players: of one seat, each seat in turn)")
            evaluation.add_argument("b", metavar="B", help="strategy spec of seats 1 and 3 "
                                    "(with 2 or 3 players: of every other seat)")
        else:
            evaluation.add_argument("strategies", nargs="+", metavar="SPEC",
                                    help="two or more different strategy specs")
        add_rules(evaluation)
        units = evaluation.add_mutually_exclusive_group(required=True)
        units.add_argument("--games", type=units_type, help="boards of whole games (each deal "
                           "sequence is played twice, or once per seat with 2 or 3 players)")
        units.add_argument("--hands", type=units_type, help="boards of single hands (each deal is "
                           "played twice, or once per seat with 2 or 3 players)")
        evaluation.add_argument("--seed", type=seed_type, default=0,
                                help=SEED_HELP)
        evaluation.add_argument("--jobs", type=jobs_type, default=1,
                                help="worker processes on this machine (default 1)")
        evaluation.add_argument("--json", action="store_true", help="print one JSON object")
        add_run_options(evaluation, evaluation=True)
        evaluation.set_defaults(func=func)

    _add_tune(sub)
    _add_bid_model(sub)

    rules = sub.add_parser("rules", help="list presets, or show every field of one")
    rules.add_argument("preset", nargs="?", help="a preset name; none lists every preset "
                       "(or, with --rule, shows classic)")
    rules.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                       help="override one field of the preset, classic when none is given "
                            "(repeatable)")
    rules.set_defaults(func=cmd_rules)

    strategies = sub.add_parser("strategies", help="list strategies and their parameters")
    strategies.set_defaults(func=cmd_strategies)
    for command in sub.choices.values():  # --debug after the command too
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="on an error, print the traceback (a plug-in's own) too")
    return parser


def _add_tune(sub) -> None:
    tune = sub.add_parser("tune", help="tune a strategy family's parameters with CMA-ES "
                          "against opponents (docs/tuning.md)")
    tune.add_argument("family", metavar="FAMILY",
                      help="a built-in kind or preset to tune (heuristic, mc, random, "
                           "aggressive, ...), or a plug-in SOURCE:CLASS[:name=value,...] "
                           "(its tunable parameters: docs/strategies.md)")
    add_rules(tune)
    tune.add_argument("--against", action="append", required=True, metavar="SPEC",
                      help="an opponent strategy: a built-in name, a preset or a plug-in "
                           "(repeatable: the objective is taken over them)")
    tune.add_argument("--objective", choices=("mean", "worst"), default="mean",
                      help="what is maximised over the opponents: the mean of the mean "
                           "differences per board (default), or the worst of them")
    tune.add_argument("--param", action="append", metavar="NAME[=LOW:HIGH]",
                      help="a parameter to tune, with its search bounds (repeatable; default: "
                           "the family's default set)")
    tune.add_argument("--start", metavar="SPEC",
                      help="the starting strategy, of the family's kind or the same plug-in "
                           "(default the family)")
    tune.add_argument("--generations", type=units_type, default=20,
                      help="CMA-ES generations (default 20); a rerun with more continues")
    tune.add_argument("--popsize", type=units_type, default=None,
                      help="candidates per generation (default CMA-ES's, 4 + 3 ln N)")
    tune.add_argument("--boards", type=units_type, default=200,
                      help="boards (whole games in every seating) per candidate and opponent "
                           "(default 200)")
    tune.add_argument("--holdout-boards", type=units_type, default=20_000,
                      help="boards of the held-out evaluation of the tuned strategy "
                           "(default 20,000)")
    tune.add_argument("--sigma", type=float, default=1.0,
                      help="CMA-ES's first step, in tenths of every parameter's search range "
                           "(default 1.0)")
    tune.add_argument("--seed", type=seed_type, default=0, help=SEED_HELP)
    tune.add_argument("--jobs", type=jobs_type, default=1,
                      help="worker processes (loky) or local Dask workers (default 1)")
    tune.add_argument("--backend", choices=("loky", "dask"), default=None,
                      help="loky (the default): worker processes here; dask: a Dask cluster")
    tune.add_argument("--scheduler", metavar="ADDRESS",
                      help="Dask scheduler address (tcp://host:8786), with --backend dask; "
                           "none starts a local one")
    tune.add_argument("--out", metavar="DIR", help="the tuning's folder (default under "
                      "results/); re-running the same command resumes it")
    tune.add_argument("--quiet", action="store_true", help="no progress line per generation")
    tune.add_argument("--json", action="store_true", help="print one JSON object")
    tune.set_defaults(func=cmd_tune)


def _add_bid_model(sub) -> None:
    model = sub.add_parser("bid-model", help="refit or check the trick model of the "
                           "heuristic's expected-value bids (docs/players.md)")
    model.add_argument("action", choices=("fit", "check"),
                       help="fit: play hands of every shape's preset and write the model; "
                            "check: its calibration on fresh hands")
    model.add_argument("--hands", type=units_type, default=None,
                       help="hands per shape and fitting run (default 400,000 to fit, "
                            "100,000 to check)")
    model.add_argument("--seed", type=seed_type, default=None, help=SEED_HELP)
    model.add_argument("--shape", action="append", choices=[shape[0] for shape in SHAPES],
                       help="only this shape (repeatable; default all; fit writes all)")
    model.add_argument("--out", metavar="FILE",
                       help="fit: where to write the model (default the package's own file, "
                            "which the engine compiles in)")
    model.add_argument("--json", action="store_true", help="check: print one JSON object")
    model.set_defaults(func=cmd_bid_model)


def _say(text: str) -> None:
    print(f"spades-sim: {text}", file=sys.stderr, flush=True)


def _notices_wanted(args) -> bool:
    """Notices (``core/notices.py``) unless ``--quiet``, ``SPADES_SIM_NOTICES=0``, or a JSON
    summary that goes to standard error (with ``--log -``)."""
    if getattr(args, "quiet", False) or os.environ.get("SPADES_SIM_NOTICES") == "0":
        return False
    return not (getattr(args, "json", False) and getattr(args, "log", None) == "-")


def main(argv=None) -> int:
    """Run one command; returns the exit status (2 for bad arguments, input or options, each
    reported as one line on standard error)."""
    parser = build_parser()
    given = sys.argv[1:] if argv is None else list(argv)
    for index, text in enumerate(given):
        if isinstance(text, str) and "\x00" in text:  # (only main(argv) can pass one)
            print(f"spades-sim: error: argument {index + 1} holds a NUL character, which no "
                  f"path, name or value may hold", file=sys.stderr)
            return 2
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # a bad argument (one line already printed), --help, --version
        return 0 if exit_.code is None else exit_.code if isinstance(exit_.code, int) else 2
    try:
        if _notices_wanted(args):
            set_notice(_say)  # (a kernel's first compile, say: one line on standard error)
        if args.command in _PLAYING_COMMANDS:
            from ..run.heap import keep_heap

            keep_heap()  # (this process plays chunks: ``run/heap.py``)
        return args.func(args)
    except SpadesError as error:
        if args.debug:
            traceback.print_exception(error)
        message = " ".join(str(error).split("\n"))
        print(f"spades-sim {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`spades-sim ... | head`): stop quietly, as Unix tools do.
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
    finally:
        set_notice(None)  # (main() called from Python leaves the caller's process as it was)
