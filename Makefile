# Two commands do all the set-up on a fresh machine (Python >= 3.11; Node.js for the Node bot):
#   make tournament   - run the example Dou Dizhu tournament of sample bots over gRPC
#   make test         - run the whole test suite
#   make wheel        - build dist/cardgame_referee-*.whl, to install without a checkout (README):
#                       the compiled build (setup.py), for this Python and platform; needs a C compiler,
#                       python3-dev and a package index (pip fetches mypy to build)
# As root, the virtualenv is built from the system Python (/usr/bin/python3, when it is 3.11 or
# newer): bots then run under their own unprivileged uids, which must be able to execute the
# referee's Python (one under /root, e.g. pyenv's, cannot). PY=... chooses another.
SYSTEM_PY := $(shell [ "$$(id -u)" = 0 ] && /usr/bin/python3 -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo /usr/bin/python3)
PY ?= $(or $(SYSTEM_PY),python3)
VENV := .venv
BIN := $(VENV)/bin
NODE_BOT := sample_bots/node

.PHONY: tournament test setup node wheel clean

$(BIN)/referee: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/referee

setup: $(BIN)/referee

node:
	@if command -v npm >/dev/null 2>&1; then \
	  if [ ! -d $(NODE_BOT)/node_modules ] || [ $(NODE_BOT)/package-lock.json -nt $(NODE_BOT)/node_modules ]; then \
	    (cd $(NODE_BOT) && npm ci --no-audit --no-fund --silent) && touch $(NODE_BOT)/node_modules; fi; \
	else echo "node/npm not found: the Node.js bot tests will be skipped"; fi

tournament: setup node
	$(BIN)/referee tournament run tournaments/examples/doudizhu.toml --fresh

test: setup node
	$(BIN)/pytest -q

# the wheel only: no dependencies (pip fetches them when the wheel is installed)
wheel:
	rm -f dist/cardgame_referee-*.whl
	CARDGAME_REFEREE_COMPILE=1 $(PY) -m pip wheel --quiet --no-deps --wheel-dir dist . || { echo "make wheel:" \
	  "the compiled build needs a C compiler, Python's headers (python3-dev) and a package index;" \
	  "without them, $(PY) -m pip wheel --no-deps --wheel-dir dist . builds the plain-Python wheel" >&2; exit 1; }
	@ls dist/cardgame_referee-*.whl

clean:
	rm -rf $(VENV) runs .pytest_cache .hypothesis $(NODE_BOT)/node_modules dist build
