"""What an oracle says a call's outputs must be."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class OracleResult:
    """For each output, either the expected logical view (``views``: compared through the tensor's
    view, everything outside the view must be untouched) or the expected whole storage
    (``storages``: layout outputs in private formats, where the storage itself is the result);
    ``aux`` holds the extra inputs of a standard (bounds, envelopes), per output."""

    views: dict[str, np.ndarray] = field(default_factory=dict)
    storages: dict[str, np.ndarray] = field(default_factory=dict)
    aux: dict[str, dict[str, Any]] = field(default_factory=dict)
