"""Precision standards of the documented surface's elementwise APIs, one per function class
(spec/surface_values.py), registered into spec/precision.py's STANDARDS.

- ``surface-exact@1`` (exact class: comparisons, bitwise, selections, rounding to integers, casts of
  exactly representable values): every element equal in value; NaN where the oracle has NaN (any
  payload); the sign of a zero judged unless the entry says an IEEE max/min or select may give
  either. Exactness leaves no room for a bias: a shifted element is a failed element.
- ``surface-rounded@2`` (rounded class: add, subtract, multiply, divide, square root and their
  compositions): the ``model_envelope`` comparison of model-bound@2, with the per-element bound the
  oracle derives from the class's model (oracle/surface_functions.py ``evaluate_bound``) and its
  bias check; division, reciprocal and square root within one ulp of the correctly rounded result
  (spec/surface_models.py DIVISION_AND_ROOT). ``surface-rounded@1`` (the same with faithful
  division and square root) stays for the records that name it.

The comparisons are in spec/surface_compare.py, the arithmetic models in spec/surface_models.py;
this module is data only, so that spec/precision.py can register the standards without a cycle.
- ``surface-sum@1`` (the summing reductions, sum and mean): the ``surface_rounded`` comparison with
  the bound of the summation model (spec/surface_models.py SUMMATION): a float32 sum in any order.
- ``surface-product@1`` (products and prefix products): the ``surface_rounded`` comparison with
  the bound of the product model (spec/surface_models.py PRODUCT): float32 products in any order.
- ``surface-tolerance@1`` (transcendental class): the vendor's own accuracy standard for the API and
  output dtype. Where TTK cases of the API give ``precision_tolerances`` for that dtype (the
  smallest over them), an element is right if |a - g| <= atol + rtol*|g|, g the oracle's result in
  the output dtype; every element must be right. Where no TTK number exists, the published
  experimental standard (MERE < T, MARE < 10T, T = fp16 2^-10, bf16 2^-7, fp32 2^-13). In both, a
  faithful result (either output-dtype neighbour of the exact value) is always right: no rounding
  of a correct value can do better. NaN and infinities must sit where the oracle has them.
"""
from __future__ import annotations

from typing import Any

