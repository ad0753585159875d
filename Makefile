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
	@echo "== seed 001: why is search-2 Pending?"
	@$(BIN)/planner explain scenarios/seed-001-hpa-parallel.yaml --pod default/search-2; test $$? -le 1  # exit 1 means 'no', which is the point of the demo
	@echo
	@echo "== can the StatefulSet run 3 replicas? 4?"
	@$(BIN)/planner check scenarios/seed-001-hpa-parallel.yaml --workload statefulset/search --replicas 3; test $$? -le 1  # exit 1 means 'no', which is the point of the demo
	@$(BIN)/planner check scenarios/seed-001-hpa-parallel.yaml --workload statefulset/search --replicas 4; test $$? -le 1  # exit 1 means 'no', which is the point of the demo
	@echo
	@echo "== which counts of the HPA range work?"
	@$(BIN)/planner capacity scenarios/seed-001-hpa-parallel.yaml --workload statefulset/search; test $$? -le 1  # exit 1 means 'no', which is the point of the demo
	@echo
	@echo "== seed 004: replay the rolling update pod by pod (it sticks), then the cheapest verified fixes"
	@$(BIN)/planner simulate scenarios/seed-004-rollout-anti-affinity.yaml --workload deployment/web --rollout; test $$? -le 1
	@$(BIN)/planner remediate scenarios/seed-004-rollout-anti-affinity.yaml --workload deployment/web --rollout --top 2; test $$? -le 1
	@echo
	@echo "== audit every workload of a snapshot for the seeds' hazards (a CI gate: exit 1 on findings)"
	@$(BIN)/planner audit scenarios/seed-001-hpa-parallel.yaml; test $$? -le 1

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench.run

lint: $(STAMP)
	$(BIN)/ruff check planner models tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
