# Riposte: two commands for a newcomer — `make train` and `make test`.
# Both create .venv when it is missing and install everything into it. torch==2.13.0 (the CPU
# build on this machine's disk) is installed before anything else so pip never resolves a CUDA
# build.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
RLLIB  := $(VENV)/.installed-rllib
OSPIEL := $(VENV)/.installed-openspiel

.PHONY: all install install-rllib install-openspiel typecheck test test-fast train evaluate bench docs clean

all: test

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e ".[test,docs]"
	touch $(STAMP)

install: $(STAMP)

# the rllib extra (train.py --backend rllib); `make test` installs it so CI runs tests/rllib
$(RLLIB): $(STAMP)
	$(PIP) install --quiet -e ".[test,docs,rllib]"
	touch $(RLLIB)

install-rllib: $(RLLIB)

# the openspiel extra (envs/adapters/openspiel.py); `make test` installs it so CI runs
# tests/openspiel. torch is already installed and open-spiel does not depend on it.
$(OSPIEL): $(STAMP)
	$(PIP) install --quiet -e ".[test,openspiel]"
	touch $(OSPIEL)

install-openspiel: $(OSPIEL)

# mypy over envs/ and agents/ with the configuration in pyproject.toml ([tool.mypy]: strict for
# envs/core); its cache is .mypy_cache, so a second run checks only what changed
typecheck: $(STAMP)
	$(PY) -m mypy

# the type check, then the whole test suite
test: $(STAMP) $(RLLIB) $(OSPIEL) typecheck
	$(PY) -m pytest -q -p no:cacheprovider

# the fast tier: every test module's tests not marked slow (training runs, long tournaments,
# many processes), after the type check; `make test` is the whole suite
test-fast: $(STAMP) typecheck
	$(PY) -m pytest -q -p no:cacheprovider -m "not slow"

train: $(STAMP)
	$(PY) train.py

# the trained model against the panel's heuristic and random, then the search agent over that
# model against the raw model (the 200 search games take about 10 CPU-minutes)
evaluate: $(STAMP)
	$(PY) evaluate.py --agents runs/default/final_model.zip heuristic random --games 200 --json runs/default/evaluation.json
	$(PY) evaluate.py --agents search:runs/default/final_model.zip runs/default/final_model.zip --games 200 --jobs 2 --json runs/default/evaluation_search.json

bench: $(STAMP)
	$(PY) -m envs.bench --ruleset acw_regimental --seconds 5 --json bench.json

# the documentation site, warnings as errors (open docs/_build/html/index.html)
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html

clean:
	rm -rf $(VENV) runs build docs/_build docs/api/generated *.egg-info
