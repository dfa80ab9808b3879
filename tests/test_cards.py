"""Every deal recoverable: the ``cards`` column of runs played with ``--cards``, ``spades-sim
hand`` (any hand of a run on disk replayed into a hand-log line, checked against the dataset),
and ``--log`` together with ``--out``. Runs of a few hands: the module takes seconds."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from spades_sim.cli import main
from spades_sim.core.features import FEATURE_TYPES
from spades_sim.core.rules import preset
from spades_sim.core.schema import TIDY_COLUMNS
from spades_sim.experiment.parse import parse_experiment
from spades_sim.handlog import hand_record, replay_line
from spades_sim.run import (
    RunSpec,
    execute,
    load_run,
    make_config,
    play_games,
    replay_hand,
    simulate,
    simulate_hands,
)

MIXED = ["heuristic", "random", "heuristic:aggression=1", "random:bid_max=6"]
RESULTS = ("tricks", "score_delta", "bags_after")


def configs():
    return (make_config("classic", preset("classic"), ["heuristic"]),
            make_config("mixed", preset("classic"), MIXED))


@pytest.fixture(scope="module")
def hands_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("hands")
    execute(RunSpec(configs(), 3, n_hands=12, chunk_size=5, cards=True, duplicate=True), out,
            quiet=True)
    return out


@pytest.fixture(scope="module")
def games_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("games")
    rules = preset("classic", target=200)
    execute(RunSpec((make_config("short", rules, MIXED),), 5, n_games=3, chunk_size=2,
                    cards=True), out, quiet=True)
    return out


def replayed(obj) -> dict:
    """The hand-log object replayed by ``handlog.replay`` with its results left out: the rules'
    own scoring of its deal, bids and plays."""
    line = json.dumps({key: value for key, value in obj.items() if key not in RESULTS})
    result = replay_line(1, line)
    assert isinstance(result, dict), result
    return result


def assert_matches_rows(obj, rows, shift=0):
    """The replayed hand-log object gives the dataset's rows (one per seat, by seat; ``shift``:
    the rotated copy of a duplicate run, whose seat ``s`` was played from ``s - shift``)."""
    scored = replayed(obj)
    rows = rows.sort_values("seat")
    physical = (rows["seat"].to_numpy() - shift) % 4
    sides = physical % 2
    assert [scored["bids"][p] for p in physical] == rows["bid"].tolist()
    assert [scored["tricks"][p] for p in physical] == rows["tricks"].tolist()
    assert [scored["score_delta"][s] for s in sides] == rows["score_delta"].tolist()
    assert [scored["score_before"][s] for s in sides] == rows["score_before"].tolist()
    assert [scored["bags_after"][s] for s in sides] == rows["bags_after"].tolist()
    masks = [sum(1 << card for card in _cards(obj["hands"][p])) for p in physical]
    assert masks == rows["cards"].tolist()


def _cards(texts):
    from spades_sim.core.cards import parse_card

    return [parse_card(text) for text in texts]


def test_cards_column_holds_the_dealt_hands(hands_run):
    frame = load_run(hands_run)
    assert list(frame.columns) == [*TIDY_COLUMNS, "cards", *FEATURE_TYPES]
    assert frame["cards"].dtype == np.int64
    plain = frame[(frame["config"] == "mixed") & ~frame["duplicate"]]
    rules, strategies = configs()[1].rules, configs()[1].strategies
    dealt = simulate_hands(rules, strategies, 12, 3).hands.hands[:, :4]
    assert plain.sort_values(["hand_id", "seat"])["cards"].tolist() == dealt.reshape(-1).tolist()
    # 13 cards a seat, the four seats the whole deck
    assert (np.bitwise_count(frame["cards"].to_numpy()) == 13).all()
    deck = plain.groupby("hand_id")["cards"].agg(lambda m: np.bitwise_or.reduce(m.to_numpy()))
    assert (deck == (1 << 52) - 1).all()


def test_a_run_without_cards_is_unchanged():
    plain = RunSpec(configs(), 3, n_hands=12, chunk_size=5)
    assert "cards" not in plain.identity() and plain.columns == TIDY_COLUMNS
    assert RunSpec(configs(), 3, n_hands=12, chunk_size=5, cards=False).identity_hash() == \
        plain.identity_hash()
    with_cards = RunSpec(configs(), 3, n_hands=12, chunk_size=5, cards=True)
    assert with_cards.identity()["cards"] is True
    assert with_cards.identity_hash() != plain.identity_hash()
    a = simulate(configs(), n_hands=6, seed=3, chunk_size=4)
    b = simulate(configs(), n_hands=6, seed=3, chunk_size=4, cards=True)
    pd.testing.assert_frame_equal(a, b.drop(columns=["cards", *FEATURE_TYPES]))


@pytest.mark.parametrize("config, hand, duplicate", [
    ("classic", 0, False), ("mixed", 7, False), ("mixed", 11, True)])
def test_any_hand_of_a_hands_run_comes_back_whole(hands_run, config, hand, duplicate):
    obj = hand_record(hands_run, hand, config=config, duplicate=duplicate)
    assert obj["hand_id"] == hand and obj["game_id"] is None and len(obj["plays"]) == 52
    frame = load_run(hands_run)
    rows = frame[(frame["config"] == config) & (frame["hand_id"] == hand)
                 & (frame["duplicate"] == duplicate)]
    assert_matches_rows(obj, rows, shift=1 if duplicate else 0)


def test_a_games_later_hand_comes_back_with_its_scores_before(games_run):
    frame = load_run(games_run)
    game = frame[frame["game_id"] == 2]
    last = int(game["hand_id"].max())
    assert last >= 1
    obj = hand_record(games_run, last, game=2)
    assert obj["game_id"] == 2 and obj["hand_id"] == last
    assert any(obj["score_before"])
    assert_matches_rows(obj, game[game["hand_id"] == last])
    short = make_config("short", preset("classic", target=200), MIXED)
    whole = play_games(short.rules, short.strategies, 3, 5).hands
    assert obj["hands"] and replay_hand(games_run, 0, game=1).run.hands.hands.tolist() == \
        whole.hands[whole.game_id == 1][:1].tolist()


def test_the_hand_command_prints_one_line_replay_accepts(games_run, tmp_path, capsys):
    assert main(["hand", str(games_run), "--game", "1", "--hand", "1"]) == 0
    out, err = capsys.readouterr()
    assert out.count("\n") == 1 and err == ""
    log = tmp_path / "one.jsonl"
    log.write_text(out)
    assert main(["replay", str(log)]) == 0
    assert json.loads(capsys.readouterr().out)["game_id"] == 1


@pytest.mark.parametrize("args, fragment", [
    (["--hand", "12", "--config", "classic"], "no hand 12: the run has hands 0..11"),
    (["--hand", "1"], "several configurations (classic, mixed)"),
    (["--hand", "1", "--config", "bold"], "no configuration 'bold'"),
    (["--hand", "1", "--config", "classic", "--game", "0"], "a hands run has no games"),
    (["--hand", "-1"], "must be 0 or more"),
    (["--game", "1"], "required: --hand"),
])
def test_bad_hands_get_one_line(hands_run, capsys, args, fragment):
    assert main(["hand", str(hands_run), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err, err


@pytest.mark.parametrize("args, fragment", [
    (["--hand", "0"], "give the game (--game G)"),
    (["--hand", "0", "--game", "3"], "no game 3: the run has games 0..2"),
    (["--hand", "99", "--game", "0"], "game 0 has no hand 99: it has hands 0.."),
    (["--hand", "0", "--game", "0", "--duplicate"], "not played with --duplicate"),
])
def test_bad_games_get_one_line(games_run, capsys, args, fragment):
    assert main(["hand", str(games_run), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err, err


def test_not_a_run_folder_gets_one_line(tmp_path, capsys):
    assert main(["hand", str(tmp_path), "--hand", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("spades-sim hand: error: ")


def test_a_replay_that_no_longer_matches_is_refused(games_run, tmp_path, capsys):
    # The same run folder, its strategies changed behind its back: the replay is refused.
    import shutil

    from spades_sim.run.dataset import read_meta
    from spades_sim.run.spec import identity_hash

    out = tmp_path / "edited"
    shutil.copytree(games_run, out)
    meta = read_meta(out)
    meta["identity"]["configs"][0]["strategies"] = ["random"] * 4
    old, meta["identity_sha256"] = meta["identity_sha256"], identity_hash(meta["identity"])
    for chunk in out.glob("data/chunk-*.parquet"):  # the chunks name the run they belong to
        import hashlib

        import pyarrow.parquet as pq

        table = pq.read_table(chunk)
        kv = {k: v.replace(old.encode(), meta["identity_sha256"].encode())
              for k, v in table.schema.metadata.items()}
        pq.write_table(table.replace_schema_metadata(kv), chunk, write_page_checksum=True)
        index = str(int(chunk.stem.split("-")[1]))  # and meta.json lists their bytes
        meta["chunks"][index] = hashlib.sha256(chunk.read_bytes()).hexdigest()
    (out / "meta.json").write_text(json.dumps(meta))
    assert main(["hand", str(out), "--game", "0", "--hand", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not match the dataset" in err, err


def test_without_cards_the_hand_comes_back_unchecked(tmp_path, capsys):
    out = tmp_path / "plain"
    assert main(["simulate", "--hands", "4", "--seed", "2", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["hand", str(out), "--hand", "3"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["hand_id"] == 3
    assert "could not be checked" in captured.err and captured.err.count("\n") == 1


@pytest.mark.parametrize("mode", ["simulate", "games"])
def test_log_with_out_writes_the_same_hands(tmp_path, capsys, mode):
    units = ["--hands", "6"] if mode == "simulate" else ["--games", "2", "--rule", "target=150"]
    out, log = tmp_path / "run", tmp_path / "hands.jsonl"
    assert main([mode, *units, "--seed", "8", "--quiet", "--cards", "--chunk-size", "4",
                 "--out", str(out), "--log", str(log)]) == 0
    assert f"hand log: {log}" in capsys.readouterr().out
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    frame = load_run(out).sort_values(["game_id", "hand_id", "seat"])
    assert len(lines) * 4 == len(frame)
    assert [b for line in lines for b in line["bids"]] == frame["bid"].tolist()
    assert [t for line in lines for t in line["tricks"]] == frame["tricks"].tolist()
    masks = [sum(1 << c for c in _cards(hand)) for line in lines for hand in line["hands"]]
    assert masks == frame["cards"].tolist()
    # and each line is the one `spades-sim hand` gives (its hand_id within its game)
    game = None if mode == "simulate" else lines[-1]["game_id"]
    hand = lines[-1]["hand_id"] if mode == "simulate" else int(frame["hand_id"].iloc[-1])
    assert hand_record(out, hand, game=game) == {**lines[-1], "hand_id": hand}


def test_log_with_out_refusals(tmp_path, capsys):
    base = ["simulate", "--hands", "4", "--quiet", "--log", str(tmp_path / "x.jsonl"),
            "--out", str(tmp_path / "run")]
    for extra, fragment in ((["--shard", "1/2"], "does not go with --shard"),
                            (["--duplicate"], "does not go with --duplicate"),
                            (["--rules", "classic", "--rules", "simple"], "one configuration")):
        assert main([*base, *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and fragment in err, err
    assert not (tmp_path / "run").exists()
    assert main(["simulate", "--hands", "4", "--cards"]) == 2
    assert "--cards needs --out" in capsys.readouterr().err


def test_experiment_files_take_cards():
    text = 'name = "x"\nseed = 1\nhands = 10\ngames = 2\ncards = true\n[[config]]\nname = "a"\n'
    experiment = parse_experiment(text)
    assert experiment.cards and experiment.spec("hands").cards and experiment.spec("games").cards
    assert not parse_experiment(text.replace("cards = true\n", "")).spec("hands").cards
