"""The arithmetic model of each function class of the elementwise surface (what a correct device
may do), and the standards an API's outputs are judged by (spec/standards_surface.py)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from aclnn_conformance.spec.precision import ArithmeticModel
from aclnn_conformance.spec.standards_surface import CLASS_STANDARD, NORM, PRODUCT, SUM
from aclnn_conformance.spec.standards_surface import LAYER_NORM

ASC_DOCS = "hicann/asc-devkit@93c993b docs/api/SIMD-API/基础API/Memory矢量计算/基础算术/"


@dataclass(frozen=True)
class DivisionAndRoot:
    """How far from the correctly rounded result one product's division, reciprocal and square root
    may land, in ulps of the result, with what the sources say."""
    product: str
    ulps: int
    evidence: str
    sources: tuple[str, ...]


_ASCEND_C_950 = (ASC_DOCS + "Div.md (DivConfig: INTRINSIC and PRECISION_1ULP_*, one instruction, "
                 "max error 1 ulp; DIFF_COMPENSATION and PRECISION_0ULP_*, 0 ulp)",
                 ASC_DOCS + "Sqrt.md (SqrtConfig and its key features: INTRINSIC, the default, "
                 "max error 1 ulp; FAST_INVERSE, 0 ulp)",
                 ASC_DOCS + "Reciprocal.md (ReciprocalConfig: one instruction, PRECISION_1ULP_*)")
_UNDOCUMENTED = ("no document states the error of this product's vector division or square root; "
                 "its Reciprocal instruction is an estimate the vendor says misses the double "
                 "thousandth (half) and ten-thousandth (float) and sends high precision to Div "
                 "(Reciprocal.md), so nothing says these are correctly rounded: the model allows "
                 "both a correctly rounded unit and the 1-ulp unit the vendor documents for the "
                 "same instructions on Ascend 950")

# per product (spec/products.py ids); the rounded class allows the widest, 1 ulp
DIVISION_AND_ROOT: dict[str, DivisionAndRoot] = {d.product: d for d in (
    DivisionAndRoot("ascend950", 1, "Ascend C Div, Sqrt and Reciprocal: the default one-instruction "
                    "algorithm errs by at most 1 ulp, the compensated ones by 0 ulp; a kernel may "
                    "use either. A 0-ulp error can only mean the correctly rounded result, so the "
                    "ulps count from it: at an exact quotient or root a neighbour is allowed too",
                    _ASCEND_C_950),
    *(DivisionAndRoot(p, 1, _UNDOCUMENTED, (ASC_DOCS + "Reciprocal.md (constraints)",
                                            ASC_DOCS + "Div.md (no error stated without config)"))
      for p in ("atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference", "atlas-training")),
)}
ONE_ULP_OPERATIONS = ("division", "reciprocal of a value", "square root")


def _model(function_class: str, order: str, correctly_rounded: tuple[str, ...],
           faithful: tuple[str, ...], may: tuple[str, ...], may_not: tuple[str, ...]) -> ArithmeticModel:
    rounded = function_class == "rounded"
    return ArithmeticModel(
        function_class, "2" if rounded else "1", order=order, correctly_rounded=correctly_rounded,
        faithful=faithful, reciprocal_division=False, fused_multiply_add=rounded,
        final_cast={}, may=may, may_not=may_not,
        source="issue 21 item 2; the API's document (value table entry); spec/standards_surface.py"
               + ("; division and square root: DIVISION_AND_ROOT (" + ASC_DOCS + "Div.md, Sqrt.md)"
                  if rounded else ""),
        within_one_ulp=ONE_ULP_OPERATIONS if rounded else ())


# one model per function class (the ``operator`` field names the class); an operator's record takes
# its class's model through ``arithmetic_model_for``
CLASS_MODELS: dict[str, ArithmeticModel] = {m.operator: m for m in (
    _model("exact", "the document's function, element by element after broadcasting, or a "
                    "reduction's maximum or minimum over each slice of the dims the call names",
           ("none: every result is exactly representable",), (),
           ("any order of evaluation; either zero where the entry says an IEEE max/min or select "
            "may give either",
            "a reduction's slice holding NaN: NaN or the extreme of its other values (not judged: "
            "the documents do not say)"),
           ("any difference in value", "a NaN not propagated", "a subnormal flushed to zero",
            "another output dtype than the host code's", "a reduction over other dims than the call's",
            "an output shape inferred without keepdim")),
    _model("rounded", "the document's formula in its order, operands cast to the compute dtype "
                      "the host code chooses, one cast to the output dtype",
           ("addition", "subtraction", "multiplication", "the final cast (round to nearest even)"),
           (),
           ("compute fp16/bf16 in float32 and cast once at the end",
            "round each operation in the compute dtype instead",
            "fuse any multiply-add of the formula (one rounding), or not",
            "divide, take a reciprocal or a square root within 1 ulp of the correctly rounded "
            "result, also where the exact result is representable (DIVISION_AND_ROOT)",
            "hold a scalar or literal in the compute dtype or in float32"),
           ("another formula or order that changes the mathematics", "round twice at the end",
            "a systematic bias (every element leaning one way)",
            "divide as an estimated reciprocal times the dividend (the vendor's Reciprocal "
            "instruction misses the double thousandth; its Div is one operation)",
            "another promotion or output dtype than the host code's")),
    _model("transcendental", "the document's function; any algorithm",
           (), ("every function: within the vendor's standard for the API and dtype",),
           ("any algorithm whose results meet the vendor's standard for the API and output dtype",
            "compute fp16/bf16 in float32 and cast once"),
           ("errors beyond the vendor's standard", "a NaN or Inf where the function has none, or "
            "none where it has one", "another promotion or output dtype than the host code's")),
)}


# ---- the summation model (the summing reductions: sum, mean) ----

OPS_MATH = "hicann/ops-math@c4193324 "
# the float32 unit roundoff: a float32 accumulator's addition errs by at most u times its result
UNIT_ROUNDOFF = 2.0 ** -24
# the float64 one of the oracle's own sum (its error is added to the bound: the bound stays rigorous)
ORACLE_ROUNDOFF = 2.0 ** -53
SMALLEST_SUBNORMAL32 = 2.0 ** -149
SUMMATION_SOURCES = (
    OPS_MATH + "math/reduce_sum/op_kernel/arch35/reduce_sum_dag.h:31-33 (Cast<PromteT, T> of the "
    "input, ReduceSumOp<PromteT>, one Cast<T, PromteT> back; reduce_sum_apt.cpp:40 PromoteType: "
    "float for half and bfloat16)",
    OPS_MATH + "math/reduce_mean/op_kernel/arch35/reduce_mean_dag.h (the same sum, then Muls by "
    "tilingData.meanVar, reduce_mean_apt.cpp:43: a multiplication by a rounded 1/n)",
    OPS_MATH + "math/reduce_sum/op_api/aclnn_reduce_sum.cpp:290 and math/reduce_mean/op_api/"
    "aclnn_mean.cpp:284 (the input cast to the call's dtype before the kernel, the result cast to "
    "out's after)",
    "N. J. Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., SIAM 2002, eq. (4.6) "
    "and section 4.2: any order of summation of n terms, |computed - exact| <= gamma_{n-1} sum |x_i|, "
    "gamma_k = k u / (1 - k u)")


def gamma(k: np.ndarray | int, u: float = UNIT_ROUNDOFF) -> np.ndarray:
    """gamma_k = k u / (1 - k u) (Higham, section 3.1), k >= 0; infinite where k u >= 1."""
    k = np.asarray(k, np.float64)
    with np.errstate(divide="ignore"):
        return np.where(k * u < 1, k * u / (1 - k * u), np.inf)


def summation_bound(abs_sum: np.ndarray, n: np.ndarray | int) -> np.ndarray:
    """The largest |s - S| of a float32 sum s of n terms in any order (sequential, blocked,
    pairwise) whose exact sum is S and whose magnitudes sum to ``abs_sum``: gamma_{n-1} sum |x_i|,
    plus the oracle's own float64 summation error gamma_n(2^-53) sum |x_i|."""
    n = np.asarray(n, np.float64)
    return (gamma(np.clip(n - 1, 0, None)) + gamma(n, ORACLE_ROUNDOFF)) * np.asarray(abs_sum, np.float64)


