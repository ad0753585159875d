"""The command line: thin typer commands over planner.commands, one error boundary in main().

Exit codes, for every command: 0 yes / nothing wrong, 1 no (unschedulable, stuck, hazards
found), 2 error (usage or invalid input; the solver timed out). Data on stdout, messages on
stderr.
"""

from __future__ import annotations

import atexit
import os
import sys
from contextlib import AbstractContextManager, nullcontext
from enum import Enum
from typing import Annotated, Any, NoReturn

import typer

from planner import output
from planner.errors import PlannerError
from planner.load import Limits

app = typer.Typer(
    name="planner",
    help="A constraint-solver placement planner for Kubernetes: why a pod cannot be placed, "
    "whether a workload can reach N replicas, and what to change.",
    no_args_is_help=True,
    # --install-completion / --show-completion [bash|zsh|fish|powershell]: click's shell completion
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class Format(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"


Snapshots = Annotated[
    list[str],
    typer.Argument(help="Snapshot files or directories (kubectl -o yaml|json, helm template output, scenarios); - for stdin.", show_default=False, metavar="PATH"),
]
OutputOpt = Annotated[Format, typer.Option("-o", "--output", help="Output format.")]
NamespaceOpt = Annotated[str | None, typer.Option("-n", "--namespace", help="Namespace of the names given (like kubectl); default: default.")]
MaxBytesOpt = Annotated[
    int | None,
    typer.Option(
        "--max-bytes",
        help="Largest input file accepted, in bytes (default: 1 GiB, or 8 GiB for a kubectl JSON List file, which the commands that load a snapshot read item by item; validate and render read every input whole).",
        min=1,
        show_default=False,
    ),
]
OverlayOpt = Annotated[
    bool,
    typer.Option(
        "--overlay/--no-overlay",
        help="Apply the inputs after the first over it, as kubectl apply would: an object replaces the one of the same kind, namespace and name (what it keeps of it: docs/semantics.md#overlay), and the notes say what was replaced. --no-overlay: a repeated object is an error.",
    ),
]

DEFAULT_MAX_BYTES: int | None = None  # Limits' defaults


def _limits(max_bytes: int | None) -> Limits:
    """--max-bytes N bounds every input at N; without it, Limits' defaults (a JSON List, read item
    by item, may be larger than a file read whole)."""
    return Limits() if max_bytes is None else Limits(max_bytes=max_bytes, max_stream_bytes=max_bytes)


@app.command()
def validate(
    paths: Snapshots,
    out: OutputOpt = Format.table,
    overlay: OverlayOpt = True,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Read and validate inputs as the API server would; report every error (exit 2 if any)."""
    from planner.commands.validate import validate_inputs

    result = validate_inputs(paths, _limits(max_bytes), overlay=overlay)
    output.emit(result, out.value, _validate_table)
    return 0 if result["valid"] else 2


def _validate_table(r: dict) -> str:
    lines = []
    if r["valid"]:
        counts = ", ".join(f"{n} {k}" for k, n in r["objects"].items()) or "no objects"
        lines.append(f"{output.good('valid')}: {counts}")
    else:
        lines.append(f"{output.bad('invalid')}: {len(r['errors'])} error(s)")
        lines.extend(r["errors"])
    for n in r.get("notes", []):
        lines.append(f"note: {n}")
    return "\n".join(lines)


@app.command()
def render(
    paths: Snapshots,
    out: Annotated[Format, typer.Option("-o", "--output", help="yaml (default) or json.")] = Format.yaml,
    overlay: OverlayOpt = True,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Print a scenario (or any input) expanded into a kubectl-appliable List."""
    from planner.commands.render import render_inputs

    doc = render_inputs(paths, _limits(max_bytes), overlay=overlay)
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


class ExplainFormat(str, Enum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


@app.command()
def explain(
    paths: Snapshots,
    pod: Annotated[
        list[str] | None,
        typer.Option("--pod", help="A pod to explain: NAMESPACE/NAME or NAME (with -n); repeatable.", show_default=False),
    ] = None,
    pod_file: Annotated[str | None, typer.Option("--pod-file", help="A pod manifest that does not exist yet.")] = None,
    namespace: Annotated[
        str | None,
        typer.Option("-n", "--namespace", help="Namespace of the pods named (like kubectl); without --pod: explain every Pending pod of it. Default: default."),
    ] = None,
    all_namespaces: Annotated[bool, typer.Option("-A", "--all-namespaces", help="Explain every Pending pod of every namespace, grouped by the reason that blocks it.")] = False,
    scores: Annotated[
        bool,
        typer.Option(
            "--scores",
            help="Also score the nodes that pass every filter: each score plugin's normalized score (0..100) and weight, and the weighted total, highest first.",
        ),
    ] = False,
    scheduler_config: SchedulerConfigOpt = None,
    out: Annotated[ExplainFormat, typer.Option("-o", "--output", help="Output format; wide: with several pods, one row per pod with kube-scheduler's message for it.")] = ExplainFormat.table,
    plot: Annotated[str | None, typer.Option("--plot", help="One pod: draw its zone map (each zone's nodes, the pods of its workload and their volumes, the spread counts and skew) into FILE: PNG or SVG by its extension.", show_default=False)] = None,
    html: Annotated[str | None, typer.Option("--html", help="One pod: its zone map as a self-contained HTML page (inline SVG and CSS, no script) in FILE.", show_default=False)] = None,
    overlay: OverlayOpt = True,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Why pods can or cannot be placed: every filter plugin on every node, as kube-scheduler sees it (--scores: and how the feasible ones score); without --pod, every Pending pod grouped by what blocks it."""
    from planner.commands.explain import explain_command, render_any, render_wide

    result = explain_command(
        paths,
        pods=list(pod or []),
        pod_file=pod_file,
        namespace=namespace,
        all_namespaces=all_namespaces,
        limits=_limits(max_bytes),
        scores=scores,
        scheduler_config=scheduler_config,
        overlay=overlay,
        plot=plot,
        html=html,
    )
    if out is ExplainFormat.wide:
        output.emit(result, "table", render_wide)
    else:
        output.emit(result, out.value, render_any)
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
    plot: Annotated[str | None, typer.Option("--plot", help="Draw the zone map of the answer (each zone's nodes, the pods kept and placed or Pending with their volumes, the spread counts and skew) into FILE: PNG or SVG by its extension.", show_default=False)] = None,
    html: Annotated[str | None, typer.Option("--html", help="The zone map as a self-contained HTML page (inline SVG and CSS, no script) in FILE.", show_default=False)] = None,
    overlay: OverlayOpt = True,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Prove whether workloads can reach N replicas: a verified placement, or a minimal why-not."""
    from planner.commands.check import check_command, render_check

    result = check_command(
        paths, workload, replicas, namespace, _solve_opts(time_limit, seed, workers), _limits(max_bytes), scheduler_config, overlay=overlay,
        plot=plot, html=html,
    )
    output.emit(result, out.value, render_check)
    return 0 if result["schedulable"] else 1


@app.command()
def capacity(
    paths: Snapshots,
    workload: Annotated[str | None, typer.Option("--workload", "-w", help="KIND/NAME (deployment or statefulset).", show_default=False)] = None,
    pod_file: Annotated[
        str | None,
        typer.Option(
            "--pod-file",
            help="A Pod, Deployment, StatefulSet or ReplicaSet manifest not in the snapshot (- for stdin): how many more of its pods fit, per node and per zone (cluster-capacity's --podspec, proven).",
            show_default=False,
        ),
    ] = None,
    max_limit: Annotated[int | None, typer.Option("--max-limit", help="With --pod-file: stop counting at N (the answer is then 'at least N').", min=1)] = None,
    namespace: NamespaceOpt = None,
    rng: Annotated[str | None, typer.Option("--range", help="Replica counts A..B (default: the HPA's min..max, else 1..2 x replicas).")] = None,
    zone_failure: Annotated[bool, typer.Option("--zone-failure", help="For each zone lost: do the replicas still fit?")] = False,
    add_nodes: Annotated[bool, typer.Option("--add-nodes", help="Fewest nodes to add per zone for the first failing count.")] = False,
    plot: Annotated[str | None, typer.Option("--plot", help="Draw the capacity curve (each count schedulable or not with the constraint that limits it; each zone's headroom on the nodes the pods may use) into FILE: PNG or SVG by its extension.", show_default=False)] = None,
    html: Annotated[str | None, typer.Option("--html", help="The capacity curve as a self-contained HTML page (inline SVG and CSS, no script) in FILE.", show_default=False)] = None,
    out: OutputOpt = Format.table,
    time_limit: TimeLimitOpt = 30.0,
    seed: SeedOpt = 0,
    workers: WorkersOpt = 2,
    scheduler_config: SchedulerConfigOpt = None,
    overlay: OverlayOpt = True,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Which replica counts are schedulable, surviving a zone loss, and nodes to add; or (--pod-file) how many more of a pod fit."""
    from planner.commands.capacity import capacity_command, render_any

    result = capacity_command(
        paths, workload, namespace, rng, zone_failure, add_nodes, plot, _solve_opts(time_limit, seed, workers), _limits(max_bytes),
        scheduler_config, pod_file=pod_file, max_limit=max_limit, overlay=overlay, html=html,
    )
    output.emit(result, out.value, render_any)
    if "per_node" in result:
        return 0 if result["count"] > 0 else 1
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
    plot: Annotated[str | None, typer.Option("--plot", help="Draw the replay's timeline (its pods x the steps: Pending, Running in which zone, or gone; each step's zone counts and skew) into FILE: PNG or SVG by its extension.", show_default=False)] = None,
    html: Annotated[str | None, typer.Option("--html", help="The timeline as a self-contained HTML page (inline SVG and CSS, no script) in FILE.", show_default=False)] = None,
    overlay: OverlayOpt = True,
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
        overlay=overlay,
        plot=plot,
        html=html,
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
    context: Annotated[str | None, typer.Option("--context", help="The kube-context the runbooks of --emit pin (every kubectl command names it; they refuse another current context).", show_default=False)] = None,
    out: OutputOpt = Format.table,
    time_limit: TimeLimitOpt = 30.0,
    seed: SeedOpt = 0,
    overlay: OverlayOpt = True,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """The cheapest verified changes (as patches) that make a failing check, rollout or scale succeed."""
    from planner.commands.remediate import remediate_command, render_remediate

    result = remediate_command(
        paths, workload, namespace, replicas, rollout, scale, forbid or [], allow_destructive, top, emit,
        _solve_opts(time_limit, seed, 1), seed, _limits(max_bytes), steps, context, overlay=overlay,
    )
    output.emit(result, out.value, render_remediate)
    return 0 if result["schedulable_now"] or result["plans"] else 1


class AuditFormat(str, Enum):
    table = "table"
    json = "json"
    sarif = "sarif"


class Severity(str, Enum):
    note = "note"
    warning = "warning"
    error = "error"


AllNamespacesOpt = Annotated[bool, typer.Option("-A", "--all-namespaces", help="Every namespace (like kubectl).")]


@app.command()
def audit(
    paths: Snapshots,
    namespace: Annotated[list[str] | None, typer.Option("-n", "--namespace", help="Audit this namespace only (repeatable; shell patterns such as 'team-*'). Default: every namespace, with only the Pending pods of kube-system, kube-public and kube-node-lease.")] = None,
    all_namespaces: Annotated[bool, typer.Option("-A", "--all-namespaces", help="Every namespace, kube-system and the other cluster namespaces included for every rule (like kubectl).")] = False,
    exclude_namespace: Annotated[list[str] | None, typer.Option("--exclude-namespace", help="Leave this namespace out, its Pending pods too (repeatable; shell patterns).")] = None,
    rules: Annotated[list[str] | None, typer.Option("--rules", help="Run only these rules (comma-separated rule IDs, repeatable; docs/audit.md lists them).")] = None,
    skip_rules: Annotated[list[str] | None, typer.Option("--skip-rules", help="Do not run these rules (comma-separated rule IDs, repeatable).")] = None,
    out: Annotated[AuditFormat, typer.Option("-o", "--output", help="table, json, or sarif (SARIF 2.1.0 for GitHub code scanning).")] = AuditFormat.table,
    fail_on: Annotated[Severity, typer.Option("--fail-on", help="Exit 1 when a finding of this severity or worse is found (note < warning < error); ignored findings never count.")] = Severity.warning,
    docs_url: Annotated[str | None, typer.Option("--docs-url", help="Where docs/audit.md is served (an absolute URL): SARIF helpUri points at each rule's section there (default: the path docs/audit.md).")] = None,
    overlay: OverlayOpt = True,
    max_bytes: MaxBytesOpt = DEFAULT_MAX_BYTES,
) -> int:
    """Find latent scheduling hazards (those behind known incidents) in every workload, and the pods Pending now: a CI gate (exit 1 on findings). An object opts out of a rule with the annotation audit.planner.dev/ignore: "RULE-ID: reason"."""
    from planner.commands.audit import audit_command, check_docs_url, exit_code, render_sarif, render_table

    url = check_docs_url(docs_url)
    result = audit_command(paths, namespace, all_namespaces, _limits(max_bytes), exclude=exclude_namespace or (),
                           rules=rules or (), skip_rules=skip_rules or (), overlay=overlay)
    if out is AuditFormat.sarif:
        output.emit(render_sarif(result, url), "json")
    else:
        output.emit(result, out.value, lambda r: render_table(r, show_notes=fail_on is Severity.note))
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


def _watched() -> AbstractContextManager[object]:
    """The progress display of the run (planner.tty), when a person watches stderr; else nothing
    (planner.tty and what it imports are not even imported)."""
    try:
        if not sys.stderr.isatty():
            return nullcontext()
    except (AttributeError, ValueError):
        return nullcontext()
    from planner import progress, tty

    if tty.wanted(sys.stderr):
        return progress.reporting(tty.TtyReporter(sys.stderr))
    return nullcontext()


def main(argv: list[str] | None = None, prog_name: str = "planner") -> None:
    """Entry point: runs a command and turns every failure into a one-line message and exit 2."""
    try:
        from typer._click import exceptions as click_exc  # typer >= 0.26 vendors click
    except ImportError:  # pragma: no cover - typer < 0.26 depends on click
        from click import exceptions as click_exc  # type: ignore[no-redef]
    from typer.main import get_command

    code = 0
    try:
        with _watched():
            rv = get_command(app).main(args=argv, prog_name=prog_name, standalone_mode=False)
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
    if argv is None:
        _end_process(code)  # planner's own command line: the process ends with the command
    sys.exit(code)


def _end_process(code: int) -> NoReturn:
    """The end of a command run from the process's own command line: the output flushed and the
    exit handlers run, then the process ends at once, without the interpreter's teardown (a last
    collection over every object and the freeing of them one by one: about 1 s after a command on
    a 5,000-node cluster, with the answer already printed)."""
    code = _flushed(code)
    run = getattr(atexit, "_run_exitfuncs", None)
    if run is not None:
        try:
            run()
        except Exception:  # noqa: BLE001 - atexit reports a handler's error itself and goes on
            pass
    os._exit(_flushed(code))  # what the handlers wrote, too


def _flushed(code: int) -> int:
    """stdout and stderr flushed; ``code``, or 120 (the interpreter's own exit code when its last
    flush fails) when a flush fails but for a closed pipe (planner ... | head: nothing more to say)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            pass
        except Exception:  # noqa: BLE001 - the stream is gone: the exit code says it
            code = code or 120
    return code


def kubectl_main() -> None:
    """The kubectl plugin (kubectl-planner on PATH): ``kubectl planner explain ...`` runs
    ``kubectl-planner explain ...``, which is planner with kubectl's name for it in its messages."""
    main(prog_name="kubectl planner")


def kubectl_complete() -> None:
    """kubectl's completion of plugins (kubectl 1.26+): ``kubectl_complete-planner ARGS... WORD``
    prints the completions of WORD after ARGS, one a line, then cobra's directive line (``:0``,
    the shell's default: file names when nothing else completes)."""
    from typer.main import get_command

    try:
        from typer._click.shell_completion import ShellComplete  # typer >= 0.26 vendors click
    except ImportError:  # pragma: no cover - typer < 0.26 depends on click
        from click.shell_completion import ShellComplete  # type: ignore[assignment,no-redef]

    class Complete(ShellComplete):
        """click's completion of args and the word being typed, printed by us (no shell script)."""

        source_template = ""

        def source_vars(self) -> dict[str, Any]:  # pragma: no cover - not used
            return {}

        def get_completion_args(self) -> tuple[list[str], str]:  # pragma: no cover - not used
            return [], ""

        def format_completion(self, item: Any) -> str:  # pragma: no cover - not used
            return str(item.value)

    args = sys.argv[1:]
    if args[:1] == ["__complete"]:  # what kubectl passes when it completes through the plugin itself
        args = args[1:]
    incomplete = args[-1] if args else ""
    comp = Complete(get_command(app), {}, "kubectl planner", "_PLANNER_COMPLETE")
    for item in comp.get_completions(args[:-1], incomplete):
        sys.stdout.write(f"{item.value}\n")
    sys.stdout.write(":0\n")
