"""Where the functions of floor division, remainder and integer shifts leave a result open: the
helper words of the vocabulary (``spec/data/values/functions.json``) an entry's ``open_where``
names. Each takes the operands as the oracle holds them (the compute dtype, or float64 for a float
one) and gives a truth value per element: True where no document fixes the result or where the
arithmetic model of the kernel allows more than one answer.

Nothing here names an API: which entry opens what is data of the entry.
"""
from __future__ import annotations

from typing import Any

import numpy as np

# a float32 rounding of the quotient and one more step (the division model: within one ulp of the
# correctly rounded quotient), and a step of margin for a quotient at a binade's edge
_QUOTIENT_STEPS = 3.0


def _is_float(values: np.ndarray) -> bool:
    return values.dtype.kind == "f" or values.dtype.name == "bfloat16"


def _float32_unit(q: np.ndarray) -> np.ndarray:
    """The float32 ulp at |q| (float64; the subnormal step near zero; 0 where q is not finite)."""
    with np.errstate(over="ignore", invalid="ignore"):
        magnitude = np.absolute(np.where(np.isfinite(q), q, 0.0)).astype(np.float32)
        return np.spacing(magnitude).astype(np.float64)


def _round_down(x: np.ndarray) -> np.ndarray:
    """The largest integer not above finite x: x less its fractional part (exact), one less where
    that part is negative."""
    fraction = np.fmod(x, 1.0)
    return (x - fraction) - (fraction < 0)


def _integer_quotient_open(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A zero divisor (no document says what an integer division by zero gives) and the one quotient
    beyond the dtype (its most negative value over -1); BOOL operands: every element."""
    if a.dtype.kind == "b" or b.dtype.kind == "b":
        return np.ones(np.broadcast_shapes(a.shape, b.shape), bool)
    opened = b == 0
    if b.dtype.kind == "i":
        opened = opened | ((a == np.iinfo(b.dtype).min) & (b == -1))
    return np.asarray(opened, bool)


def floor_quotient_open(a: Any, b: Any) -> np.ndarray:
    """floor(a / b) where the kernel's rounded quotient may decide another integer: an integer
    within a float32 rounding and one ulp of a / b (exact quotients too: a division one ulp below
    n floors to n - 1), every quotient of magnitude 2^23 and more (all of float32's values there are
    integers, so a neighbour is another answer), and an infinite operand with a non-NaN quotient
    (the document's floor(inf / 2) is inf, the ATK golden torch.floor_divide gives NaN; torch's
    floor(-0.5 / inf) is -1, the formula's -0). Integers: ``_integer_quotient_open``."""
    a, b = np.asarray(a), np.asarray(b)
    if not (_is_float(a) or _is_float(b)):
        return _integer_quotient_open(a, b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        q = a64 / b64
        reach = _QUOTIENT_STEPS * _float32_unit(q)
        moved = np.isfinite(q) & (_round_down(q - reach) != _round_down(q + reach))
        infinite_operand = ~np.isnan(q) & (np.isinf(a64) | np.isinf(b64))
    return np.asarray(moved | infinite_operand, bool)


# the vendor's TTK precision_tolerances of the remainder (the largest atol over its dtypes): a
# truncated remainder within that of zero may come out of the kernel with either sign
_REMAINDER_REACH = 1e-3
_FLOAT32_INTEGERS = 2.0 ** 24   # from here on float32 holds only some integers


def remainder_open(a: Any, b: Any) -> np.ndarray:
    """The floored remainder where the kernel's truncated remainder (fmod, judged within the vendor's
    tolerance) may have either sign, so that adding the divisor or not is both correct: |fmod(a, b)|
    within the tolerance's reach of 0 (exact multiples among them). A zero divisor: no document says
    what an integer division by zero gives, and an entry of the tolerance class holds its integer
    calls in float32 (where they cannot be told from float ones), so it is open for both; so are
    finite operands of 2^24 and more, beyond the integers float32 holds. Integer operands (an exact
    evaluation): a zero divisor; BOOL operands: every element."""
    a, b = np.asarray(a), np.asarray(b)
    if not (_is_float(a) or _is_float(b)):
        if a.dtype.kind == "b" or b.dtype.kind == "b":
            return np.ones(np.broadcast_shapes(a.shape, b.shape), bool)
        return np.asarray(b == 0, bool)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        truncated = np.fmod(a64, b64)
        reach = _REMAINDER_REACH * (1.0 + _REMAINDER_REACH)
        near_zero = np.isfinite(truncated) & (np.absolute(truncated) <= reach)
        beyond = (np.isfinite(a64) & (np.absolute(a64) >= _FLOAT32_INTEGERS)) | \
            (np.isfinite(b64) & (np.absolute(b64) >= _FLOAT32_INTEGERS))
        return np.asarray(near_zero | (b64 == 0) | beyond, bool)


def shift_count_at_least_width(bits: Any) -> np.ndarray:
    """A shift count of the operands' bit width or more (the documents guarantee a shift's result
    only below it; the kernels clamp some dtypes' counts and not others')."""
    bits = np.asarray(bits)
    width = bits.dtype.itemsize * 8
    return np.asarray(bits >= width, bool)


QUOTIENT_HELPERS = {f.__name__: f for f in (floor_quotient_open, remainder_open,
                                             shift_count_at_least_width)}