def mean_bound(exact_sum: np.ndarray, sum_bound: np.ndarray, n: np.ndarray | int) -> np.ndarray:
    """The largest |m - S/n| of a float32 mean m = the float32 sum s (|s - S| <= ``sum_bound``)
    divided by n: either s * fl(1/n) rounded (the vendor's kernel: two roundings, relative error at
    most 2u + u^2) or s / n within 1 ulp of the correctly rounded quotient (the division model,
    DIVISION_AND_ROOT: at most u + 2u(1 + u) relative), so 3u(1 + u) of |s/n| <= (|S| + E)/n, plus
    three subnormal steps where the quotient leaves the normal range."""
    n = np.clip(np.asarray(n, np.float64), 1.0, None)
    u = UNIT_ROUNDOFF
    quotient = (np.absolute(np.asarray(exact_sum, np.float64)) + sum_bound) / n
    return sum_bound / n + 3 * u * (1 + u) * quotient + 3 * SMALLEST_SUBNORMAL32


SUMMATION = ArithmeticModel(
    "summation", "1",
    order="any order of the slice's terms (sequential, blocked, pairwise, reversed, split across "
          "cores), in a float32 accumulator: fp16 and bf16 inputs cast to float32, summed, the sum "
          "(or mean) cast back once",
    correctly_rounded=("addition in float32", "the casts to float32 and back (round to nearest even)"),
    faithful=(), reciprocal_division=True, fused_multiply_add=False, final_cast={},
    may=("sum in any order or association (per element within gamma_{n-1} sum |x_i| of the exact "
         "sum, u = 2^-24)",
         "a mean as the float32 sum times a rounded 1/n, or divided by n within 1 ulp "
         "(DIVISION_AND_ROOT)",
         "either sign of a zero sum", "overflow in an intermediate sum where the magnitudes' sum "
         "leaves float32's range (such slices are not judged)"),
    may_not=("accumulate fp16 or bf16 in their own dtype", "skip or repeat terms",
             "divide a mean by another count than the slice's", "reduce other dims than the call's",
             "round the sum twice (to the input dtype, then again)"),
    source="; ".join(SUMMATION_SOURCES), within_one_ulp=("the mean's division by n",))


