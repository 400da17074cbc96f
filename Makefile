# Kozyr — the two commands: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-fast test-site test-docker lint bench train clean system-deps browser-deps engines

# The virtualenv is created once; packages are (re)installed only when pyproject.toml changes, so a
# second `make` starts at once.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,env,train]'
	@# The Django apps import as top-level packages (platform/ is a folder on sys.path, not a package), for
	@# every tool the virtualenv runs: lint-imports, mypy, pytest, celery.
	$(BIN)/python -c "import site, pathlib; pathlib.Path(site.getsitepackages()[0], 'kozyr-platform.pth').write_text('$(CURDIR)/platform\\n')"
	@touch $(STAMP)

# The game engines compiled with mypyc from their own source (arena/compiled.py), several times faster
# for matches and training. Rebuilt when a source changes; a family whose source changed since its build
# runs as plain Python, and so does everything when no C compiler is here (the build says why).
ENGINE_SOURCES := $(wildcard arena/compiled.py arena/cards.py arena/bots/*.py arena/games/*.py arena/games/*/*.py)
ENGINES := build/engines/.built
$(ENGINES): $(STAMP) $(ENGINE_SOURCES)
	@$(BIN)/arena engines build >/dev/null && touch $@ || \
	  echo "warning: the engines were not compiled (see above); they run as plain Python"

engines: $(ENGINES)
	@$(BIN)/arena engines status

# bubblewrap isolates uploaded bots, podman + runc run the container backend; installed once if missing
# (root on Debian).
system-deps:
	@command -v bwrap >/dev/null 2>&1 || { \
	  echo "installing bubblewrap"; \
	  (apt-get update -qq && apt-get install -y -qq bubblewrap) >/dev/null 2>&1 || \
	  echo "warning: could not install bubblewrap; sandboxed tests will fail"; }
	@sandbox/image/install-runtimes.sh || \
	  echo "warning: some bot runtimes or compilers are missing; the bots that need them will fail here"
	@sandbox/image/install-engine.sh || \
	  echo "warning: no podman/runc; the container backend's tests will be skipped (each says why)"

# The browser tests drive Debian's Chromium (never a downloaded browser); installed once if missing.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium (for the browser tests)"; \
	  (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1 || \
	  echo "warning: could not install chromium; the browser tests will fail"; }

# The platform on the embedded defaults (SQLite, an embedded Redis on a unix socket, the bwrap sandbox):
# web server, workers, beat and the broker under supervisord, which restarts whichever crashes; the house
# bots start playing the ladder at once.
run: export KOZYR_VAR_DIR ?= $(CURDIR)/var
run: export HOST ?= 127.0.0.1
run: export PORT ?= 8000
run: export WORKER_CONCURRENCY ?= 2
run: export LOG_LEVEL ?= WARNING
run: $(STAMP) $(ENGINES) system-deps
	$(BIN)/python manage.py local_setup
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	@mkdir -p "$$KOZYR_VAR_DIR/run" "$$KOZYR_VAR_DIR/log"
	@echo "Kozyr is starting on http://$$HOST:$$PORT/  (Ctrl-C stops everything)"
	$(BIN)/supervisord --configuration deploy/supervisord.conf

# Style, the import boundaries (pyproject's import-linter contracts), types, and migrations that match the
# models.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m tests.support.fixed_sleeps tests
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy
	$(BIN)/python manage.py makemigrations --check --dry-run --verbosity 0

# Needs PostgreSQL and Redis on 127.0.0.1: started first when they are installed but down, with the tests' own
# Redis (tests/start-services.sh). The suite runs the engines' Python source, which coverage can see;
# tests/arena/test_compiled_engines.py runs the engine tests again on the compiled build, and make test-site
# runs the whole site on it. TEST_PROCESSES pytest-xdist processes share the work: each has its own test
# database, Redis databases, ports and folders (tests/support/resources.py); then the few tests that measure
# the machine's time run alone (the serial mark). make lint runs beside them, not in front: all must pass. The bot
# image is built beside them too, from the start: the tests that need it wait for that one build (build-local.sh locks).
TEST_PROCESSES ?= 3
PYTEST_PARALLEL := -n $(TEST_PROCESSES) --dist loadgroup -p no:cacheprovider $(PYTEST_ARGS)
test: $(STAMP) $(ENGINES) system-deps browser-deps
	tests/start-services.sh
	@mkdir -p build; rm -f .coverage; $(MAKE) --no-print-directory lint > build/lint.log 2>&1 & lint=$$!; \
	{ sandbox/image/build-local.sh > build/image.log 2>&1 || true; } & \
	KOZYR_ENGINES=python $(BIN)/python -m pytest -m "not site and not serial" $(PYTEST_PARALLEL) --durations=25 \
	  --cov --cov-report= ; parallel=$$?; \
	KOZYR_ENGINES=python $(BIN)/python -m pytest -m "serial and not site" -p no:cacheprovider $(PYTEST_ARGS) \
	  --durations=10 --cov --cov-append --cov-report=term:skip-covered --cov-fail-under=90; serial=$$?; \
	wait $$lint; linted=$$?; echo "--- make lint (run beside the tests):"; cat build/lint.log; \
	[ $$linted -eq 0 ] || echo "make lint failed (above)"; \
	[ $$parallel -eq 0 ] && [ $$serial -eq 0 ] && [ $$linted -eq 0 ]

