"""The command line: thin typer commands over planner.commands, one error boundary in main().

Exit codes, for every command: 0 yes / nothing wrong, 1 no (unschedulable, stuck, hazards
found), 2 error (usage or invalid input; the solver timed out). Data on stdout, messages on
stderr.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

import typer

from planner import output
from planner.errors import PlannerError, UsageError
from planner.load import Limits

app = typer.Typer(
    name="planner",
    help="A constraint-solver placement planner for Kubernetes: why a pod cannot be placed, "
    "whether a workload can reach N replicas, and what to change.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class Format(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"


Snapshots = Annotated[
    list[str],
    typer.Argument(help="Snapshot files or directories (kubectl -o yaml|json, helm template output, scenarios); - for stdin.", show_default=False),
]
OutputOpt = Annotated[Format, typer.Option("-o", "--output", help="Output format.")]
NamespaceOpt = Annotated[str | None, typer.Option("-n", "--namespace", help="Namespace of the names given (like kubectl); default: default.")]
MaxBytesOpt = Annotated[int, typer.Option("--max-bytes", help="Largest input file accepted, in bytes.", min=1)]

DEFAULT_MAX_BYTES = Limits().max_bytes


def _limits(max_bytes: int) -> Limits:
    return Limits(max_bytes=max_bytes)


@app.command()
def validate(
    paths: Snapshots,
    out: OutputOpt = Format.table,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Read and validate inputs as the API server would; report every error (exit 2 if any)."""
    from planner.commands.validate import validate_inputs

    result = validate_inputs(paths, _limits(max_bytes))
    output.emit(result, out.value, _validate_table)
    return 0 if result["valid"] else 2


def _validate_table(r: dict) -> str:
    lines = []
    if r["valid"]:
        counts = ", ".join(f"{n} {k}" for k, n in r["objects"].items()) or "no objects"
        lines.append(f"valid: {counts}")
    else:
        lines.append(f"invalid: {len(r['errors'])} error(s)")
        lines.extend(r["errors"])
    for n in r.get("notes", []):
        lines.append(f"note: {n}")
    return "\n".join(lines)


