"""Errors that end a command with exit code 2 and a one-line message per problem."""

from __future__ import annotations


class PlannerError(Exception):
    """Any error planner reports to the user instead of an answer (exit code 2)."""

    exit_code = 2

    def __init__(self, *messages: str) -> None:
        self.messages: list[str] = [m for m in messages if m]
        super().__init__("\n".join(self.messages))


class InputError(PlannerError):
    """The input could not be read, parsed or validated: every problem found, one per line."""


class UsageError(PlannerError):
    """A flag or argument is wrong."""


class UnknownResult(PlannerError):
    """The solver stopped before it had an answer (time limit): never reported as an answer."""
