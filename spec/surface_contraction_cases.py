"""Value cases of the contractions (a value entry whose ``reduction.kind`` is ``inner-product`` or
``diagonal-sum``): calls built from the entry's operands by role, each judged on its one 0-d output
(oracle/surface_contractions.py).

Per sample dtype: ``values`` (random terms in the entry's range: 1024 products, or a 32 x 32 matrix),
``wide`` and ``tall`` (a diagonal's rectangular matrices, where a row stride mistaken for a column
stride shows), ``nan`` (one NaN term), ``infinite`` (one infinite term), ``opposite`` (infinite terms
of both signs: NaN in any order), ``zero`` (terms cancelling exactly: either sign of zero), ``tiny``
(float32-range dtypes: products below float32's normal range), ``one`` (a single term), ``long``
(1000 products, or a diagonal of 400, of one sign, not a multiple of any power-of-two block, so that a dropped tail or a narrow
accumulator shows) and ``empty``.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_values import DIAGONAL_SUM, ValueEntry
from aclnn_conformance.spec.tensor import TensorArg

SEED = 20261206
# (kind, the number of terms); a diagonal's matrix shape below
CALLS = (("values", 1024), ("wide", 6), ("tall", 6), ("nan", 40), ("infinite", 40), ("opposite", 40),
         ("zero", 3), ("tiny", 40), ("one", 1), ("long", 1000), ("empty", 0))
MATRIX = {"values": (32, 32), "wide": (6, 9), "tall": (9, 6), "long": (400, 401), "one": (1, 1),
          "empty": (0, 5)}
FLOAT32_RANGE = ("FLOAT", "BF16")    # the dtypes whose values' products may leave float32's normal range


def _is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f" or np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16)


def _terms(kind: str, n: int, dtype: np.dtype, entry: ValueEntry, rng: np.random.Generator,
           row: int) -> np.ndarray:
    """One operand's terms for a call (``row`` 0 the input, 1 an inner product's other operand)."""
    floating = _is_float(dtype)
    if not floating:
        lo, hi = (-50, 50) if np.dtype(dtype).kind == "i" else (0, 50)
        if np.dtype(dtype).kind == "b":
            lo, hi = 0, 2
        return rng.integers(lo, hi, size=n).astype(dtype)
    lo, hi = entry.sample.get("range", [-6.0, 6.0])
    x = rng.uniform(lo, hi, size=n)
    if kind == "long":        # every term of one sign: the partial sums grow
        x = np.absolute(x) + 0.5
    elif kind == "nan":
        x[5] = np.nan if row == 0 else x[5]
    elif kind == "infinite":
        x[7] = np.inf if row == 0 else 1.5
    elif kind == "opposite":   # +inf * 1.5 and +inf * -2, or a diagonal's +inf and -inf
        x[7], x[9] = ((np.inf, -np.inf) if entry.reduction["kind"] == DIAGONAL_SUM else (np.inf, np.inf)) \
            if row == 0 else (1.5, -2.0)
    elif kind == "zero":      # 1*2 + 2*(-1) + 3*0, or a diagonal 2.5 - 2.5 + 0
        x = np.array([1.0, 2.0, 3.0]) if row == 0 else np.array([2.0, -1.0, 0.0])
        if entry.reduction["kind"] == DIAGONAL_SUM:
            x = np.array([2.5, -2.5, 0.0])
    elif kind == "tiny":      # 2^-70 * 2^-60 = 2^-130: below float32's normal range, nonzero
        x = np.sign(x) * 2.0 ** (-70 if row == 0 else -60) * (1 + np.rint(np.absolute(x)) / 8)
    with np.errstate(over="ignore"):
        return x.astype(np.float32).astype(dtype)


def _diagonal_matrix(kind: str, diagonal: np.ndarray, dtype: np.dtype, entry: ValueEntry,
                     rng: np.random.Generator) -> np.ndarray:
    """A matrix holding ``diagonal`` on its main diagonal, random values off it."""
    shape = MATRIX.get(kind, (diagonal.size, diagonal.size))
    off = _terms("values", int(np.prod(shape)), dtype, entry, rng, 1).reshape(shape)
    k = min(shape)
    if k:
        off[np.arange(k), np.arange(k)] = diagonal[:k]
    return off


def contraction_value_cases(entry: ValueEntry, key: str, rule: str, count: int = 1024,
                            dtypes: tuple[str, ...] | None = None) -> list[Case]:
    """The calls of a contraction's entry per sample dtype (``CALLS``)."""
    red = entry.reduction
    rng = np.random.default_rng(SEED)
    diagonal = red["kind"] == DIAGONAL_SUM
    cases = []
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        out_acl = acl if _is_float(dt) else AclDataType[red.get("integer_out_dtype", dtype_name)]
        for kind, n in CALLS:
            if kind == "tiny" and (dtype_name not in FLOAT32_RANGE or diagonal):   # products only
                continue
            if not _is_float(dt) and kind in ("nan", "infinite", "opposite", "tiny", "zero"):
                continue
            if kind == "values":
                n = n * max(1, count // 1024)
            if diagonal:
                shape = MATRIX.get(kind, (n, n))
                if kind == "values" and count > 1024:
                    shape = (90, 90)
                x = _diagonal_matrix(kind, _terms(kind, min(shape), dt, entry, rng, 0), dt, entry, rng)
                tensors = {red["input"]: x}
            else:
                tensors = {red["input"]: _terms(kind, n, dt, entry, rng, 0),
                           red["other"]: _terms(kind, n, dt, entry, rng, 1)}
            args: dict[str, Any] = {name: TensorArg.from_array(np.asarray(v), acl) for name, v in tensors.items()}
            args[entry.output] = TensorArg.from_array(np.zeros((), numpy_dtype(out_acl)), out_acl)
            cases.append(Case(op=key, case_id=f"{kind}-{dtype_name}", tensors=args,
                              attrs=dict(entry.sample.get("attrs", {})), rule_ids=(rule,), origin="table"))
    return cases
