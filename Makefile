# The README's two commands are `make run` and `make test`; both start from a fresh clone.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 7878

.PHONY: run serve test reliability-doc lint node-test pytest system-deps docs bench popup-shots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test,bench]'
	touch $@

## run: start the daemon on 127.0.0.1:$(PORT) with its managed headless Chromium
run: $(STAMP)
	@scripts/ensure-system-deps.sh
	$(BIN)/tabpilot serve --browser --port $(PORT)

## serve: start the daemon alone, for the extension in your own Chrome
serve: $(STAMP)
	$(BIN)/tabpilot serve --port $(PORT)

## test: lint, the extension's node tests, then every pytest test (unit, protocol, e2e); a
## complete passing run writes its reliability figures to build/reliability.md (ignored by git),
## or where RELIABILITY_DOC names
test: $(STAMP)
	@scripts/ensure-system-deps.sh --for-tests
	$(MAKE) --no-print-directory lint node-test pytest

## reliability-doc: `make test`, writing the figures to the committed docs/reliability.md
reliability-doc: $(STAMP)
	@mkdir -p build && touch build/.reliability-doc-started
	RELIABILITY_DOC=docs/reliability.md $(MAKE) --no-print-directory test
	@if [ docs/reliability.md -nt build/.reliability-doc-started ]; then \
		echo "docs/reliability.md refreshed"; \
	else echo "docs/reliability.md left alone: the run was not complete (tests/figures.py)"; exit 1; fi

lint: $(STAMP)
	$(BIN)/ruff check server tests scripts bench
	$(BIN)/ruff format --check server tests scripts bench
	$(BIN)/mypy

node-test:
	node --test extension-tests/

# --durations: the slowest tests at the end of each run, to keep the whole run short.
# pytest exits 5 when a selection (PYTEST_ARGS="-k …") collects nothing; that is not a failure.
pytest: $(STAMP)
	@$(BIN)/pytest -q -p no:cacheprovider --durations=15 $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest: no tests collected"; exit 0; fi; exit $$rc

## docs: regenerate the generated parts of the docs: the MCP tool reference (docs/tools.md) and the
## README's table of tools from the tools themselves, the CLI reference (docs/cli.md) from --help,
## the benchmark report (docs/benchmark.md) and its README headline from bench/results/, and the
## Python client's tool methods (server/tabpilot/client/tool_methods.py) from the tool table
docs: $(STAMP)
	$(BIN)/python scripts/client_methods.py --write
	$(BIN)/python scripts/cli_reference.py --write
	$(BIN)/python scripts/tool_reference.py --write
	$(BIN)/python scripts/benchmark_block.py --write

# The MCP servers the benchmark compares tabpilot with, at the versions bench/package-lock.json
# pins; installed again only when the lock changes. `make test` never needs them.
BENCH_NODE := bench/node_modules/.package-lock.json
$(BENCH_NODE): bench/package.json bench/package-lock.json
	cd bench && npm ci --no-audit --no-fund
	touch $@

## bench: latency against Selenium, each hop, throughput, large results, start-up, contexts, and
## tabpilot beside Playwright MCP and chrome-devtools-mcp; writes bench/results/ (json, md, png),
## the report in docs/benchmark.md and its headline in the README
bench: $(STAMP) $(BENCH_NODE)
	@scripts/ensure-system-deps.sh
	$(BIN)/python -m bench --readme
	$(BIN)/python scripts/benchmark_block.py --write

## popup-shots: screenshots of the popup in each state (pilot off, on, a request for help, sites
## ruled out, dark mode), in a real Chromium with the unpacked extension, into docs/popup/
popup-shots: $(STAMP)
	@scripts/ensure-system-deps.sh --for-tests
	$(BIN)/python scripts/popup_screenshots.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
