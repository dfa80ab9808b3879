"""The command line refuses what it cannot do well, at once, in one line with exit status 2:
sizes beyond the shared bounds (core/limits.py), options that would have no effect, and hand
log paths that are not regular files; ``--log -`` writes the log to standard output."""

import io
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from spades_sim.cli import main
from spades_sim.core.limits import MAX_UNITS

HUGE = "100000000000000000000"


def one_line_error(capsys, args, fragment):
    """``main(args)`` fails with status 2 and one line naming ``fragment``; nothing on stdout."""
    assert main(args) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and captured.err.endswith("\n"), captured.err
    assert lines[0].startswith(f"spades-sim {args[0]}: error: "), lines[0]
    assert fragment in lines[0], lines[0]
    assert captured.out == ""
    return lines[0]


# -- sizes beyond the bounds -------------------------------------------------------------------
TOO_LARGE = "is more than the largest allowed"


@pytest.mark.parametrize("args, fragment", [
    (["simulate", "--hands", HUGE], f"argument --hands: {HUGE} {TOO_LARGE}, 1,000,000,000,000"),
    (["simulate", "--hands", str(MAX_UNITS + 1)], f"{MAX_UNITS + 1} {TOO_LARGE}"),
    (["games", "--games", "99999999999999999999"], f"argument --games: 99999999999999999999 "
                                                    f"{TOO_LARGE}"),
    (["match", "heuristic", "random", "--games", HUGE], f"argument --games: {HUGE}"),
    (["match", "heuristic", "random", "--hands", HUGE], f"argument --hands: {HUGE}"),
    (["tournament", "heuristic", "random", "--games", HUGE], f"argument --games: {HUGE}"),
    (["tournament", "heuristic", "random", "--hands", HUGE], f"argument --hands: {HUGE}"),
    (["bench", "--hands", HUGE], f"argument --hands: {HUGE}"),
    (["simulate", "--seed", str(2**128)], f"argument --seed: {2**128} {TOO_LARGE}, 2**128 - 1"),
    (["match", "heuristic", "random", "--games", "2", "--seed", str(2**130)], "--seed"),
    (["bench", "--seed", str(2**128)], "argument --seed"),
    (["simulate", "--jobs", "4097"], f"argument --jobs: 4097 {TOO_LARGE}, 4,096"),
    (["run", "x.toml", "--jobs", HUGE], "argument --jobs"),
    (["tournament", "heuristic", "random", "--games", "2", "--jobs", "5000"], "--jobs"),
    (["simulate", "--out", "x", "--chunk-size", "10000001"],
     f"argument --chunk-size: 10000001 {TOO_LARGE}, 10,000,000"),
    (["match", "heuristic", "random", "--games", "2", "--chunk-size", HUGE], "--chunk-size"),
    (["simulate", "--hands", "9" * 5000], f"argument --hands: {'9' * 20}... (5000 characters) "
                                           f"{TOO_LARGE}"),
    (["simulate", "--hands", "-" + "9" * 100], "must be at least 1"),
    (["simulate", "--seed", "-1"], "argument --seed: -1 must be 0 or more"),
    (["simulate", "--hands", "lots"], "argument --hands: 'lots' is not an integer"),
])
def test_sizes_beyond_the_bounds_are_refused_at_parsing(capsys, args, fragment):
    one_line_error(capsys, args, fragment)


