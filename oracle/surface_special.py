"""The gamma family's special functions in float64, for the value tables' vocabulary
(spec/data/values/functions.json names them): the logarithm of the gamma function's magnitude and
its derivative, the psi function. Nothing here names an API.

float64 suffices: the transcendental class is judged against tolerances of 2^-13 relative and
wider; ``math.lgamma`` (the C library's) errs by a few float64 ulps, and the psi function below by
a few units of 2^-53 of the terms it sums (its recurrence and series are all of one sign past 10).
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

VOCABULARY_FILE = Path(__file__).resolve().parents[1] / "spec" / "data" / "values" / "functions.json"

# the asymptotic series of psi: ln x - 1/(2x) - sum_k B_2k / (2k x^2k), k = 1..7 (Abramowitz and
# Stegun 6.3.18); from x = 10 on its next term is below 5e-17 relative
_PSI_SERIES = (1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12)
_ASYMPTOTIC_FROM = 10.0


@lru_cache(maxsize=None)
def _math_function(role: str) -> Callable[[float], float]:
    """A function of Python's math module by its role (its name is data of the vocabulary,
    ``math_primitives``, as every function name of the value tables is)."""
    names = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))["math_primitives"]
    return getattr(math, names[role])


@lru_cache(maxsize=None)
def _numpy(role: str) -> Callable[..., np.ndarray]:
    """A NumPy function by its role in the vocabulary's ``primitives`` (read here, not through
    oracle/surface_functions.py, which imports this module)."""
    names = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))["primitives"]
    return getattr(np, names[role])


def _scalar_log_gamma(x: float) -> float:
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return math.inf
    if x <= 0 and x == int(x):
        return math.inf   # a pole: |Gamma| grows without bound on either side
    return _math_function("log_gamma")(x)


_log_gamma_elements = np.frompyfunc(_scalar_log_gamma, 1, 1)


def log_gamma(x: np.ndarray) -> np.ndarray:
    """ln |Gamma(x)| in float64 (the C library's lgamma per element; +inf at the poles 0, -1, -2, ...
    and at +-inf, NaN at NaN)."""
    x = np.asarray(x, dtype=np.float64)
    return np.asarray(_log_gamma_elements(x), dtype=np.float64).reshape(x.shape)


def _psi_positive(x: np.ndarray) -> np.ndarray:
    """psi for x > 0: the recurrence psi(x) = psi(x + 1) - 1/x up to 10, then the series."""
    shifted = np.array(x, dtype=np.float64, copy=True)
    steps = np.zeros_like(shifted)
    for _ in range(int(_ASYMPTOTIC_FROM)):
        low = shifted < _ASYMPTOTIC_FROM
        steps = steps + np.where(low, 1.0 / np.where(low, shifted, 1.0), 0.0)
        shifted = np.where(low, shifted + 1.0, shifted)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        inverse_square = 1.0 / (shifted * shifted)
        series = np.zeros_like(shifted)
        for coefficient in reversed(_PSI_SERIES):
            series = (series + coefficient) * inverse_square
        return _numpy("logarithm")(shifted) - 0.5 / shifted - series - steps


def psi(x: np.ndarray) -> np.ndarray:
    """The digamma function d/dx ln Gamma(x) in float64: the recurrence and asymptotic series for
    x > 0, the reflection psi(x) = psi(1 - x) - pi / tan(pi x) below; NaN at the poles 0, -1, -2, ...
    and at -inf (no limit), +inf at +inf."""
    x = np.asarray(x, dtype=np.float64)
    positive = x > 0
    with np.errstate(all="ignore"):
        right = _psi_positive(np.where(positive, x, 1.0))
        reflected = _psi_positive(np.where(positive, 1.0, 1.0 - x)) - np.pi / _numpy("tangent")(np.pi * x)
        pole = (x <= 0) & (x == _numpy("round_down")(x))
        out = np.where(positive, right, np.where(pole, np.nan, reflected))
        out = np.where(x == np.inf, np.inf, out)
    return np.where(np.isnan(x), np.nan, out)
