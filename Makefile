# One-command entry points. `make reports` and `make test` set themselves up on a fresh machine
# that has Python 3.11+ and Java 17: if the project is not installed in the current Python, they
# create .venv with pip and install it (editable, with the dev extra) before running.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PROFILE ?= full
ONLY ?= *

# Use the current interpreter when the project is already installed in it (conda users),
# otherwise the project's own virtual environment.
# (-I: isolated mode, so the project folder itself on sys.path does not count as installed.)
INSTALLED := $(shell $(PYTHON) -I -c "import importlib.metadata as m; m.distribution('stream-ft-repro'); import pipeline.cli" 2>/dev/null && echo yes)
ifeq ($(INSTALLED),yes)
PY := $(PYTHON)
SETUP :=
else
PY := $(VENV)/bin/python
SETUP := $(VENV)/.installed
endif

.PHONY: help reports test bench lab lint clean

help: ## show this help
	@echo "Targets (PROFILE=quick|full, ONLY=glob for reports):"
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed: $(PYTHON) is " + sys.version.split()[0] + " (set PYTHON=python3.11)")'
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[dev]'
	@touch $@

reports: $(SETUP) ## run every notebook (PROFILE=full by default) and build reports/index.html
	$(PY) -m pipeline.cli reports --profile $(PROFILE) --only '$(ONLY)'

test: $(SETUP) ## run the test suite (notebooks in the quick profile; benchmarks skipped)
	$(PY) -m pytest --benchmark-skip -q

bench: $(SETUP) ## run the benchmarks and print their tables and ratios
	$(PY) -m pytest tests --benchmark-only -q -s

lab: $(SETUP) ## open JupyterLab on notebooks/
	$(PY) -m jupyterlab notebooks

lint: $(SETUP) ## ruff check
	$(PY) -m ruff check .

clean: $(SETUP) ## remove generated reports, sweep results and generated data sets
	$(PY) -m pipeline.cli clean
