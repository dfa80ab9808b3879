# Set-up and everyday commands. `make run` and `make test` both create .venv (once) and install
# the package into it, editable, with its dev extras.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run reports par tuned bid-model test test-fast test-boundscheck lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The main job: the rule-variants experiment (the eight presets, each with the heuristic and with
# the heuristic tuned for it, on shared deals, hands and whole games), then its report; the last line printed is the path of reports/variants/index.html.
run: setup
	$(BIN)/spades-sim run experiments/variants.toml --jobs 2

# Every shipped experiment and its report (results/NAME/, reports/NAME/); the strength ladder
# (experiments/strength.toml, a round robin of 13 players in whole games and in hands) is the
# longest of them.
reports: setup
	$(BIN)/spades-sim run experiments/variants.toml --jobs 2
	$(BIN)/spades-sim run experiments/nil.toml --jobs 2 --quiet
	$(BIN)/spades-sim run experiments/bidding.toml --jobs 2 --quiet
	$(BIN)/spades-sim run experiments/strength.toml --jobs 2 --quiet

# Bids and play against par (experiments/par.toml): 100,000 classic hands, every deal solved
# double dummy; hours on two cores, so not part of `make reports`. Resumable: run it again.
par: setup
	$(BIN)/spades-sim run experiments/par.toml --jobs 2

# The tuned presets (tuned-PRESET): tune the heuristic for every preset and ship the results in
# spades_sim/core/data/tuned.json (docs/tuning.md).
tuned: setup
	$(BIN)/python experiments/tuned_presets.py --jobs 2

# Refit the trick model of the heuristic's expected-value bids, then check its calibration
# (docs/players.md); run it twice after a change to the play (the fit and the play feed each
# other).
bid-model: setup
	$(BIN)/spades-sim bid-model fit
	$(BIN)/spades-sim bid-model check

# The tests run on every core (pytest-xdist); the kernels are compiled first, in parallel.
test: setup
	$(BIN)/python -m pytest -q -n auto --durations=15

# The quick lane: the pure and small tests (rules, cards, scoring, parsing, analyses on small
# frames, the docs and the layers), which compile no large kernel; about a minute.
FAST_TESTS := tests/test_cards.py tests/test_rules.py tests/test_scoring.py tests/test_docs.py \
	tests/test_api.py tests/test_layers.py tests/test_winprob.py tests/test_plots.py \
	tests/test_headline.py tests/test_experiment.py tests/test_layout.py tests/test_par.py \
	spades_sim/core spades_sim/analysis
test-fast: setup
	SPADES_SIM_NO_PREWARM=1 $(BIN)/python -m pytest -q -n auto $(FAST_TESTS)

# The engine against its twin with numba's bounds checks on (every array index checked): the
# unsafe tricks of engine/unsafe.py and the kernels' indexing, under every preset and strategy.
# Bounds-checked kernels are other machine code, so they get a cache folder of their own (numba
# would otherwise load the unchecked ones).
BOUNDSCHECK_TESTS := tests/test_reference.py tests/test_unsafe.py tests/test_scoring.py
test-boundscheck: setup
	NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$${XDG_CACHE_HOME:-$$HOME/.cache}/spades_sim-boundscheck \
		SPADES_SIM_NO_PREWARM=1 $(BIN)/python -m pytest -q -n auto $(BOUNDSCHECK_TESTS)

lint: setup
	$(BIN)/ruff check spades_sim tests

bench: setup
	$(BIN)/spades-sim bench --strategy random --hands 2000000 --jobs 1
	$(BIN)/spades-sim bench --strategy heuristic --hands 2000000 --jobs 1

clean:
	rm -rf $(VENV) build *.egg-info