# The core in under two minutes: everything that needs no worker or web process, browser, container or
# compiler, none of the slow tests, and none of those that measure the machine's time (they run alone in make
# test; beside other tests they would measure the neighbours) (CONTRIBUTING.md, "Running the tests").
FAST := not (site or workers or browser or containers or compiles or slow or serial)
test-fast: $(STAMP) $(ENGINES)
	tests/start-services.sh
	KOZYR_ENGINES=python $(BIN)/python -m pytest -m "$(FAST)" $(PYTEST_PARALLEL) -q

# The site-level runs (several minutes of real processes under faults): CI runs them after make test. Two at
# a time, each with its own database, Redis databases, ports and folders: the compose stack's and the soak's
# minutes are mostly waits (health checks, restarts, graces, the soak's schedule). worksteal splits the tests in
# two halves up front and lets a process that is done take the other's queued ones.
SITE_PROCESSES ?= 2
test-site: $(STAMP) $(ENGINES) system-deps
	tests/start-services.sh
	$(BIN)/python -m pytest -m site -n $(SITE_PROCESSES) --dist worksteal -p no:cacheprovider --durations=10 $(PYTEST_ARGS)

# The container backend's tests again on a Docker Engine (Debian's docker.io, a private daemon that
# sandbox/image/docker-engine.sh starts): `make test` runs them on Podman. CI runs this after make test.
DOCKER_TEST_ENV := KOZYR_CONTAINER_ENGINE=docker DOCKER_HOST=unix:///run/kozyr-dockerd/docker.sock \
	KOZYR_SANDBOX_BACKENDS=docker
test-docker: $(STAMP) system-deps
	tests/start-services.sh
	sandbox/image/docker-engine.sh start
	$(DOCKER_TEST_ENV) $(BIN)/python -m pytest tests/sandbox -m "not site" -p no:cacheprovider
	$(DOCKER_TEST_ENV) $(BIN)/python -m pytest tests/platform/bots/test_source_bots.py -k container_backend -p no:cacheprovider

# Figures for docs/benchmarks.md; slow, never part of `make test`. The soaks run on their own:
# bench/soak.py --minutes 30 (PostgreSQL + Redis under faults), bench/embedded_soak.py --minutes 30.
bench: $(STAMP) $(ENGINES) system-deps
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/strength.py
	$(BIN)/python bench/strength.py --table
	$(BIN)/python bench/analysis.py
	$(BIN)/python bench/fair_share.py --seconds 120
	$(BIN)/python bench/protocol.py
	$(BIN)/python bench/runner.py
	$(BIN)/python bench/isolation.py
	$(BIN)/python bench/replay_size.py
	$(BIN)/python bench/ratings_convergence.py
	$(BIN)/python bench/ratings_refit.py
	$(BIN)/python bench/ratings_coverage.py --runs 200 --games 12 50
	$(BIN)/python bench/embedded_broker.py
	$(BIN)/python bench/pairing.py
	$(BIN)/python bench/platform_throughput.py
	$(BIN)/python bench/platform_load.py
	$(BIN)/python bench/replay_viewer.py
	$(BIN)/python bench/env_speed.py --seconds 5 --workers 2
	$(BIN)/python bench/openspiel_clone.py
	$(BIN)/python bench/remote_latency.py --decisions 300 --idle 100

# The learning examples (examples/training/): two CPU minutes from scratch, then an uploadable bot in out/;
# then MaskablePPO (Stable-Baselines3-contrib, CPU torch) against greedy and itself, about 30 CPU minutes;
# then the CleanRL-style PPO (plain torch) against greedy and a pool of its past selves, about 7 CPU minutes.
train: $(STAMP) $(ENGINES)
	$(BIN)/python examples/training/train.py --minutes 2 --eval-seeds 300 --out out/bura-learner
	$(BIN)/python examples/training/maskable_ppo.py --timesteps 3500000 \
		--opponents builtin:greedy,builtin:greedy,builtin:greedy,self --out out/bura-ppo
	$(BIN)/python examples/training/cleanrl_ppo.py --episodes 150000 --out out/bura-cleanrl

clean:
	rm -rf $(VENV) .pytest_cache .coverage .hypothesis build *.egg-info