def test_a_huge_size_from_a_subprocess_is_one_line_without_traceback():
    result = subprocess.run([sys.executable, "-m", "spades_sim.cli", "simulate", "--hands", HUGE],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (f"spades-sim simulate: error: argument --hands: {HUGE} is more "
                             f"than the largest allowed, 1,000,000,000,000\n")


def test_out_of_memory_is_one_line(capsys, monkeypatch):
    import spades_sim.run as run

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(run, "simulate_hands", exhausted)
    one_line_error(capsys, ["simulate", "--hands", "5"], "out of memory; write large runs to "
                                                         "disk with --out DIR")


# -- options that would do nothing -------------------------------------------------------------
@pytest.mark.parametrize("args, fragment", [
    (["simulate", "--shard", "1/2"], "--shard needs --out: a shard is a share of the chunks"),
    (["games", "--shard", "1/2"], "--shard needs --out"),
    (["simulate", "--duplicate"], "--duplicate needs --out: duplicate mode is a way of playing "
                                  "runs written to disk"),
    (["games", "--duplicate"], "--duplicate needs --out"),
    (["simulate", "--chunk-size", "10"], "--chunk-size needs --out: without --out the hands are "
                                         "played in memory in one piece"),
    (["games", "--chunk-size", "10"], "without --out the games are played in memory"),
    (["simulate", "--backend", "loky"], "--backend needs --out: without --out the hands are "
                                        "played here"),
    (["games", "--backend", "dask"], "--backend needs --out"),
    (["simulate", "--scheduler", "tcp://h:8786"], "--scheduler needs --out"),
    (["simulate", "--out", "never", "--scheduler", "tcp://h:8786"],
     "--scheduler needs --backend dask: the loky backend plays on this machine"),
    (["match", "heuristic", "random", "--games", "2", "--scheduler", "tcp://h:8786"],
     "--scheduler needs --backend dask"),
    (["tournament", "heuristic", "random", "--games", "2", "--scheduler", "tcp://h:8786"],
     "--scheduler needs --backend dask"),
    (["run", "x.toml", "--scheduler", "tcp://h:8786"], "--scheduler needs --backend dask"),
    (["simulate", "--hands", "10000001"], "--hands 10,000,001 without --out: a run played in "
                                          "memory is held whole, like one chunk, so at most "
                                          "10,000,000; write larger runs with --out DIR"),
    (["games", "--games", str(MAX_UNITS)], f"--games {MAX_UNITS:,} without --out"),
    (["simulate", "--rules", ""], "argument --rules: '' is empty; give a preset name"),
    (["games", "--rules", "  "], "argument --rules: '  ' is empty"),
    (["bench", "--rules", ""], "argument --rules: '' is empty"),
    (["match", "heuristic", "random", "--games", "2", "--rules", ""], "is empty"),
])
def test_options_without_effect_are_refused(capsys, args, fragment, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_line_error(capsys, args, fragment)
    assert list(tmp_path.iterdir()) == []  # nothing played, nothing written


# -- --log: regular files only, or standard output ---------------------------------------------
REFUSED = "a hand log is written to a regular file only"


def test_log_refuses_a_symbolic_link(capsys, tmp_path):
    target = tmp_path / "target.jsonl"
    target.write_text("keep me\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    one_line_error(capsys, ["simulate", "--hands", "5", "--log", str(link)],
                   f"hand log {link}: is a symbolic link; {REFUSED}")
    assert link.is_symlink() and target.read_text() == "keep me\n"
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "nowhere")
    one_line_error(capsys, ["games", "--games", "2", "--log", str(dangling)],
                   "is a symbolic link")
    assert dangling.is_symlink()


def test_log_refuses_a_fifo_a_device_a_directory_and_a_socket(capsys, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    one_line_error(capsys, ["simulate", "--hands", "5", "--log", str(fifo)],
                   f"hand log {fifo}: is a named pipe (FIFO); {REFUSED}")
    one_line_error(capsys, ["simulate", "--hands", "5", "--log", os.devnull],
                   f"hand log {os.devnull}: is a character device")
    one_line_error(capsys, ["games", "--games", "2", "--log", str(tmp_path)],
                   f"hand log {tmp_path}: is a directory")
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        one_line_error(capsys, ["simulate", "--hands", "5", "--log", str(path)], "is a socket")
    assert fifo.exists() and not fifo.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "sock"]  # no temporary file
    one_line_error(capsys, ["simulate", "--hands", "5", "--log", str(tmp_path / "no" / "x")],
                   f"the folder {tmp_path / 'no'} does not exist")
    one_line_error(capsys, ["simulate", "--hands", "5", "--log", ""], "the path is empty")


def test_log_refusals_come_before_playing(capsys, tmp_path, monkeypatch):
    import spades_sim.run as run

    def refuse(*args, **kwargs):
        raise AssertionError("played before checking the log path")

    monkeypatch.setattr(run, "simulate_hands", refuse)
    one_line_error(capsys, ["simulate", "--log", str(tmp_path)], "is a directory")


def test_log_replaces_a_regular_file(capsys, tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text("old\n")
    assert main(["simulate", "--hands", "7", "--seed", "2", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert f"hand log: {log}" in out
    lines = log.read_text().splitlines()
    assert len(lines) == 7 and json.loads(lines[0])["hand_id"] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["log.jsonl"]


def test_log_dash_writes_the_log_to_stdout_and_the_summary_to_stderr(capsys, tmp_path):
    assert main(["simulate", "--hands", "12", "--seed", "3", "--log", "-"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 12
    assert [json.loads(line)["hand_id"] for line in lines] == list(range(12))
    assert "12 independent hands" in captured.err and "mean_score" in captured.err
    assert "hand log" not in captured.err
    assert not (tmp_path / "-").exists() and not os.path.exists("-")
    # the same hands as a log written to a file
    log = tmp_path / "log.jsonl"
    assert main(["simulate", "--hands", "12", "--seed", "3", "--log", str(log)]) == 0
    capsys.readouterr()
    assert log.read_text() == captured.out
    # games, with --json: the JSON summary goes to stderr as well
    assert main(["games", "--games", "3", "--seed", "1", "--log", "-", "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.err)
    assert sum(row["wins"] for row in summary["games"]) + summary["ties"] == 3
    hands = [json.loads(line) for line in captured.out.splitlines()]
    assert {hand["game_id"] for hand in hands} == {0, 1, 2}


def test_log_dash_pipes_into_replay(tmp_path):
    command = [sys.executable, "-m", "spades_sim.cli"]
    played = subprocess.run([*command, "simulate", "--hands", "20", "--seed", "4", "--log", "-"],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert "20 independent hands" in played.stderr
    replayed = subprocess.run([*command, "replay", "-"], input=played.stdout,
                              capture_output=True, text=True, timeout=600)
    assert replayed.returncode == 0 and replayed.stderr == ""
    assert len(replayed.stdout.splitlines()) == 20
    assert list(tmp_path.iterdir()) == []  # no file named "-"


def test_help_documents_log_dash(capsys):
    assert main(["simulate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "- writes it to standard output, and the summary then goes to standard error" in text
    assert "regular file" in text


# -- plug-ins that print or misbehave ------------------------------------------------------------
PLUGINS = Path(__file__).parent / "plugins"
FAULTY = f"{PLUGINS / 'faulty.py'}:Faulty:fault="


def test_a_printing_plugin_keeps_out_of_json_and_the_log(capsys, tmp_path, monkeypatch):
    module = tmp_path / "chatty.py"
    module.write_text("print('hello at import')\n"
                      f"import sys; sys.path.insert(0, {str(PLUGINS)!r})\n"
                      "from faulty import Faulty\n"
                      "class Chatty(Faulty):\n"
                      "    def __init__(self):\n"
                      "        print('hello from the constructor')\n"
                      "        super().__init__('print')\n")
    spec = f"{module}:Chatty"
    assert main(["simulate", "--strategy", spec, "--hands", "3", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)[0]["hands"] == 3  # standard output is the JSON alone
    for said in ("hello at import", "hello from the constructor", "thinking about my bid",
                 "playing"):
        assert said in captured.err
    assert main(["simulate", "--strategy", spec, "--hands", "3", "--log", "-"]) == 0
    captured = capsys.readouterr()
    assert "thinking about my bid" in captured.err
    assert [json.loads(line)["hand_id"] for line in captured.out.splitlines()] == [0, 1, 2]
    # `replay -` reads that standard output as it is
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(captured.out.encode())))
    assert main(["replay", "-"]) == 0
    replayed = capsys.readouterr()
    assert replayed.err == "" and len(replayed.out.splitlines()) == 3


def test_a_printing_numba_plugin_keeps_out_of_json(capsys):
    spec = f"{PLUGINS / 'faulty.py'}:Printing"
    assert main(["simulate", "--strategy", spec, "--hands", "2", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)[0]["hands"] == 2
    assert "numba plays" in captured.err


@pytest.mark.parametrize("args, fragment", [
    ([FAULTY + "constructor"], "faulty.py:Faulty:fault=constructor: its constructor raised "
                               "RuntimeError: no table for me"),
    ([FAULTY + "base"], "raised BaseException: out of here (hand 0, seat 1, bid phase)"),
    ([FAULTY + "exit"], "called sys.exit(5) (hand 0, seat 1, bid phase); a strategy must "
                        "return its decision, not end the program"),
    ([FAULTY + "bool_bid"], "its bid False is a bool, not an int (hand 0, seat 1); legal: 0 1"),
    ([FAULTY + "str_bid"], "its bid '3' is a str, not an int (hand 0, seat 1)"),
    ([FAULTY + "float_card"], "its play 10.0 is a float, not an int (hand 0, seat 1); legal: "
                              "QC 4D"),
    ([FAULTY + "edit_hands"], "changed the game's state (hands) while deciding in hand 0"),
    ([FAULTY + "edit_bids"], "changed the game's state (bids) while deciding in hand 0, seat "
                             "1, bid phase; a strategy must only read its observation"),
    ([FAULTY + "pass_none", "random", "heuristic", "random"],
     "pass_cards returned None (a NoneType) in hand 0, seat 0; it must return a list of 2 "
     "card indices"),
    ([f"{PLUGINS / 'faulty.py'}:TextDefault"], "the default of parameter depth in the class's "
                                               "params is 'abc'; a default must be a finite "
                                               "number"),
    ([f"{PLUGINS / 'faulty.py'}:NoneDefault"], "parameter depth in the class's params is None"),
    ([f"{PLUGINS / 'faulty.py'}:Floating"], "Floating: play returns float64, not an integer "
                                            "(a bid or a card index)"),
    ([f"{PLUGINS / 'faulty.py'}:Raising"], "Raising raised ValueError: no third trick (hand 0, "
                                           "seat 2, play phase)"),
])
def test_plugin_faults_are_one_line(capsys, args, fragment):
    command = ["simulate", "--hands", "3", "--rule", "nil_exchange=2", "--json"]
    for spec in args:
        command += ["--strategy", spec]
    line = one_line_error(capsys, command, fragment)
    assert "Exception ignored" not in line


@pytest.mark.parametrize("source, fragment", [
    ("raise BaseException('at import')", "failed: BaseException: at import"),
    ("import sys; sys.exit(5)", "failed: sys.exit(5) (a plug-in must not end the program)"),
    ("raise KeyError('x')", "failed: KeyError: 'x'"),
])
def test_plugin_faults_at_import_are_one_line(capsys, tmp_path, source, fragment):
    module = tmp_path / "broken.py"
    module.write_text(source + "\nclass P:\n    pass\n")
    one_line_error(capsys, ["simulate", "--strategy", f"{module}:P", "--hands", "2"], fragment)


def test_a_plugin_exiting_in_a_subprocess_is_one_line_not_status_5(tmp_path):
    played = subprocess.run([sys.executable, "-m", "spades_sim.cli", "simulate", "--strategy",
                             FAULTY + "exit", "--hands", "2", "--json"],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert played.returncode == 2 and played.stdout == ""
    assert played.stderr.count("\n") == 1 and "called sys.exit(5)" in played.stderr


def test_strategy_spec_and_rules_faults_are_one_line(capsys):
    one_line_error(capsys, ["simulate", "--strategy", "heuristic:aggression=1,aggression=2"],
                   "strategy heuristic: parameter aggression is given twice (1 and 2)")
    one_line_error(capsys, ["simulate", "--strategy", "heuristic:aggression=nan"],
                   "parameter aggression=nan is NaN (not a number); give a finite number")
    one_line_error(capsys, ["simulate", "--strategy", "random:bid_max=nan"],
                   "parameter bid_max=nan is NaN (not a number); give a value in 0..17")
    assert main(["rules", "--rule", "target=300"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("preset classic (") and ", with target=300" in shown.splitlines()[0]
    assert re.search(r"^target +300 ", shown, re.M)


def test_par_checks_its_file_before_loading_the_solver():
    code = ("import sys; from spades_sim.cli import main; status = main(['par', "
            "'/nonexistent/log.jsonl']); print(status, 'spades_sim.handlog.par' in sys.modules, "
            "'numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.stdout.split() == ["2", "False", "False"], done
    assert "No such file or directory: /nonexistent/log.jsonl" in done.stderr