# ---- the product model (the products and prefix products) ----

PRODUCT_SOURCES = (
    OPS_MATH + "math/reduce_prod/op_kernel/arch35/reduce_prod_dag.h:59-68 (Cast<PromteT, T> of the "
    "input, ReduceProdOp<PromteT>, one Cast<T, PromteT> back; reduce_prod_apt.cpp:47-48 PromoteType "
    "from the same GetPromoteType as ReduceSum's: float for half and bfloat16)",
    OPS_MATH + "math/reduce_prod/op_api/aclnn_prod.cpp:159-196 (the input cast to out's dtype, fp16 "
    "into an fp16 result cast to FLOAT first, before the kernel; the result cast to out's after)",
    "N. J. Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., SIAM 2002, lemma 3.1 and "
    "section 3.1: a product of n floating-point factors computed in any order with n - 1 roundings, "
    "none of them leaving the normal range, is (1 + theta_{n-1}) times the exact product, "
    "|theta_{n-1}| <= gamma_{n-1}")
PRODUCT_MODEL = ArithmeticModel(
    "product", "1",
    order="any order or association of the slice's factors (sequential, blocked, pairwise, reversed, "
          "split across cores), each multiplication in float32: fp16 and bf16 inputs cast to float32, "
          "multiplied, the product cast back once",
    correctly_rounded=("multiplication in float32", "the casts to float32 and back (round to nearest even)"),
    faithful=(), reciprocal_division=False, fused_multiply_add=False, final_cast={},
    may=("multiply in any order or association (per element within gamma_{n-1} |P| of the exact "
         "product P, u = 2^-24)",
         "overflow or underflow in an intermediate product where some order's partial product leaves "
         "float32's normal range (such elements are not judged)"),
    may_not=("accumulate fp16 or bf16 products in their own dtype", "skip or repeat factors",
             "reduce other dims than the call's", "give a zero, infinity or NaN of another sign or "
             "place than IEEE arithmetic gives in every order"),
    source="; ".join(PRODUCT_SOURCES), within_one_ulp=())


