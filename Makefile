# Two commands a newcomer needs:  make lab   and   make test
SHELL := /bin/bash
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.wargame-installed
PYTEST_ARGS ?=
# pytest-xdist workers for the unit tests and the notebooks (auto: one per core)
JOBS ?= auto

.PHONY: help venv lab lab-headless classroom test lint typecheck unit notebooks docs fuzz bench bench-los map clean

help:
	@echo "make lab        create/refresh .venv and open JupyterLab on notebooks/01_quickstart.ipynb"
	@echo "make lab HEADLESS=1   same, without opening a browser (servers)"
	@echo "make classroom  serve the classroom app (Voila, pre-heated) on 127.0.0.1 [CLASS=25: a kernel per pupil]"
	@echo "make classroom HEADLESS=1 PORT=8866   same, without a browser, on a fixed port"
	@echo "make test       create/refresh .venv and run the whole test suite"
	@echo "make fuzz       the long property-based search (>= 100,000 generated inputs)"
	@echo "make docs       build the documentation site into build/site (strict)"
	@echo "make bench      run the benchmarks (figures for the README)"
	@echo "make map        rebuild maps/rhine-remagen from ../shared/geodata"

$(STAMP): pyproject.toml scripts/bootstrap.sh
	@scripts/bootstrap.sh

venv: $(STAMP)

lab: $(STAMP)
	$(BIN)/wargame lab $(if $(HEADLESS),--no-browser,)

classroom: $(STAMP)
	$(BIN)/wargame classroom $(if $(HEADLESS),--no-browser,) $(if $(PORT),--port $(PORT),) $(if $(CLASS),--class-size $(CLASS),)

lint: $(STAMP)
	$(BIN)/ruff check .

# strict for wargame.engine, wargame.rules and wargame.testing (pyproject.toml)
typecheck: $(STAMP)
	$(BIN)/mypy wargame

# the browser tests run on their own after the rest: they drive servers and
# Chromium, and the others (in parallel, one worker per core) would starve them
unit: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) -m "not browser" $(PYTEST_ARGS)
	$(BIN)/python -m pytest -m browser $(PYTEST_ARGS)

notebooks: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) --nbmake --nbmake-timeout=300 notebooks $(PYTEST_ARGS)

# the documentation site into build/site; --strict: a broken link or a docstring
# griffe cannot parse fails the build
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

test: $(STAMP)
	@scripts/system-deps.sh
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory typecheck
	$(MAKE) --no-print-directory docs
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory notebooks

# tests/fuzz under the Hypothesis profile "fuzz" (make test runs the quick "ci" one);
# the example database is kept in .hypothesis/, the totals in build/fuzz-summary.json
fuzz: $(STAMP)
	$(BIN)/python scripts/fuzz.py $(if $(KEEP_GOING),--keep-going,)

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_map.py
	$(BIN)/python benchmarks/bench_engine.py

# needs Debian's libgdal-dev (apt-get install -y libgdal-dev); builds its own GDAL venv
bench-los: $(STAMP)
	$(BIN)/python benchmarks/bench_los.py

map: $(STAMP)
	$(BIN)/wargame map build

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
