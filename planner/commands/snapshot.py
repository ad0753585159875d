"""`planner snapshot`: gather the objects planner reads from a live cluster, read-only, through the
user's own kubectl, as one kubectl-shaped ``List`` on stdout.

This is the only code in planner that touches a cluster.  It runs exactly one command,

    kubectl get nodes,pods,pv,pvc,storageclasses,csinodes,deployments,replicasets,statefulsets,daemonsets,hpa,pdb,namespaces,priorityclasses,limitranges,runtimeclasses,controllerrevisions -o json
        [--context=C] [--kubeconfig=F] [--namespace=NS | --all-namespaces]

with the user's credentials and kubeconfig, never a verb other than ``get``, never through a
shell: the arguments are a list (``subprocess.run([kubectl, ...])``), each value one item in the
``--flag=VALUE`` form, so a context named ``-x`` or one with spaces or a newline reaches kubectl
as that context's name and nothing else.  Cluster-scoped kinds (nodes, persistent volumes, storage classes, CSI nodes, namespaces, priority classes) are listed
whatever the namespace flag says; without -n or -A, namespaced kinds come from the context's
namespace, as with kubectl itself.  The output is kubectl's own JSON, checked to be a ``List``,
and passed through unchanged.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from typing import Any

import orjson

from planner.errors import PlannerError, UsageError
from planner.output import note

RESOURCES = "nodes,pods,pv,pvc,storageclasses,csinodes,deployments,replicasets,statefulsets,daemonsets,hpa,pdb,namespaces,priorityclasses,limitranges,runtimeclasses,controllerrevisions"
KUBECTL = "kubectl"


class KubectlError(PlannerError):
    """kubectl is missing, failed, or printed something that is not a List."""


def _value(flag: str, value: str) -> str:
    if not value:
        raise UsageError(f"snapshot: {flag} needs a value")
    if "\0" in value:
        raise UsageError(f"snapshot: {flag} {value!r}: a NUL character cannot be passed to kubectl")
    return value


def kubectl_args(context: str | None, kubeconfig: str | None, namespace: str | None, all_namespaces: bool) -> list[str]:
    """The arguments after ``kubectl``: ``get`` and nothing else."""
    if namespace and all_namespaces:
        raise UsageError("snapshot: give -n NAMESPACE or -A, not both")
    args = ["get", RESOURCES, "-o", "json"]
    # one argv item each, in the --flag=VALUE form: a value starting with "-" (a context named
    # "-x") is the flag's value, never a flag of its own; spaces and newlines stay in the value
    if context is not None:
        args.append(f"--context={_value('--context', context)}")
    if kubeconfig is not None:
        args.append(f"--kubeconfig={_value('--kubeconfig', kubeconfig)}")
    if namespace is not None:
        args.append(f"--namespace={_value('--namespace', namespace)}")
    elif all_namespaces:
        args += ["--all-namespaces"]
    return args


def gather(context: str | None, kubeconfig: str | None, namespace: str | None, all_namespaces: bool) -> tuple[str, dict[str, Any]]:
    """Run kubectl get; returns its JSON text (a List) and the parsed document."""
    args = kubectl_args(context, kubeconfig, namespace, all_namespaces)
    exe = shutil.which(KUBECTL)
    if exe is None:
        raise KubectlError("kubectl not found on PATH: planner snapshot reads the cluster through your own kubectl")
    assert args[0] == "get"  # read-only, whatever changes around this line
    try:
        proc = subprocess.run([exe, *args], capture_output=True, stdin=subprocess.DEVNULL, check=False)
    except OSError as e:
        raise KubectlError(f"cannot run {exe}: {e.strerror}") from None
    err = proc.stderr.decode("utf-8", errors="replace").strip()
    if proc.returncode != 0:
        lines = [ln for ln in err.splitlines() if ln.strip()] or [f"exit status {proc.returncode}"]
        raise KubectlError(*(f"kubectl {' '.join(args[:2])} ...: {ln}" for ln in lines))
    for ln in err.splitlines():
        if ln.strip():
            note(f"kubectl: {ln}")
    text = proc.stdout.decode("utf-8", errors="strict") if proc.stdout else ""
    try:
        doc = orjson.loads(text)
    except (orjson.JSONDecodeError, UnicodeDecodeError) as e:
        raise KubectlError(f"kubectl printed something that is not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("kind") != "List" or not isinstance(doc.get("items"), list):
        raise KubectlError("kubectl printed JSON that is not a List (kind: List, items: [...])")
    return text, doc


def snapshot_command(context: str | None, kubeconfig: str | None, namespace: str | None, all_namespaces: bool) -> int:
    text, doc = gather(context, kubeconfig, namespace, all_namespaces)
    counts = Counter(str(i.get("kind")) for i in doc["items"] if isinstance(i, dict))
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()
    where = f"namespace {namespace}" if namespace else ("all namespaces" if all_namespaces else "the context's namespace")
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no objects"
    note(f"snapshot: {summary} ({where}; cluster-scoped kinds in full)")
    return 0
