"""Mutants of an elementwise entry with a per-channel operand (``channel_operands``), the bugs a
kernel broadcasting one element per channel would have:

- ``channel-first-only``: the operand's first element used for every channel (read as a scalar);
- ``channel-last-dim``: the operand laid along the input's last dim instead of its channel dim (the
  trailing broadcast); a call whose last dim differs from the channel count is computed right.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.mutants.surface_kinds import PROFILE, SurfaceBackend, _make
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry
from aclnn_conformance.spec.tensor import TensorArg


class FirstChannelOnlyMutant(SurfaceBackend):
    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        altered = case
        for name in self.entry().raw["channel_operands"]:
            arg = case.tensors.get(name)
            if arg is not None:
                values = np.asarray(arg.values()).reshape(-1)
                if values.size:
                    first = np.full(arg.desc.shape, values[0], values.dtype)
                    altered = altered.with_tensor(name, TensorArg.from_array(first, arg.desc.dtype))
        return np.asarray(from_case(altered, PROFILE).views[self.entry().output])


class LastDimMutant(SurfaceBackend):
    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        entry = self.entry()
        channels = entry.raw["channel_operands"]
        inputs = {w["of"] for w in channels.values()}
        shapes = [tuple(case.tensor(n).desc.shape) for n in inputs]
        if any(len(s) < 3 or s[1] != s[-1] for s in shapes):
            return np.asarray(from_case(case, PROFILE).views[entry.output])
        altered = case
        for name in inputs | {entry.output}:   # the channel dim and the last exchanged
            arg = case.tensor(name)
            swapped = np.ascontiguousarray(np.swapaxes(np.asarray(arg.values()), 1, -1))
            altered = altered.with_tensor(name, TensorArg.from_array(swapped, arg.desc.dtype))
        out = np.asarray(from_case(altered, PROFILE).views[entry.output])
        return np.ascontiguousarray(np.swapaxes(out, 1, -1))


def channel_mutants(entry: ValueEntry, key: str, rule: tuple[str, ...]) -> list[type]:
    """The per-channel kinds of an entry with ``channel_operands`` (none otherwise)."""
    if not entry.raw.get("channel_operands"):
        return []
    return [_make(FirstChannelOnlyMutant, entry, key, "channel-first-only", "uses the per-channel "
                  "operand's first element for every channel", rule),
            _make(LastDimMutant, entry, key, "channel-last-dim", "lays the per-channel operand along "
                  "the input's last dim instead of its channel dim", rule)]