OPS_NN = "hicann/ops-nn@e5c3fa93 "
# the root-mean-square normalizations (oracle/surface_norms.py): the kernels' float32 steps
NORM_MODEL = ArithmeticModel(
    "rms-normalization", "1",
    order="fp16/bf16 inputs cast to float32; x^2 in float32, summed in any order, times a rounded "
          "1/n (before or after the sum), + epsilon, a square root and a division of 1 by it; y as "
          "(x * rstd) * weight in float32, cast once to the output's dtype",
    correctly_rounded=("multiplication and addition in float32", "the casts (round to nearest even)"),
    faithful=(), reciprocal_division=False, fused_multiply_add=False, final_cast={},
    may=("sum the squares in any order or association (within gamma_{n+3} of the mean with its "
         "products and the rounded 1/n)",
         "take the square root and divide within 1 ulp (DIVISION_AND_ROOT)",
         "hold an added input's sum as its float32 sum or cast to the input's dtype",
         "flush subnormal products and inputs (an absolute error of float32's smallest normal)",
         "either sign of a zero result"),
    may_not=("accumulate the squares in fp16 or bf16", "skip terms of a slice",
             "add epsilon outside the square root", "ignore the weight",
             "write another quantity (the root itself) for the reciprocal root"),
    source="; ".join((
        OPS_NN + "norm/rms_norm/op_kernel/rms_norm.h:191-220 (arch32: Cast to float, Mul x*x, "
        "ReduceSumHalfInterval, 1 / sqrt(sum * avg_factor + epsilon), Muls by rstd, Mul by gamma, "
        "one Cast)",
        OPS_NN + "norm/rms_norm/op_kernel/rms_norm_split_d.h:273-303 (Muls by avg_factor before the "
        "sum; Adds epsilon, Sqrt, Div)",
        OPS_NN + "norm/rms_norm/op_kernel/arch35/rms_norm_regbase_common.h:155-173 (ComputeRstd: "
        "Muls avgFactor, Adds epsilon, Sqrt, Div of 1), 186-205 (gamma + 1 in float32), 256-261",
        SUMMATION_SOURCES[-1])), within_one_ulp=("square root", "division"))


def arithmetic_model_for(key: str, function_class: str, reduction: str | None = None) -> ArithmeticModel:
    """The class's model under an operator's key (an Operator record checks that its model is its
    own); a summing reduction (``reduction`` "sum" or "average") takes the summation model."""
    from dataclasses import replace

    from aclnn_conformance.spec.surface_values import DEVIATION_KINDS, NORM_KINDS, PRODUCT_KINDS, SUMMING_KINDS
    chosen = SUMMATION if reduction in SUMMING_KINDS else PRODUCT_MODEL if reduction in PRODUCT_KINDS \
        else NORM_MODEL if reduction in NORM_KINDS else CLASS_MODELS[function_class]
    chosen = _variance_model() if reduction in DEVIATION_KINDS else chosen
    chosen = _layer_norm_model() if reduction == "layer-normalized" else chosen
    return replace(chosen, operator=key)


def _variance_model() -> ArithmeticModel:
    return VARIANCE     # defined below, with its sources


def standards_for(api_or_key: str) -> dict[str, str]:
    """{output: standard} of an API with a value entry (the ``standards`` of its OpSpec)."""
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(api_or_key)
    if entry.norms and entry.reduction["kind"] == "layer-normalized":   # the layer-norm model's envelope
        return {name: LAYER_NORM for name in entry.outputs}
    if entry.norms:   # every output of a normalization by the norm model's envelope
        return {name: NORM for name in entry.outputs}
    return {name: SUM if entry.sums else PRODUCT if entry.multiplies else CLASS_STANDARD[entry.function_class]
            for name in entry.outputs}


# ---- the variance model (variances and standard deviations: the mean first, then the squared deviations) ----

VARIANCE_SOURCES = (
    OPS_MATH + "math/reduce_var/op_kernel/arch35/reduce_var_twopass.h:28-67 (float32 registers: the "
    "mean as the sum of x times 1/2^k times a rounded 2^k/n, then (x - mean) times varFactor times "
    "(x - mean) summed; Sqrt of that for a standard deviation); reduce_var_welford.h (Welford's "
    "updates for the long slices); op_host/arch35/reduce_var_tiling.cpp:154-160 (varFactor = "
    "1/(n - correction) rounded to float32; correction >= n marks the call invalid)",
    OPS_MATH + "math/reduce_var/op_api/reduce_var.cpp:37-41 (the result in self's dtype) and "
    "math/reduce_var/op_api/aclnn_var.cpp:151 (cast to out's); :206-224 (the other products: "
    "ReduceMean in self's dtype, Expand, ReduceStdV2Update)",
    "T. F. Chan, G. H. Golub, R. J. LeVeque, Algorithms for computing the sample variance: analysis "
    "and recommendations, The American Statistician 37(3), 1983: the two-pass algorithm's error "
    "n u D + n^2 u^2 kappa^2 D and the updating (Welford) algorithm's n kappa u D, kappa = "
    "sqrt(sum x_i^2 / D)")

