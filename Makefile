# `make run` serves on the embedded store; `make test` runs the linters and every test; `make test-fast` the
# unit tier (no engine, no sockets: under a minute on one core); `make lint` the linters. All set up .venv first.
VENV := .venv
# Python 3.12 preferred (python3.12 on PATH if it runs, else pyenv's), then any newer one that runs.
PYTHON ?= $(shell for p in python3.12 $$(ls -d $$(pyenv root 2>/dev/null)/versions/3.12*/bin/python3 2>/dev/null | sort -V | tail -1) \
	python3.13 python3 $$(ls -d $$(pyenv root 2>/dev/null)/versions/3.1[3-9]*/bin/python3 2>/dev/null | sort -V | tail -1); do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 && { command -v $$p; break; }; done)

.PHONY: run test test-fast lint bench clean

# Serving needs the package alone; the tests add their extras (Harbor, the GenAI producers, Playwright, ...).
$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "harborlight needs Python >= 3.12 (python3.12 on PATH, or pyenv install 3.12)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(VENV)/bin/pip install --quiet -e ".[test]"
	touch $@

run: $(VENV)/.installed
	$(VENV)/bin/harborlight serve

# Four workers on two cores: most tests wait on servers, the engine and agent processes; a module's
# tests stay on one worker (they share its fixtures).
test: lint $(VENV)/.installed-test
	$(VENV)/bin/pytest -q -n 4 --dist loadscope

# The unit tier, in one process: pure derivations, parsers, the WAL's records, the guards (tests/unit/).
test-fast: $(VENV)/.installed-test
	$(VENV)/bin/pytest -q tests/unit

# ruff's rules and format, mypy (strict: pyproject.toml [tool.mypy] files) and the import contracts (pyproject.toml).
lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check harborlight tests bench
	$(VENV)/bin/ruff format --check harborlight tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

bench: $(VENV)/.installed-test
	$(VENV)/bin/python bench/ingest.py

clean:
	rm -rf $(VENV) harborlight-data
