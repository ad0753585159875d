"""Which namespaces and rules an audit covers: ``-n`` / ``-A`` / ``--exclude-namespace`` and
``--rules`` / ``--skip-rules``.

Namespaces are matched as shell-style patterns (``team-*``); a namespace name cannot contain
``*``, ``?`` or ``[``, so a plain name matches only itself.  The cluster's own namespaces
(rules.SYSTEM_NAMESPACES: kube-system, kube-public, kube-node-lease) hold add-ons the cluster's
provider or tooling installs and upgrades: unless ``-A`` is given or ``-n`` names them, only their
Pending pods are reported (an outage there is everyone's outage), not their latent hazards.
``--exclude-namespace`` removes a namespace from everything, Pending pods included.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from planner.engines.audit.rules import RULES, SYSTEM_NAMESPACES


@dataclass(frozen=True)
class Scope:
    include: tuple[str, ...] | None = None  # -n patterns; None: every namespace
    exclude: tuple[str, ...] = ()  # --exclude-namespace patterns
    all_namespaces: bool = True  # -A: the system namespaces' latent hazards too (the engine's default)

    def outages(self, namespace: str) -> bool:
        """Pending pods of this namespace are reported."""
        if any(fnmatchcase(namespace, p) for p in self.exclude):
            return False
        return self.include is None or any(fnmatchcase(namespace, p) for p in self.include)

    def hazards(self, namespace: str) -> bool:
        """The workloads of this namespace are audited for latent hazards."""
        if not self.outages(namespace):
            return False
        return self.all_namespaces or self.include is not None or namespace not in SYSTEM_NAMESPACES

    def to_json(self) -> dict:
        return {
            "namespaces": list(self.include) if self.include is not None else "all",
            "exclude": list(self.exclude),
            "system_namespaces": "all rules" if self.all_namespaces or self.include is not None else "pods-pending only",
        }


def rule_list(values: Iterable[str]) -> list[str]:
    """``--rules a,b --rules c`` -> [a, b, c]; the unknown ones are the caller's to reject."""
    return [x.strip() for v in values for x in v.split(",") if x.strip()]


def unknown_rules(ids: Iterable[str]) -> list[str]:
    return [i for i in ids if i not in RULES]


def selected_rules(only: Iterable[str] | None, skip: Iterable[str] = ()) -> set[str]:
    """The rules that run: ``only`` (every rule when None) less ``skip``."""
    chosen = set(RULES) if only is None else set(only)
    return chosen - set(skip)
