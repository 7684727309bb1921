"""The geometry of MX A8W4 weights, shared by the operators that produce and consume them.

An FP4 E2M1 weight of view {[G,] K, N} is stored transposed ({[G,] N, K}, K contiguous); its
FRACTAL_NZ_C0_32 form tiles that storage into fractals of 16 N rows by 32 K elements; its E8M0
scales hold one value per 32 K elements, in pairs ({[G,] ceil(K/64), N, 2} viewed, {[G,] N,
ceil(K/64), 2} stored). Shapes are in elements; ``g`` is None for a single matrix.
"""
from __future__ import annotations

from aclnn_conformance.spec.tensor import ceil_div

C0 = 32                 # FP4 elements along K in one NZ row (FRACTAL_NZ_C0_32)
N0 = 16                 # rows (N) of one fractal
SCALE_K = 64            # K elements per weightScale row (two MX blocks of 32)


def scale_rows(k: int) -> int:
    """ceil(K/64): rows of the MX scale (each holds the scales of two 32-element K blocks)."""
    return ceil_div(k, SCALE_K)


def weight_view_shape(k: int, n: int, g: int | None = None) -> tuple[int, ...]:
    return (k, n) if g is None else (g, k, n)


def weight_strides(k: int, n: int, g: int | None = None) -> tuple[int, ...]:
    """The documented transposed strides: [1, K] / [K*N, 1, K]."""
    return (1, k) if g is None else (k * n, 1, k)


def weight_storage_shape(k: int, n: int, g: int | None = None) -> tuple[int, ...]:
    return (n, k) if g is None else (g, n, k)


def scale_view_shape(k: int, n: int, g: int | None = None) -> tuple[int, ...]:
    base = (scale_rows(k), n, 2)
    return base if g is None else (g,) + base


def scale_strides(k: int, n: int, g: int | None = None) -> tuple[int, ...]:
    """The documented strides: [2, 2*ceil(K/64), 1] / [2*ceil(K/64)*N, 2, 2*ceil(K/64), 1]."""
    kb = scale_rows(k)
    return (2, 2 * kb, 1) if g is None else (2 * kb * n, 2, 2 * kb, 1)


def scale_storage_shape(k: int, n: int, g: int | None = None) -> tuple[int, ...]:
    base = (n, scale_rows(k), 2)
    return base if g is None else (g,) + base


def nz_storage_shape(k: int, n: int, g: int | None = None) -> tuple[int, ...]:
    """outWeight storage (elements): [G,] ceil(K/32), ceil(N/16), 16, 32."""
    base = (ceil_div(k, C0), ceil_div(n, N0), N0, C0)
    return base if g is None else (g,) + base
