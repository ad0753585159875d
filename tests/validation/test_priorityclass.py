"""PriorityClass validation (pkg/apis/scheduling/validation ValidatePriorityClass) and the
Priority admission plugin's resolution (planner.priority)."""

from planner.domain import PodSpec, PriorityClass
from planner.priority import resolve_spec
from planner.validation import apply_defaults, validate_object


def _pc(**kw):
    o = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": kw.pop("name", "high")}, **kw}
    apply_defaults(o)
    return validate_object(o)


def test_priorityclass_rules():
    assert _pc(value=1000) == []
    assert _pc(value=1_000_000_001) == ["PriorityClass high: value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
    assert _pc(name="system-foo", value=1) == [
        "PriorityClass system-foo: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-foo is not a known system priority class"]
    assert _pc(value=1, preemptionPolicy="Sometimes") == [
        'PriorityClass high: preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']


def test_admission_resolution():
    classes = {"high": PriorityClass("high", 1000, preemption_policy="Never"), "dflt": PriorityClass("dflt", 5, global_default=True)}
    s = resolve_spec(PodSpec(priority_class_name="high"), classes)
    assert (s.priority, s.preemption_policy) == (1000, "Never")
    s = resolve_spec(PodSpec(), classes)
    assert (s.priority, s.priority_class_name) == (5, "dflt")
    s = resolve_spec(PodSpec(priority=7, priority_set=True, priority_class_name="high"), classes)
    assert s.priority == 7
    assert resolve_spec(PodSpec(priority_class_name="system-node-critical"), {}).priority == 2_000_001_000
