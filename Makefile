# Set-up and everyday commands. `make run` and `make test` both create .venv (once) and install
# the package into it, editable, with its dev extras.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run test test-nojit lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: setup
	$(BIN)/spades-sim simulate --rules classic --strategy heuristic --hands 200000 --seed 1

test: setup
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check spades_sim tests

bench: setup
	$(BIN)/spades-sim bench --strategy random --hands 2000000 --jobs 1
	$(BIN)/spades-sim bench --strategy heuristic --hands 2000000 --jobs 1

clean:
	rm -rf $(VENV) build *.egg-info
