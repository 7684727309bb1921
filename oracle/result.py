"""What the oracle says one call's outputs must be, in the form the judge reads.

Each operator's oracle module turns a Case into an ``OracleResult`` (``from_case``): for each
output either the expected logical view (``views``: compared through the tensor's view, everything
outside the view must be untouched) or the expected whole storage (``storages``: layout outputs in
private formats, where the storage itself is the result), and the extra inputs a precision
standard needs (``aux``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class OracleResult:
    views: dict[str, np.ndarray] = field(default_factory=dict)
    storages: dict[str, np.ndarray] = field(default_factory=dict)
    aux: dict[str, dict[str, Any]] = field(default_factory=dict)   # extra inputs of a standard
