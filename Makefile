# planner: make demo | make test | make lint | make bench | make fuzz | make pictures | make lock | make floors
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Every runtime and dev dependency at an exact version with its hashes (make lock refreshes it).
LOCK := requirements.lock
PIP_TOOLS := pip-tools==7.6.2
UV := uv==0.13.9

.PHONY: demo test test-fast bench fuzz lint pictures lock floors clean venv

venv: $(STAMP)

# The venv gets exactly the lock (hashes checked, nothing resolved), then planner itself,
# built with the locked setuptools (no build isolation: nothing fetched unpinned).
$(STAMP): $(LOCK) pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check --require-hashes --no-deps -r $(LOCK)
	@$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

demo: $(STAMP)
	@echo "== the HPA scale-up incident: why is search-2 Pending?"
	@$(BIN)/planner explain scenarios/hpa-scale-up-retained-volume.yaml --pod default/search-2; test $$? -le 1  # exit 1 means 'no', which is the point of the demo
	@echo
	@echo "== can the StatefulSet run 3 replicas? 4?"
	@$(BIN)/planner check scenarios/hpa-scale-up-retained-volume.yaml --workload statefulset/search --replicas 3; test $$? -le 1  # exit 1 means 'no', which is the point of the demo
	@$(BIN)/planner check scenarios/hpa-scale-up-retained-volume.yaml --workload statefulset/search --replicas 4; test $$? -le 1  # exit 1 means 'no', which is the point of the demo
	@echo
	@echo "== which counts of the HPA range work?"
	@$(BIN)/planner capacity scenarios/hpa-scale-up-retained-volume.yaml --workload statefulset/search; test $$? -le 1  # exit 1 means 'no', which is the point of the demo
	@echo
	@echo "== the rolling update that never ends: replay it pod by pod (it sticks), then the cheapest verified fixes"
	@$(BIN)/planner simulate scenarios/rollout-hostname-anti-affinity.yaml --workload deployment/web --rollout; test $$? -le 1
	@$(BIN)/planner remediate scenarios/rollout-hostname-anti-affinity.yaml --workload deployment/web --rollout --top 2; test $$? -le 1
	@echo
	@echo "== audit every workload of a snapshot for these incidents' hazards (a CI gate: exit 1 on findings)"
	@$(BIN)/planner audit scenarios/hpa-scale-up-retained-volume.yaml; test $$? -le 1

test: $(STAMP)
	$(BIN)/python -m pytest

# Everything but the differential and property tests marked slow.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

bench: $(STAMP)
	$(BIN)/python -m bench.run

# A longer fuzz campaign than the suite's (about 13 minutes on 2 cores): mutants of every bundled scenario and
# of its rendered snapshot through every command (tests/commands/test_fuzz.py), then every huge
# value of every field the table holds (tests/commands/test_huge_values.py; the suite runs a
# few values per field). FUZZ_SEED=N runs a different campaign than the fixed one.
FUZZ_EXAMPLES ?= 20000
fuzz: $(STAMP)
	PLANNER_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(if $(FUZZ_SEED),PLANNER_FUZZ_SEED=$(FUZZ_SEED)) \
		$(BIN)/python -m pytest -p no:cacheprovider tests/commands/test_fuzz.py -k test_mutants_through_every_command
	PLANNER_HUGE_VALUES=all $(BIN)/python -m pytest -p no:cacheprovider tests/commands/test_huge_values.py

# The pictures README.md shows (docs/*.png), drawn again from the bundled scenarios
# (tests/test_docs_pictures.py checks that the checked-in ones are current).
pictures: $(STAMP)
	$(BIN)/python docs/pictures.py

lint: $(STAMP)
	$(BIN)/ruff check planner models tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

# Refresh the lock from pyproject.toml (newest versions the floors allow), with pip-tools in a
# throwaway venv.
lock:
	@test -x .venv-lock/bin/pip-compile || ($(PY) -m venv .venv-lock && .venv-lock/bin/python -m pip install -q $(PIP_TOOLS))
	.venv-lock/bin/pip-compile -q --extra dev --all-build-deps --generate-hashes --allow-unsafe --strip-extras \
		--no-emit-index-url --no-emit-find-links --upgrade --output-file $(LOCK) pyproject.toml

# The suite at the floors pyproject.toml declares (every direct dependency at its lowest
# allowed version): proves the floors true. Needs the package index; not part of CI.
floors:
	@rm -rf .venv-floors && $(PY) -m venv .venv-floors && .venv-floors/bin/python -m pip install -q $(UV)
	.venv-floors/bin/uv pip install -q --python .venv-floors/bin/python --resolution lowest-direct -e '.[dev]'
	.venv-floors/bin/python -m pytest -q -p no:cacheprovider

clean:
	rm -rf $(VENV) .venv-lock .venv-floors build *.egg-info .pytest_cache .mypy_cache .ruff_cache