EXACT, ROUNDED, TOLERANCE = "surface-exact@1", "surface-rounded@2", "surface-tolerance@1"
# the summing reductions' standard: the rounded class's comparison with the summation model's bound
SUM = "surface-sum@1"
# the products' standard: the rounded class's comparison with the product model's bound
PRODUCT = "surface-product@1"
# the root-mean-square normalizations' standard: the same comparison with the norm model's bound
NORM = "surface-norm@1"
LAYER_NORM = "surface-layer-norm@1"
CLASS_STANDARD = {"exact": EXACT, "rounded": ROUNDED, "transcendental": TOLERANCE}
# the published experimental standard (notes conformance_anchors.md 4.6), per output dtype
PUBLISHED_T = {"float32": 2.0 ** -13, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
PUBLISHED_SOURCE = ("hicann/opbase docs/zh/ops_precision_standard/experimental_standard.md "
                    "(notes conformance_anchors.md 4.6)")

# the standards as the arguments of spec.precision.Standard (built there: no import back)
SURFACE_STANDARDS: tuple[tuple[Any, ...], ...] = (
    ("surface-exact", "1", "surface_exact",
             "Exact functions (comparisons, bitwise, selections, integer rounding, exact casts): "
             "every element equal in value, NaN where the oracle has NaN, the sign of zero judged "
             "unless the API's entry says an IEEE max/min or select may give either.",
             {}, "issue 21 item 2; spec/standards_surface.py"),
    ("surface-rounded", "1", "surface_rounded",
             "Basic arithmetic correctly rounded in the compute dtype the host code chooses, or in "
             "float32 with one cast at the end; multiply-adds fused or not; division and square root "
             "faithful. Per element within the bound the oracle derives for the call by forward "
             "error analysis of the API's formula in its order (0 for a single correctly rounded "
             "operation: the correctly rounded result itself); fp16/bf16 equal to the cast of the "
             "float32 result, the other neighbour only where the bound reaches its midpoint; the "
             "mean signed error in units of the bound within `bias_share` + `bias_spread`/sqrt(n). "
             "Not judged: elements whose intermediates leave the compute dtype's range (a native "
             "evaluation overflows, a float32 one need not); where the exact result lies beyond the "
             "largest finite value, that value is as faithful as the infinity.",
             {"any": {"bias_share": 0.25, "bias_spread": 2.5}},
             "the rounded class's arithmetic model (spec/surface_models.py)"),
    ("surface-rounded", "2", "surface_rounded",
             "Basic arithmetic correctly rounded in the compute dtype the host code chooses, or in "
             "float32 with one cast at the end; multiply-adds fused or not; division, reciprocal "
             "and square root within 1 ulp of the correctly rounded result, also where the exact "
             "result is representable (the vendor's documented error of its one-instruction Div "
             "and Sqrt). Per element within the bound the oracle derives for the call by forward "
             "error analysis of the API's formula in its order (0 for a single correctly rounded "
             "operation: the correctly rounded result itself; 1 ulp of it for a single division or "
             "root of exact operands); fp16/bf16 equal to the cast of the float32 result, the other "
             "neighbour only where the bound reaches its midpoint; the mean signed error in units of "
             "the bound within `bias_share` + `bias_spread`/sqrt(n). Not judged: elements whose "
             "intermediates leave the compute dtype's range (a native evaluation overflows, a float32 "
             "one need not); where the exact result lies beyond the largest finite value, that value "
             "is as faithful as the infinity.",
             {"any": {"bias_share": 0.25, "bias_spread": 2.5}},
             "the rounded class's arithmetic model (spec/surface_models.py DIVISION_AND_ROOT: "
             "hicann/asc-devkit Div.md, Sqrt.md)"),
    ("surface-sum", "1", "surface_rounded",
             "Sums and means of a reduction's slices under the summation model (spec/surface_models.py "
             "SUMMATION): a float32 accumulator in any order of the terms, fp16/bf16 inputs cast to "
             "float32 and the result cast back once. Per element within gamma_{n-1} sum |x_i| of the "
             "exact sum (gamma_k = k u / (1 - k u), u = 2^-24, n the slice's length); a mean within "
             "that over n plus 3u(1 + u) of |s/n| (the sum times a rounded 1/n, or divided within 1 "
             "ulp); fp16/bf16 outputs the cast of a float32 result inside that envelope; the mean "
             "signed error in units of the bound within `bias_share` + `bias_spread`/sqrt(n). NaN "
             "and infinities where IEEE arithmetic puts them in any order; slices whose magnitudes' "
             "sum leaves float32's range not judged; either sign of a zero sum; integer sums exact.",
             {"any": {"bias_share": 0.25, "bias_spread": 2.5}},
             "the summation model (spec/surface_models.py SUMMATION: hicann/ops-math reduce_sum_dag.h, "
             "reduce_mean_dag.h; Higham, Accuracy and Stability of Numerical Algorithms, eq. 4.6)"),
    ("surface-product", "1", "surface_rounded",
             "Products and prefix products of a reduction's slices under the product model "
             "(spec/surface_models.py PRODUCT): float32 multiplications in any order of the factors, "
             "fp16/bf16 inputs cast to float32 and the result cast back once. Per element within "
             "gamma_{n-1} |P| of the exact product P (gamma_k = k u / (1 - k u), u = 2^-24, n the "
             "number of factors); fp16/bf16 outputs the cast of a float32 result inside that "
             "envelope; the mean signed error in units of the bound within `bias_share` + "
             "`bias_spread`/sqrt(n). NaN, infinities and zeros (with the sign of the product of the "
             "signs) where IEEE arithmetic puts them in every order; not judged where some order's "
             "partial product could leave float32's normal range (the product of the factors above 1 "
             "in magnitude beyond the largest float32, or of those below 1 under the smallest normal); "
             "integer products exact, wrapping.",
             {"any": {"bias_share": 0.25, "bias_spread": 2.5}},
             "the product model (spec/surface_models.py PRODUCT: hicann/ops-math reduce_prod_dag.h; "
             "Higham, Accuracy and Stability of Numerical Algorithms, lemma 3.1)"),
    ("surface-norm", "1", "surface_rounded",
             "Every output of a root-mean-square normalization (y, the reciprocal root, an added "
             "input's sum) under the norm model (spec/surface_models.py NORM_MODEL): the kernels' "
             "float32 steps with the squares summed in any order. Per element within the bound the "
             "oracle derives by forward error analysis (oracle/surface_norms.py norm_bounds); "
             "fp16/bf16 outputs the cast of a float32 result inside it. No bias check: the elements "
             "of one slice share one reciprocal root, so their errors lean alike by construction "
             "(`bias_share` 1). Slices holding NaN or infinities, or whose squares may leave "
             "float32's range, are not judged; either sign of a zero.",
             {"any": {"bias_share": 1.0, "bias_spread": 0.0}},
             "the norm model (spec/surface_models.py NORM_MODEL: hicann/ops-nn rms_norm kernels; "
             "Higham eq. 3.4, 4.6)"),
    ("surface-layer-norm", "1", "surface_rounded",
             "Every output of a layer normalization (y, the mean, the reciprocal root) under the "
             "layer-norm model (spec/surface_models.py LAYER_NORM_MODEL): the kernels' float32 steps, "
             "the mean and the squared deviations from it summed in any order (or Welford's updates). "
             "Per element within the bound the oracle derives by forward error analysis "
             "(oracle/surface_layer_norms.py layer_bounds); fp16/bf16 outputs the cast of a float32 "
             "result inside it. No bias check (`bias_share` 1: a slice's elements share its mean and "
             "reciprocal root). Slices holding NaN or infinities, or whose squared deviations may "
             "leave float32's range, are not judged; either sign of a zero.",
             {"any": {"bias_share": 1.0, "bias_spread": 0.0}},
             "the layer-norm model (spec/surface_models.py LAYER_NORM_MODEL: hicann/ops-nn "
             "layer_norm_v4 kernels; Higham eq. 4.6; Chan, Golub, LeVeque 1983)"),
    ("surface-tolerance", "1", "surface_tolerance",
             "Transcendental functions within the vendor's accuracy standard for the API and output "
             "dtype: TTK's precision_tolerances (rtol, atol; the smallest over the API's cases of that "
             "dtype) on every element, else the published experimental standard (MERE < T, MARE < "
             "10T); a faithful rounding of the exact value always accepted; NaN and Inf where the "
             "oracle has them.",
             {dt: {"T": t} for dt, t in PUBLISHED_T.items()},
             "TTK tests/st/arch35/ttk_*.csv of each API; " + PUBLISHED_SOURCE),
)


def register(standards: dict, make: Any) -> None:
    """Add the surface's standards to a STANDARDS registry (spec/precision.py calls this once with
    its Standard class)."""
    for args in SURFACE_STANDARDS:
        std = make(*args)
        standards.setdefault(f"{std.name}@{std.version}", std)
