"""Float32 arithmetic that a correct device may do, unlike the oracle: faithful (not correctly
rounded) sqrt, division and power, fused multiply-adds, division as a reciprocal times, torch's CPU
sqrt. The controls of every operator with an arithmetic model are built from these; the choice of
neighbour depends on the operands' values only, as a hardware unit's would."""
from __future__ import annotations

import math

import numpy as np

F32 = np.float32


def _toward_exact(r: np.ndarray, below_exact: np.ndarray, above_exact: np.ndarray) -> np.ndarray:
    """The other faithful result: r's float32 neighbour on the side of the exact value."""
    r = np.asarray(r, F32)
    up = np.nextafter(r, F32(np.inf))
    down = np.nextafter(r, F32(-np.inf))
    return np.where(below_exact, up, np.where(above_exact, down, r)).astype(F32)


def shaped_like(values, *operands):
    """``values`` as float32: a scalar when every operand is a scalar (the kernel's per-call
    scalars), else an array."""
    out = np.asarray(values, F32)
    return out if any(isinstance(o, np.ndarray) for o in operands) else F32(out)


def _mixed(*operands) -> np.ndarray:
    """A 64-bit hash per element of the operands' float32 bits."""
    h = np.uint64(0x9E3779B97F4A7C15)
    mixed = np.zeros(np.broadcast(*operands).shape, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for x in operands:
            bits = np.broadcast_to(np.asarray(x, F32), mixed.shape).view(np.uint32).astype(np.uint64)
            mixed = (mixed ^ bits) * h
    return mixed


def value_pick(*operands) -> np.ndarray:
    """A pseudo-random choice per element that depends on the operands' values only (as a hardware
    unit's would), so that equal inputs anywhere in any call give equal results."""
    return ((_mixed(*operands) >> np.uint64(40)) & np.uint64(1)).astype(bool)


def value_choice(among: int, *operands) -> np.ndarray:
    """A pseudo-random whole number in [0, among) per element, from the operands' values only."""
    return ((_mixed(*operands) >> np.uint64(33)) % np.uint64(among)).astype(np.int64)


def steps_away(r, steps) -> np.ndarray:
    """Each float32 value of ``r`` moved ``steps`` (a whole number per element, either sign) float32
    neighbours away; infinities, NaN and zeros stay (a zero's neighbours are subnormal)."""
    r = np.asarray(r, F32)
    k = np.broadcast_to(np.asarray(steps, np.int64), r.shape)
    toward = np.where(k > 0, F32(np.inf), F32(-np.inf)).astype(F32)
    out = np.array(r, copy=True)
    movable = np.isfinite(r) & (r != 0)
    for done in range(int(np.abs(k).max(initial=0))):
        out = np.where(movable & (np.abs(k) > done), np.nextafter(out, toward), out)
    return out.astype(F32)


def faithful_sqrt(x) -> np.ndarray:
    """sqrt(x) as a faithful (not correctly rounded) unit may return it: per value, pseudo-randomly,
    the correctly rounded root or its other float32 neighbour around the exact root."""
    xa = np.asarray(x, F32)
    with np.errstate(invalid="ignore"):
        r = np.sqrt(xa)
        r64, x64 = r.astype(np.float64), xa.astype(np.float64)
        other = _toward_exact(r, r64 * r64 < x64, r64 * r64 > x64)
    return shaped_like(np.where(value_pick(xa), other, r), x)


def faithful_quotient(a, b) -> np.ndarray:
    """a / b, per pair of values pseudo-randomly correctly rounded or the other faithful neighbour."""
    with np.errstate(all="ignore"):
        q = np.asarray(np.asarray(a, F32) / np.asarray(b, F32), F32)
        a64 = np.broadcast_to(np.asarray(a, F32), q.shape).astype(np.float64)
        b64 = np.broadcast_to(np.asarray(b, F32), q.shape).astype(np.float64)
        side = (q.astype(np.float64) * b64 - a64) * np.sign(b64)     # < 0: q below the exact quotient
        other = _toward_exact(q, side < 0, side > 0)
    return shaped_like(np.where(value_pick(a, b), other, q), a, b)


def faithful_power(base, exponent) -> np.float32:
    """beta^t one ulp off where the correctly rounded result is inexact: the other faithful neighbour."""
    exact = np.float64(math.pow(float(base), float(exponent)))
    r = F32(exact)
    return F32(_toward_exact(r, np.float64(r) < exact, np.float64(r) > exact))


def fused_multiply_add(a, b, c) -> np.ndarray:
    """a*b + c with one rounding: the float32 product is exact in float64, the sum's float64 rounding
    error (TwoSum) moves a float64 tie off the float32 midpoint in the exact value's direction."""
    with np.errstate(all="ignore"):
        p = np.asarray(a, F32).astype(np.float64) * np.asarray(b, F32).astype(np.float64)
        c64 = np.asarray(c, F32).astype(np.float64)
        s = p + c64
        bp = s - c64
        err = (p - bp) + (c64 - (s - bp))
        s = np.where(err > 0, np.nextafter(s, np.inf), np.where(err < 0, np.nextafter(s, -np.inf), s))
        return shaped_like(s.astype(F32), a, b, c)


def reciprocal_quotient(a, b) -> np.ndarray:
    """a / b as a * (1 / b), each step rounded to float32."""
    with np.errstate(all="ignore"):
        return shaped_like(np.asarray(a, F32) * (F32(1) / np.asarray(b, F32)), a, b)


def torch_sqrt(x) -> np.ndarray:
    """torch's float32 CPU sqrt (vectorized; not correctly rounded on every machine)."""
    import torch
    xa = np.asarray(x, F32)
    return shaped_like(torch.sqrt(torch.from_numpy(xa.reshape(-1).copy())).numpy().reshape(xa.shape), x)
