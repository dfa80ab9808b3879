"""The public API: the names a user needs, importable from ``spades_sim`` and listed by
``dir``; nothing else at the top."""

import spades_sim

PUBLIC = ["DealFilter", "Game", "Hand", "Rules", "build_report", "hand_features", "load_run",
          "match", "par", "preset", "run_experiment", "simulate", "solve", "tournament", "tune",
          "win_probability", "win_probability_by_lead"]


def test_dir_lists_the_public_names():
    assert spades_sim.__all__ == PUBLIC
    assert dir(spades_sim) == sorted(PUBLIC + ["__version__"])


def test_every_public_name_resolves_to_its_object():
    from spades_sim.core.rules import Rules, preset
    from spades_sim.evaluate import match, tournament
    from spades_sim.experiment import run_experiment
    from spades_sim.game import Game, Hand
    from spades_sim.game.par import hands_par
    from spades_sim.report import build_report
    from spades_sim.run import load_run, simulate
    from spades_sim.tuning import tune

    expected = {"Game": Game, "Hand": Hand, "Rules": Rules, "build_report": build_report,
                "load_run": load_run, "match": match, "par": hands_par, "preset": preset,
                "run_experiment": run_experiment, "simulate": simulate,
                "tournament": tournament, "tune": tune}
    for name, value in expected.items():
        assert getattr(spades_sim, name) is value, name
    assert callable(spades_sim.solve) and callable(spades_sim.win_probability)


def test_an_unknown_name_is_an_attribute_error():
    try:
        spades_sim.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("no error")


def test_the_public_names_work_together():
    rules = spades_sim.preset("classic", target=300)
    assert isinstance(rules, spades_sim.Rules) and rules.target == 300
    hand = spades_sim.Hand.deal(rules, seed=7)
    while not hand.done:
        hand.apply(hand.legal_actions()[0])
    assert sum(hand.tricks) == 13
