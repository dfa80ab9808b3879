"""The command line's option types and option groups: bounded integers, presets, strategies, the
options of runs on disk and the check that refuses options without effect."""

from __future__ import annotations

import argparse

from ..core.errors import UsageError
from ..core.limits import MAX_CHUNK_SIZE, MAX_JOBS, MAX_SEED, MAX_UNITS
from ..core.rules import build_rules
from ..core.strategies import seat_strategies


class Parser(argparse.ArgumentParser):
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


units_type = _bounded(MAX_UNITS)  # hands, games or boards
_chunk_size = _bounded(MAX_CHUNK_SIZE)
jobs_type = _bounded(MAX_JOBS)
seed_type = _bounded(MAX_SEED, low=0)
index_type = _bounded(MAX_UNITS, low=0)  # a hand or game id


def _preset_name(text: str) -> str:
    """A ``--rules`` value: a preset name, never empty (it is checked against the presets when
    the rules are built)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is empty; give a preset name (spades-sim "
                                         f"rules lists them)")
    return text.strip()


def add_rules(parser, several=False):
    if several:
        parser.add_argument("--rules", action="append", metavar="PRESET", type=_preset_name,
                            help="rule preset (see `spades-sim rules`); default classic; with "
                                 "--out, repeat it to play several presets on the same deals")
    else:
        parser.add_argument("--rules", default="classic", metavar="PRESET", type=_preset_name,
                            help="rule preset (see `spades-sim rules`); default classic")
    parser.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                        help="override one rule field (repeatable)")


def add_strategy(parser):
    parser.add_argument("--strategy", action="append", metavar="SPEC",
                        help="NAME[:param=value,...]; once for every seat or once per seat "
                             "(default heuristic)")


def rules_and_strategies(args):
    preset_name = args.rules[0] if isinstance(args.rules, list) else args.rules
    rules = build_rules(preset_name or "classic", args.rule)  # None: no --rules given
    strategies = seat_strategies(args.strategy or ["heuristic"], rules.players)
    return rules, strategies


def add_run_options(parser, evaluation=False):
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
        group.add_argument("--par", action="store_true",
                           help="add the par columns: each side's double-dummy tricks and "
                                "whether each nil is double-dummy safe (slow: every deal is "
                                "solved; see docs/runs.md)")
        group.add_argument("--cards", action="store_true",
                           help="add the cards column: every seat's dealt cards (8 bytes a "
                                "row), so that `spades-sim hand` checks the hands it replays")
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
    ("par", "--par", "the par columns go into the dataset of a run written to disk (spades-sim "
                     "par FILE gives the par of a hand log)"),
    ("cards", "--cards", "the cards column goes into the dataset of a run written to disk "
                         "(--log writes every hand whole)"),
    ("backend", "--backend", "without --out the {unit} are played here, in memory, by --jobs "
                             "processes"),
    ("scheduler", "--scheduler", "a Dask scheduler plays the chunks of a run written to disk"),
)


def check_options(args, unit: str | None = None) -> None:
    """Refuse options that would have no effect: on simulate and games (``unit`` given) those
    of runs on disk without --out; everywhere --scheduler without --backend dask."""
    if unit is not None and not args.out:
        for name, option, why in _DISK_ONLY:
            if getattr(args, name, None):
                raise UsageError(f"{option} needs --out: {why.format(unit=unit)}")
    if args.scheduler and args.backend != "dask":
        raise UsageError("--scheduler needs --backend dask: the loky backend plays on this "
                         "machine")


