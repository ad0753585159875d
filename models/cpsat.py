"""The one import of OR-Tools' CP-SAT Python API (``from models.cpsat import cp_model``).

ortools.sat.python.cp_model imports pandas at module level, for its pandas helpers
(new_int_var_series, values, boolean_values) only; planner never calls them, and pandas alone
costs about 0.2 s of every command's start-up (the whole of `planner check`'s answer on small
inputs).  So the module is imported with a stand-in ``pandas`` holding the two names its
annotations evaluate (Index, Series); the real pandas is left alone and imports normally for
anyone who asks for it later.  If the stand-in is ever not enough (another OR-Tools release), the
import is simply retried with the real pandas.

``cp_model`` is a stand-in module that imports OR-Tools (and numpy, which it needs) on the first
attribute read: the commands and answers that never build a model (validate, explain, a check with
nothing to place, ...) do not pay the ~0.15 s of that import at start-up.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING


def _import_cp_model() -> types.ModuleType:
    if "pandas" in sys.modules or "ortools.sat.python.cp_model" in sys.modules:
        from ortools.sat.python import cp_model as mod

        return mod
    stub = types.ModuleType("pandas")
    stub.__dict__.update(Index=type("Index", (), {}), Series=type("Series", (), {}))
    sys.modules["pandas"] = stub
    try:
        from ortools.sat.python import cp_model as mod
    except Exception:  # noqa: BLE001 - a release that needs more of pandas: import it for real
        for name in [n for n in sys.modules if n.startswith("ortools.sat.python.cp_model")]:
            del sys.modules[name]
        del sys.modules["pandas"]
        from ortools.sat.python import cp_model as mod

        return mod
    finally:
        if sys.modules.get("pandas") is stub:
            del sys.modules["pandas"]
    return mod


class _LazyModule(types.ModuleType):
    """``cp_model`` until first used: then the real module, whose attributes it takes on."""

    def __getattr__(self, name: str) -> object:
        mod = _import_cp_model()
        self.__dict__.update(mod.__dict__)  # later reads are plain attribute reads
        return getattr(mod, name)


if TYPE_CHECKING:
    from ortools.sat.python import cp_model
else:
    cp_model = _LazyModule("ortools.sat.python.cp_model")

__all__ = ["cp_model"]