@app.command()
def render(
    paths: Snapshots,
    out: Annotated[Format, typer.Option("-o", "--output", help="yaml (default) or json.")] = Format.yaml,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Print a scenario (or any input) expanded into a kubectl-appliable List."""
    from planner.commands.render import render_inputs

    doc = render_inputs(paths, _limits(max_bytes))
    output.emit(doc, "json" if out is Format.json else "yaml")
    return 0


SchedulerConfigOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler-config",
        help="A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1, YAML or JSON): the profiles' plugins, weights, NodeResourcesFit scoringStrategy and PodTopologySpread defaultConstraints, for a scheduler that is not the default (docs/semantics.md).",
        show_default=False,
    ),
]


@app.command()
def explain(
    paths: Snapshots,
    pod: Annotated[str | None, typer.Option("--pod", help="The pod to explain: NAMESPACE/NAME or NAME (with -n).")] = None,
    pod_file: Annotated[str | None, typer.Option("--pod-file", help="A pod manifest that does not exist yet.")] = None,
    namespace: NamespaceOpt = None,
    scores: Annotated[
        bool,
        typer.Option(
            "--scores",
            help="Also score the nodes that pass every filter: each score plugin's normalized score (0..100) and weight, and the weighted total, highest first.",
        ),
    ] = False,
    scheduler_config: SchedulerConfigOpt = None,
    out: OutputOpt = Format.table,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Why a pod can or cannot be placed: every filter plugin on every node, as kube-scheduler sees it (--scores: and how the feasible ones score)."""
    from planner.commands.explain import explain_pod, render_table

    if (pod is None) == (pod_file is None):
        raise UsageError("explain: give exactly one of --pod NAMESPACE/NAME or --pod-file POD.yaml")
    result = explain_pod(paths, pod=pod, pod_file=pod_file, namespace=namespace, limits=_limits(max_bytes), scores=scores, scheduler_config=scheduler_config)
    output.emit(result, out.value, render_table)
    return 0 if result["schedulable"] else 1


TimeLimitOpt = Annotated[float, typer.Option("--time-limit", help="Solver time limit in seconds; past it the answer is 'unknown' (exit 2).", min=0.1)]
SeedOpt = Annotated[int, typer.Option("--seed", help="Solver random seed (runs are deterministic for a seed).", min=-(2**31), max=2**31 - 1)]
WorkersOpt = Annotated[int, typer.Option("--workers", help="Solver search workers, interleaved so that runs repeat exactly (1 = one plain search).", min=1, max=64)]
WorkloadOpt = Annotated[list[str], typer.Option("--workload", "-w", help="KIND/NAME (deployment or statefulset); repeatable.", show_default=False)]


def _solve_opts(time_limit: float, seed: int, workers: int):
    from models.solve import SolveOptions

    return SolveOptions(time_limit=time_limit, seed=seed, workers=workers)


@app.command()
def check(
    paths: Snapshots,
    workload: WorkloadOpt,
    replicas: Annotated[int | None, typer.Option("--replicas", help="Target replica count (default: spec.replicas).", min=0)] = None,
    namespace: NamespaceOpt = None,
    out: OutputOpt = Format.table,
    time_limit: TimeLimitOpt = 30.0,
    seed: SeedOpt = 0,
    workers: WorkersOpt = 2,
    scheduler_config: SchedulerConfigOpt = None,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Prove whether workloads can reach N replicas: a verified placement, or a minimal why-not."""
    from planner.commands.check import check_command, render_check

    result = check_command(paths, workload, replicas, namespace, _solve_opts(time_limit, seed, workers), _limits(max_bytes), scheduler_config)
    output.emit(result, out.value, render_check)
    return 0 if result["schedulable"] else 1


@app.command()
def capacity(
    paths: Snapshots,
    workload: Annotated[str, typer.Option("--workload", "-w", help="KIND/NAME (deployment or statefulset).", show_default=False)],
    namespace: NamespaceOpt = None,
    rng: Annotated[str | None, typer.Option("--range", help="Replica counts A..B (default: the HPA's min..max, else 1..2 x replicas).")] = None,
    zone_failure: Annotated[bool, typer.Option("--zone-failure", help="For each zone lost: do the replicas still fit?")] = False,
    add_nodes: Annotated[bool, typer.Option("--add-nodes", help="Fewest nodes to add per zone for the first failing count.")] = False,
    plot: Annotated[str | None, typer.Option("--plot", help="Write a PNG of schedulable counts and zone headroom.")] = None,
    out: OutputOpt = Format.table,
    time_limit: TimeLimitOpt = 30.0,
    seed: SeedOpt = 0,
    workers: WorkersOpt = 2,
    scheduler_config: SchedulerConfigOpt = None,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Which replica counts are schedulable, surviving a zone loss, and nodes to add."""
    from planner.commands.capacity import capacity_command, render_capacity

    result = capacity_command(paths, workload, namespace, rng, zone_failure, add_nodes, plot, _solve_opts(time_limit, seed, workers), _limits(max_bytes), scheduler_config)
    output.emit(result, out.value, render_capacity)
    failing = any(not r["schedulable"] for r in result["replicas"]) or bool((result.get("bound") or {}).get("past"))
    failing = failing or any(not z["schedulable"] for z in result.get("zone_failure", []))
    return 1 if failing else 0


@app.command()
def simulate(
    paths: Snapshots,
    workload: WorkloadOpt,
    namespace: NamespaceOpt = None,
    scale: Annotated[int | None, typer.Option("--scale", help="Scale the workload to N replicas.", min=0)] = None,
    rollout: Annotated[bool, typer.Option("--rollout", help="Roll out a new template revision (kubectl rollout restart, or --set-image).")] = False,
    set_image: Annotated[str | None, typer.Option("--set-image", help="With --rollout: the new image of every container.")] = None,
    evict: Annotated[str | None, typer.Option("--evict", help="Evict POD (NAMESPACE/NAME or NAME); the controller recreates it.")] = None,
    delete: Annotated[str | None, typer.Option("--delete", help="Delete KIND/NAME (e.g. the blue StatefulSet).")] = None,
    drain: Annotated[str | None, typer.Option("--drain", help="Cordon NODE and evict its pods, honouring PodDisruptionBudgets.")] = None,
    zone_down: Annotated[str | None, typer.Option("--zone-down", help="Lose every node of ZONE.")] = None,
    steps: Annotated[str | None, typer.Option("--steps", help="A YAML file with a list of steps (docs/simulate.md).")] = None,
    pod_management: Annotated[str | None, typer.Option("--pod-management", help="Replay StatefulSets under OrderedReady, Parallel or OrderedScheduled (a what-if).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the scheduler's tie-breaks.")] = 0,
    scheduler_config: SchedulerConfigOpt = None,
    out: OutputOpt = Format.table,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Replay a transition pod by pod, as the controllers and kube-scheduler would, and find where it sticks."""
    from planner.commands.simulate import render_simulate, simulate_command

    result = simulate_command(
        paths,
        workload,
        namespace,
        {"scale": scale, "rollout": rollout, "set_image": set_image, "evict": evict, "delete": delete, "drain": drain, "zone_down": zone_down, "steps": steps},
        pod_management,
        seed,
        _limits(max_bytes),
        scheduler_config,
    )
    output.emit(result, out.value, render_simulate)
    return 0 if result["completed"] else 1


@app.command()
def remediate(
    paths: Snapshots,
    workload: Annotated[str, typer.Option("--workload", "-w", help="KIND/NAME (deployment or statefulset).", show_default=False)],
    namespace: NamespaceOpt = None,
    replicas: Annotated[int | None, typer.Option("--replicas", help="Goal: N replicas schedulable (as check decides).", min=0)] = None,
    rollout: Annotated[bool, typer.Option("--rollout", help="Goal: a rollout completes (as simulate --rollout replays it).")] = False,
    scale: Annotated[int | None, typer.Option("--scale", help="Goal: scaling to N completes (as simulate --scale replays it).", min=0)] = None,
    steps: Annotated[str | None, typer.Option("--steps", help="Goal: the replay of these steps completes (a steps file as simulate --steps reads it, or a scenario: its steps:).", show_default=False)] = None,
    forbid: Annotated[list[str] | None, typer.Option("--forbid", help="An action type not to propose; repeatable.", show_default=False)] = None,
    allow_destructive: Annotated[bool, typer.Option("--allow-destructive", help="Rank destructive plans by cost alone (default: after every other plan).")] = False,
    top: Annotated[int, typer.Option("--top", help="How many plans to print.", min=1, max=50)] = 5,
    emit: Annotated[str | None, typer.Option("--emit", help="Write patch files and a runbook per plan to DIR.")] = None,
    out: OutputOpt = Format.table,
    time_limit: TimeLimitOpt = 30.0,
    seed: SeedOpt = 0,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """The cheapest verified changes (as patches) that make a failing check, rollout or scale succeed."""
    from planner.commands.remediate import remediate_command, render_remediate

    result = remediate_command(
        paths, workload, namespace, replicas, rollout, scale, forbid or [], allow_destructive, top, emit,
        _solve_opts(time_limit, seed, 1), seed, _limits(max_bytes), steps,
    )
    output.emit(result, out.value, render_remediate)
    return 0 if result["schedulable_now"] or result["plans"] else 1


class AuditFormat(str, Enum):
    table = "table"
    json = "json"
    sarif = "sarif"


class Severity(str, Enum):
    warning = "warning"
    error = "error"


AllNamespacesOpt = Annotated[bool, typer.Option("-A", "--all-namespaces", help="Every namespace (like kubectl).")]


@app.command()
def audit(
    paths: Snapshots,
    namespace: Annotated[str | None, typer.Option("-n", "--namespace", help="Audit the workloads of this namespace only (default: every namespace in the input).")] = None,
    all_namespaces: AllNamespacesOpt = False,
    out: Annotated[AuditFormat, typer.Option("-o", "--output", help="table, json, or sarif (SARIF 2.1.0 for GitHub code scanning).")] = AuditFormat.table,
    fail_on: Annotated[Severity, typer.Option("--fail-on", help="Exit 1 when a finding of this severity or worse is found.")] = Severity.warning,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Find latent scheduling hazards (those behind known incidents) in every workload: a CI gate (exit 1 on findings)."""
    from planner.commands.audit import audit_command, exit_code, render_sarif, render_table

    result = audit_command(paths, namespace, all_namespaces, _limits(max_bytes))
    if out is AuditFormat.sarif:
        output.emit(render_sarif(result), "json")
    else:
        output.emit(result, out.value, render_table)
    return exit_code(result, fail_on.value)


class SnapshotFormat(str, Enum):
    json = "json"


@app.command()
def snapshot(
    context: Annotated[str | None, typer.Option("--context", help="The kubeconfig context to use (kubectl --context).")] = None,
    kubeconfig: Annotated[str | None, typer.Option("--kubeconfig", help="The kubeconfig file to use (kubectl --kubeconfig).")] = None,
    namespace: Annotated[str | None, typer.Option("-n", "--namespace", help="Namespaced kinds from this namespace only (default: the context's).")] = None,
    all_namespaces: AllNamespacesOpt = False,
    out: Annotated[SnapshotFormat, typer.Option("-o", "--output", help="json: one kubectl List.")] = SnapshotFormat.json,
) -> int:
    """Gather the kinds planner reads from a cluster, read-only, through your kubectl (kubectl get), as one List."""
    from planner.commands.snapshot import snapshot_command

    return snapshot_command(context, kubeconfig, namespace, all_namespaces)


def _print_version(value: bool) -> None:
    if value:
        from planner import KUBERNETES_BASELINE, __version__

        print(f"planner {__version__} (kube-scheduler and controller semantics of Kubernetes {KUBERNETES_BASELINE})")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", is_eager=True, callback=_print_version),
    ] = False,
) -> None:
    """A constraint-solver placement planner for Kubernetes."""


def main(argv: list[str] | None = None) -> None:
    """Entry point: runs a command and turns every failure into a one-line message and exit 2."""
    try:
        from typer._click import exceptions as click_exc  # typer >= 0.26 vendors click
    except ImportError:  # pragma: no cover - typer < 0.26 depends on click
        from click import exceptions as click_exc  # type: ignore[no-redef]
    from typer.main import get_command

    code = 0
    try:
        rv = get_command(app).main(args=argv, prog_name="planner", standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
        if code == 130:  # typer turns Ctrl-C into a silent return of 130 (no command returns it)
            output.note("interrupted")
    except PlannerError as e:
        for m in e.messages or [str(e)]:
            output.note(f"error: {m}")
        code = e.exit_code
    except typer.Exit as e:
        code = e.exit_code
    except (typer.Abort, KeyboardInterrupt):
        output.note("interrupted")
        code = 130
    except click_exc.ClickException as e:
        e.show()
        code = 2
    except BrokenPipeError:
        code = 0
    except RecursionError:
        output.note("error: input nested too deeply to process")
        code = 2
    except MemoryError:
        output.note("error: out of memory while processing the input (see --max-bytes)")
        code = 2
    except Exception as e:  # the one boundary: never a traceback
        output.note(f"error: internal error: {type(e).__name__}: {e} (please report this with the input that caused it)")
        code = 2
    sys.exit(code)
