# Two entry points for a fresh Linux machine: `make demo` and `make test`.
# Each one installs what it needs by itself (a local venv, the npm MicroPython
# package, and Debian packages for the browser and broker tests).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
LINKS  := $(VENV)/.linked-stamp
NODE_STAMP := node_modules/.installed-stamp
# The editable install is setuptools' strict mode: build/__editable__.*/baulk/
# holds a link to every file of the packages, so mypy, pyright and editors
# resolve ``baulk.*`` exactly as Python does.  A link tree does not see a file
# added later, so this list of the packages' files is kept up to date on every
# run, and when it changes the tree is linked again ($(LINKS), a few seconds).
FILES  := $(VENV)/.package-files
$(shell mkdir -p $(VENV) && find firmware protocol host -type f -not -path '*/__pycache__/*' \
	-not -name '*.pyc' | LC_ALL=C sort > $(FILES).new && \
	{ cmp -s $(FILES).new $(FILES) || mv $(FILES).new $(FILES); }; rm -f $(FILES).new)
EDITABLE := --config-settings editable_mode=strict
# Python keeps each module's compiled bytecode beside it (__pycache__, ignored
# by git) unless told not to.  A shell that sets PYTHONDONTWRITEBYTECODE makes
# every run compile every module and rewrite every test's asserts again: make
# check took three times as long that way.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup test check lint typecheck pytest demo bench clean system-deps words

setup: $(STAMP) $(LINKS) $(NODE_STAMP)

# Debian packages that the tests need and a fresh machine may lack.
system-deps:
	@bash scripts/system-deps.sh

$(STAMP): pyproject.toml | system-deps
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -U pip setuptools
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]' $(EDITABLE)
	# MicroPython stubs for the device-only type check, each in its own folder
	# so the device's stdlib stubs never leak into the host's type check.
	$(PY) -m pip install -q --disable-pip-version-check --target $(VENV)/mpy-stubs/rp2 \
		'micropython-rp2-rpi-pico-stubs==1.29.0.post1'
	$(PY) -m pip install -q --disable-pip-version-check --target $(VENV)/mpy-stubs/esp32 \
		'micropython-esp32-stubs==1.29.0.post1'
	touch $@ $(LINKS)

$(LINKS): $(FILES) | $(STAMP)
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e . $(EDITABLE)
	touch $@

$(NODE_STAMP): package.json package-lock.json | system-deps
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

# Three mypy runs, each with its own cache so that they can run side by side
# (the host, and the device code against each board's MicroPython stubs), and pyright.
TYPECHECKS := typecheck-host typecheck-pico typecheck-esp32 typecheck-editor
.PHONY: $(TYPECHECKS) typecheck-editor-changed pytest-fast
typecheck: $(TYPECHECKS)

typecheck-host: setup
	$(BIN)/mypy --cache-dir .mypy_cache/host

typecheck-pico: setup
	$(BIN)/mypy --config-file firmware/mypy-device.ini --cache-dir .mypy_cache/pico

typecheck-esp32: setup
	$(BIN)/mypy --config-file firmware/mypy-device-esp32.ini --cache-dir .mypy_cache/esp32

# pyright, the checker inside VS Code's Python extension, as an editor sees
# the checkout (pyrightconfig.json): every import resolves, basic mode.
typecheck-editor: setup
	node_modules/.bin/pyright

# The quick loop's pyright: the whole tree takes 9 s of a core, so make check
# runs it over the device and host files that differ from main (and over the
# whole tree when its configuration differs).  mypy above still reads every
# file's imports, and make test runs pyright over everything.
typecheck-editor-changed: setup
	@base=$$(git merge-base HEAD main 2>/dev/null); \
	if [ -z "$$base" ] || ! git diff --quiet "$$base" -- pyrightconfig.json pyproject.toml; then \
		node_modules/.bin/pyright; exit $$?; fi; \
	files=$$( { git diff --name-only --diff-filter=d "$$base" -- firmware protocol host; \
		git ls-files --others --exclude-standard -- firmware protocol host; } | grep '\.py$$' | sort -u); \
	if [ -z "$$files" ]; then echo "pyright: no device or host file differs from main"; \
	else node_modules/.bin/pyright $$files; fi

# Every test, on both cores (pytest-xdist): 14 minutes one at a time.
pytest: setup
	$(BIN)/pytest -q -n 2 --dist worksteal

test: setup lint typecheck pytest

# The day-to-day loop: lint, types and the fast tests, on both cores.  It
# leaves out what needs MicroPython, Chromium or Mosquitto, and the long runs
# (pytest markers; CONTRIBUTING.md).
FAST := not micropython and not browser and not broker and not slow
# The quick loop: lint, the type checks and the fast tests side by side.
check: setup
	$(MAKE) --no-print-directory -j4 lint typecheck-host typecheck-pico typecheck-esp32 \
		typecheck-editor-changed pytest-fast

pytest-fast: setup
	BAULK_CHECK=1 $(BIN)/pytest -q -n 2 --dist worksteal -m "$(FAST)"

demo: setup
	$(BIN)/baulk demo

# The pages' words (host/web/static/words.json), written from the one
# catalogue after an entry of context page:<key> is added or changed.
words: setup
	$(PY) -m baulk.host.web.words

bench: setup
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) node_modules .mypy_cache .ruff_cache .pytest_cache build
