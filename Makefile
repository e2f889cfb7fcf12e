# One-command entry points. `make reports` and `make test` set themselves up on a fresh machine
# that has Python 3.11+ and Java 17: if the project is not installed in the current Python, they
# create .venv and install the exact versions of requirements.lock (with their hashes), then the
# project itself (editable, nothing else downloaded). The lock is for Linux x86-64 and Python
# 3.11; elsewhere the ranges of pyproject.toml are installed instead, with a warning.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
LOCK := requirements.lock
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

.PHONY: help reports test bench lab lint clean lock verify

help: ## show this help
	@echo "Targets (PROFILE=quick|full, ONLY=glob for reports):"
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed: $(PYTHON) is " + sys.version.split()[0] + " (set PYTHON=python3.11)")'
	$(PYTHON) -m venv $(VENV)
	@if $(VENV)/bin/python -c 'import platform, sys; sys.exit(0 if sys.version_info[:2] == (3, 11) and sys.platform == "linux" and platform.machine() == "x86_64" else 1)'; then \
		echo "installing the pinned versions of $(LOCK)"; \
		$(VENV)/bin/python -m pip install --quiet --require-hashes -r $(LOCK) && \
		$(VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .; \
	else \
		echo "warning: $(LOCK) is for Linux x86-64 and Python 3.11; installing pyproject.toml's ranges instead" >&2; \
		$(VENV)/bin/python -m pip install --quiet -e '.[dev]'; \
	fi
	@touch $@

lock: $(SETUP) ## regenerate requirements.lock from pyproject.toml's ranges (newest versions that fit)
	$(PY) -m uv pip compile pyproject.toml --extra dev --generate-hashes --upgrade \
		--python-version 3.11 --python-platform x86_64-manylinux_2_28 \
		--custom-compile-command "make lock" -o $(LOCK)

reports: $(SETUP) ## run every notebook (PROFILE=full by default) and build reports/index.html
	@$(PY) -m pipeline.class_archive
	$(PY) -m pipeline.cli reports --profile $(PROFILE) --only '$(ONLY)'

verify: $(SETUP) ## compare reports/ with the committed reference run (data/reference/); exit 1 on a changed verdict
	$(PY) -m pipeline.cli verify

test: $(SETUP) ## run the test suite (notebooks in the quick profile; benchmarks skipped; slowest 25 listed)
	@$(PY) -m pipeline.class_archive
	$(PY) -m pytest --benchmark-skip -q --durations=25

bench: $(SETUP) ## run the benchmarks and print their tables and ratios
	$(PY) -m pytest tests --benchmark-only -q -s

lab: $(SETUP) ## open JupyterLab on notebooks/
	$(PY) -m jupyterlab notebooks

lint: $(SETUP) ## ruff check
	$(PY) -m ruff check .

clean: $(SETUP) ## remove generated reports, sweep results and generated data sets
	$(PY) -m pipeline.cli clean
