# planner: make demo | make test | make bench | make lint
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --upgrade pip >/dev/null
	@$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	@echo "== planner explain: seed 001, the StatefulSet pod stuck Pending after an HPA scale-up"
	-$(BIN)/planner explain scenarios/seed-001-hpa-parallel.yaml --pod default/search-2
	@echo
	@echo "== planner validate: every bundled scenario"
	$(BIN)/planner validate scenarios/

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench.run

lint: $(STAMP)
	$(BIN)/ruff check planner models tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