VARIANCE = ArithmeticModel(
    "variance", "1",
    order="the slice's mean first (a float32 sum in any order, times a rounded 1/n or divided by n; "
          "on the products whose host code takes ReduceMean first, rounded to the input's dtype), "
          "then the squared deviations from it summed in float32 in any order and divided by n - "
          "correction (or each scaled by a rounded 1/(n - correction)); or Welford's updates in "
          "float32; fp16 and bf16 cast to float32, the result cast back once; a standard deviation "
          "the square root of that variance within 1 ulp",
    correctly_rounded=("addition, subtraction and multiplication in float32",
                       "the casts to float32 and back (round to nearest even)"),
    faithful=(), reciprocal_division=True, fused_multiply_add=True, final_cast={},
    may=("sum the mean's and the squares' terms in any order or association",
         "scale each deviation by a rounded 1/(n - correction) before squaring, or divide the sum "
         "within 1 ulp", "update the mean and the sum of squares term by term (Welford) or merge "
         "blocks' partial results (Chan's pairwise updates)",
         "round the mean to the input's dtype before subtracting it",
         "take the square root within 1 ulp (DIVISION_AND_ROOT)"),
    may_not=("divide by another count than n - correction", "ignore the correction",
             "compute E[x^2] - E[x]^2 (cancels where the mean is large against the spread)",
             "accumulate fp16 or bf16 in their own dtype", "reduce other dims than the call's"),
    source="; ".join(VARIANCE_SOURCES), within_one_ulp=("the division by n - correction", "the square root"))


def _layer_norm_model() -> ArithmeticModel:
    return LAYER_NORM_MODEL     # defined below, with its sources


# ---- the layer-norm model (oracle/surface_layer_norms.py): the mean, the squared deviations, the root ----

LAYER_NORM_SOURCES = (
    OPS_NN + "norm/layer_norm_v4/op_kernel/layer_norm_v4_align.h:198-234 (float32: Muls x by the "
    "rounded coefficient 1/n, ReduceSum for the mean, Adds -mean, Mul the deviations, Muls by the "
    "coefficient, ReduceSum for the variance, rstd = 1.0f / sqrt(var + (float)eps), Muls by rstd), "
    "236-260 (gamma cast to float32 and multiplied)",
    OPS_NN + "norm/layer_norm_v4/op_kernel/arch35/layer_norm_v4_welford.h:140-145, 274 (Welford's "
    "updates with rounded reciprocal counts), layer_norm_v4_two_pass.h:215-227 (AscendC::LayerNorm in "
    "float32), layer_norm_v4_two_pass_perf.h:162 and norm/norm_common/op_kernel/"
    "reduce_common_regbase.h:471-514 (ComputeRstdNewtonRaphson: Adds epsilon, Div 1/v, Sqrt, one "
    "Newton step with fused multiply-adds)",
    OPS_NN + "norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp:456-476 (each output Cast once to "
    "its tensor's dtype)",
    "N. J. Higham, Accuracy and Stability of Numerical Algorithms, eq. 4.6; T. F. Chan, G. H. Golub, "
    "R. J. LeVeque, Algorithms for computing the sample variance, 1983 (two-pass and updating errors)")

LAYER_NORM_MODEL = ArithmeticModel(
    "layer-normalization", "1",
    order="fp16/bf16 inputs cast to float32; the mean a float32 sum in any order times a rounded 1/n "
          "(before or after the sum) or Welford's running mean; the squared deviations from that "
          "mean summed in any order and scaled by a rounded 1/n (or Welford's); + epsilon, the "
          "reciprocal root; y = (x - mean) * rstd * weight + bias in float32; each output cast once",
    correctly_rounded=("addition, subtraction and multiplication in float32",
                       "the casts (round to nearest even)"),
    faithful=(), reciprocal_division=True, fused_multiply_add=True, final_cast={},
    may=("sum the mean's and the squared deviations' terms in any order or association",
         "update the mean and the sum of squares term by term (Welford) or merge blocks' partial results",
         "take the reciprocal root within 2 ulp of each of a root and a division (a Newton step)",
         "flush subnormal products and inputs (an absolute error of float32's smallest normal)",
         "either sign of a zero result"),
    may_not=("divide the squared deviations by n - 1", "add epsilon outside the square root",
             "accumulate fp16 or bf16 in their own dtype", "skip terms of a slice",
             "ignore the weight or the bias", "write the root itself for the reciprocal root",
             "compute E[x^2] - E[x]^2 (cancels where the mean is large against the spread)"),
    source="; ".join(LAYER_NORM_SOURCES), within_one_ulp=())
