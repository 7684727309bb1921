"""Calls of aclnnQuantMatmulWeightNz on its MX A8W4 path: a builder of valid calls, the vendor's
table rows and the table of cases.

A valid call is laid out as the document's example chains it after WeightQuantPreprocess: x1
(M, K) FLOAT8_E4M3FN; x2 the FP4 weight's FRACTAL_NZ_C0_32 storage {ceil(K/32), ceil(N/16), 16, 32}
under the view (K, N) with strides (1, K) and transposeX2 false (``x2_layout="wqp"``), or the view
(N, K) contiguous with transposeX2 true (``"nk"``); x1Scale (M, ceil(K/64), 2); x2Scale the view
(ceil(K/64), N, 2) with strides (2, 2*ceil(K/64), 1) over (N, ceil(K/64), 2) (``scale_layout="wqp"``)
or that storage itself (``"nk"``); groupSize 32; out (M, N) BF16 or FP16 filled with a sentinel.
When ceil(K/32) is odd the unused last slot of every scale pair row holds TAIL_SCALE, so that an
implementation reading it shows.

Values (``regime``): ``exact`` (default) keeps every output in the exact regime: activations
multiples of 1/2 in [-8, 8], all 16 FP4 codes, scales 2^-2..2^2, biases multiples of 1/2;
``wide`` draws any finite E4M3 activation and scales 2^-10..2^10, leaving the regime on purpose.
"""
from __future__ import annotations

from typing import Iterator

import ml_dtypes
import numpy as np

from aclnn_conformance.judging.sensitivity import (envelope_rounding_rows, envelope_target)
from aclnn_conformance.oracle.weight_quant_preprocess import to_fractal_nz_c0_32
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.mx_a8w4_layout import nz_storage_shape, scale_rows
from aclnn_conformance.spec.quant_matmul_weight_nz import GROUP_SIZE, GROUP_SIZE_111, OP
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc, ceil_div

OUT_DTYPES = {"bfloat16": DT.BF16, "float16": DT.FLOAT16}
OUT_SENTINEL = 1234.0
TAIL_SCALE = 0x85                     # 2**6 in the unused slot: reading it changes the result
EXACT_SCALES = (125, 130)             # E8M0 codes 2**-2 .. 2**2
WIDE_SCALES = (117, 138)
E4M3_HALVES = np.arange(-16, 17) / 2  # multiples of 1/2 in [-8, 8]: all exact in E4M3FN
BASE_VALUE_RULES = ("QMMNZ-VAL-001", "QMMNZ-VAL-003", "QMMNZ-VAL-004", "QMMNZ-VAL-011")


def e4m3_codes(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)


def _draw_x(rng: np.random.Generator, m: int, k: int, regime: str) -> np.ndarray:
    if regime == "exact":
        return e4m3_codes(rng.choice(E4M3_HALVES, (m, k)))
    codes = rng.integers(0, 256, (m, k), dtype=np.uint8)
    codes[(codes & 0x7F) == 0x7F] = 0x38        # no NaN: 1.0 instead
    return codes


def _scale_pairs(rng: np.random.Generator, rows: int, k: int, regime: str) -> np.ndarray:
    """(rows, ceil(K/64), 2) E8M0 codes, the unused tail slot (odd ceil(K/32)) set to TAIL_SCALE."""
    lo, hi = EXACT_SCALES if regime == "exact" else WIDE_SCALES
    pairs = rng.integers(lo, hi, (rows, scale_rows(k), 2), dtype=np.uint8)
    if ceil_div(k, 32) % 2:
        pairs[:, -1, 1] = TAIL_SCALE
    return pairs


def _codes_arg(codes: np.ndarray, dtype: DT, desc: TensorDesc, fill: int = 0) -> TensorArg:
    raw = np.full(max(desc.extent(), desc.storage_numel), fill, dtype=np.uint8)
    arg = TensorArg(desc, raw.view(numpy_dtype(dtype)))
    arg.view_of(raw)[...] = np.asarray(codes, dtype=np.uint8).reshape(desc.shape)
    return arg


def x2_arg(weight: np.ndarray, layout: str = "wqp") -> TensorArg:
    """The NZ weight tensor of (K, N) FP4 codes ``weight``, described as ``layout`` says."""
    k, n = weight.shape
    nz = to_fractal_nz_c0_32(np.asarray(weight, dtype=np.uint8)).reshape(-1)
    if layout == "wqp":
        view, strides = (k, n), (1, k)
    elif layout == "nk":
        view, strides = (n, k), (k, 1)
    else:
        raise ValueError(f"x2 layout {layout!r}; valid: wqp, nk")
    desc = TensorDesc(DT.FLOAT4_E2M1, view, strides, 0, F.FRACTAL_NZ_C0_32, nz_storage_shape(k, n))
    return TensorArg(desc, nz.copy().view(ml_dtypes.float4_e2m1fn))


def x2_scale_arg(pairs_nk2: np.ndarray, layout: str = "wqp") -> TensorArg:
    """x2Scale from its (N, ceil(K/64), 2) storage codes, viewed as WQP returns it or as stored."""
    n, kb, _ = pairs_nk2.shape
    storage = np.ascontiguousarray(pairs_nk2, dtype=np.uint8).reshape(-1)
    if layout == "wqp":
        desc = TensorDesc(DT.FLOAT8_E8M0, (kb, n, 2), (2, 2 * kb, 1), 0, F.ND, (n, kb, 2))
    elif layout == "nk":
        desc = TensorDesc.contiguous((n, kb, 2), DT.FLOAT8_E8M0)
    else:
        raise ValueError(f"scale layout {layout!r}; valid: wqp, nk")
    return TensorArg(desc, storage.view(ml_dtypes.float8_e8m0fnu))


def out_arg(m: int, n: int, dtype: DT) -> TensorArg:
    return TensorArg.from_array(np.full((m, n), OUT_SENTINEL), dtype)


def make_call(case_id: str, m: int = 16, k: int = 64, n: int = 32, seed: int = 0,
              out_dtype: str = "bfloat16", bias: str | None = None, regime: str = "exact",
              x2_layout: str = "wqp", scale_layout: str = "wqp", group_size: int = GROUP_SIZE,
              x=None, weight=None, x_scale=None, w_scale=None, bias_values=None,
              rule_ids: tuple[str, ...] = (), origin: str = "table", note: str = "") -> Case:
    """A valid call. ``x``: (M, K) E4M3 codes; ``weight``: (K, N) FP4 codes; ``x_scale``:
    (M, ceil(K/64), 2) and ``w_scale``: (N, ceil(K/64), 2) E8M0 codes; ``bias``: its dtype name
    (``bias_values`` (N,) or drawn); all drawn from ``seed`` when None."""
    rng = np.random.default_rng(seed)
    x = _draw_x(rng, m, k, regime) if x is None else np.asarray(x, dtype=np.uint8)
    weight = rng.integers(0, 16, (k, n), dtype=np.uint8) if weight is None else np.asarray(weight, np.uint8)
    x_scale = _scale_pairs(rng, m, k, regime) if x_scale is None else np.asarray(x_scale, np.uint8)
    w_scale = _scale_pairs(rng, n, k, regime) if w_scale is None else np.asarray(w_scale, np.uint8)
    out_dt = OUT_DTYPES[out_dtype]
    tensors: dict[str, TensorArg | None] = {
        "x1": _codes_arg(x, DT.FLOAT8_E4M3FN, TensorDesc.contiguous((m, k), DT.FLOAT8_E4M3FN)),
        "x2": x2_arg(weight, x2_layout),
        "x1Scale": _codes_arg(x_scale, DT.FLOAT8_E8M0, TensorDesc.contiguous(x_scale.shape, DT.FLOAT8_E8M0)),
        "x2Scale": x2_scale_arg(w_scale, scale_layout),
        "yScale": None, "x1Offset": None, "x2Offset": None, "yOffset": None, "bias": None,
        "out": out_arg(m, n, out_dt)}
    if bias is not None:
        if bias_values is None:
            bias_values = rng.integers(-128, 129, n) / 2.0
        tensors["bias"] = TensorArg.from_array(np.asarray(bias_values).reshape(1, n), OUT_DTYPES[bias])
    rules = BASE_VALUE_RULES
    rules += ("QMMNZ-VAL-006",) if x2_layout == "wqp" else ()
    rules += ("QMMNZ-VAL-007",) if scale_layout == "wqp" else ()
    rules += ("QMMNZ-VAL-005",) if bias == "float16" else ()
    rules += ("QMMNZ-VAL-002",) if regime != "exact" else ()
    attrs = {"transposeX1": False, "transposeX2": x2_layout == "nk", "groupSize": int(group_size)}
    return Case(op=OP, case_id=case_id, tensors=tensors, attrs=attrs,
                rule_ids=tuple(dict.fromkeys(rules + tuple(rule_ids))), origin=origin, seed=seed,
                note=note)


def base_call() -> Case:
    return make_call("base", m=5, k=64, n=128, bias="bfloat16")


def odd_blocks_call() -> Case:
    """ceil(K/32) odd: the unused scale slot is present."""
    return make_call("base-odd", m=8, k=96, n=32, out_dtype="float16", bias="float16")


FAULT_BASES = {"": base_call, "odd": odd_blocks_call}


def with_desc(case: Case, name: str, **changes) -> Case:
    return case.with_tensor(name, case.tensor(name).with_desc(**changes))


def recast(arg: TensorArg, dtype: DT) -> TensorArg:
    """The same buffer under another one-byte dtype (bytes reinterpreted), or converted."""
    target = numpy_dtype(dtype)
    if target.itemsize == arg.storage.dtype.itemsize:
        return TensorArg(arg.desc.with_(dtype=DT(dtype)), arg.storage.view(target))
    return arg.with_desc(dtype=DT(dtype))


def doc_example() -> Case:
    """The document's WeightQuantPreprocess -> QuantMatmulWeightNz example: m 5, k 64, n 128,
    x1 = 1.0, w = 1.0, x1Scale 2^0, weightScale 0x85 (2^6): every output 64 * 64 = 4096."""
    m, k, n = 5, 64, 128
    return make_call("doc-example", m=m, k=k, n=n, x=np.full((m, k), 0x38, np.uint8),
                     weight=np.full((k, n), 2, np.uint8), x_scale=np.full((m, 1, 2), 0x7F, np.uint8),
                     w_scale=np.full((n, 1, 2), 0x85, np.uint8),
                     note="document example: every element 4096.0")


# The vendor's MX A8W4 shapes (M, N, K): TTK kernel csv (NZ x2) and the V5 csv (same arithmetic).
VENDOR_SHAPES = {"ttk-10x64x384": (10, 64, 384, None), "v5-mx-basic-128x256x384": (128, 256, 384, None),
                 "v5-mx-bias-128x256x384": (128, 256, 384, "bfloat16"),
                 "ttk-400x448x448": (400, 448, 448, None), "ttk-184x192x3136": (184, 192, 3136, None),
                 "ttk-224x256x20992-bias": (224, 256, 20992, "bfloat16"),
                 "ttk-608x1024x704": (608, 1024, 704, None)}
CI_VENDOR = ("ttk-10x64x384", "v5-mx-basic-128x256x384", "v5-mx-bias-128x256x384")


def table_cases(tier: str = "ci") -> Iterator[Case]:
    yield doc_example()
    for name, (m, n, k, bias) in VENDOR_SHAPES.items():
        if tier == "ci" and name not in CI_VENDOR:
            continue
        yield make_call(f"vendor-{name}", m=m, k=k, n=n, bias=bias, seed=len(name),
                        note="vendor test shape; exact-regime values")
    yield make_call("ttk-608x1024x704-scales-127-130", m=16, k=704, n=64, seed=3,
                    x_scale=np.random.default_rng(1).integers(127, 130, (16, 11, 2), dtype=np.uint8),
                    w_scale=np.random.default_rng(2).integers(127, 130, (64, 11, 2), dtype=np.uint8),
                    note="TTK's scale range (127, 130)")
    # K and N at their alignment limits; odd and even ceil(K/32)
    for k, n in ((8, 8), (8, 16), (16, 24), (40, 8), (96, 32), (72, 40), (160, 48), (256, 8)):
        yield make_call(f"k{k}-n{n}", m=3, k=k, n=n, seed=k + n,
                        note=f"ceil(K/32) = {ceil_div(k, 32)}, ceil(N/16) = {ceil_div(n, 16)}")
    for out_dtype in OUT_DTYPES:
        yield make_call(f"bias-{out_dtype}", m=4, k=96, n=16, bias=out_dtype, out_dtype=out_dtype,
                        seed=7)
        yield make_call(f"no-bias-{out_dtype}", m=4, k=128, n=16, out_dtype=out_dtype, seed=8)
    yield make_call("fp16-bias-below-2^-8", m=2, k=32, n=8, out_dtype="float16", bias="float16",
                    x=np.zeros((2, 32), np.uint8),
                    bias_values=np.array([2.0 ** -10 + 2.0 ** -20, 3e-4, -3e-4, 2.0 ** -9, 2.0 ** -14,
                                          -2.0 ** -12, 1.0, 0.0]),
                    rule_ids=("QMMNZ-PRE-004",),
                    note="the kernel's fp16 prescale by 1/64 rounds these biases (x = 0)")
    yield make_call("fp16-bias-prescale-with-sum", m=4, k=64, n=16, out_dtype="float16",
                    bias="float16", bias_values=np.linspace(-3e-3, 3e-3, 16), seed=9)
    yield make_call("layout-nk", m=4, k=96, n=32, x2_layout="nk", scale_layout="nk", seed=11,
                    note="x2 (n, k) contiguous, transposeX2 true; x2Scale stored as read")
    yield make_call("layout-nk-scale-wqp", m=4, k=96, n=32, x2_layout="nk", seed=11)
    yield make_call("group-size-1-1-32", m=4, k=64, n=16, group_size=GROUP_SIZE_111, seed=12)
    yield make_call("m1", m=1, k=64, n=16, seed=13)
    # outside the exact regime, on purpose: judged by the model's bound
    yield make_call("wide-k256", m=8, k=256, n=16, regime="wide", seed=14)
    yield make_call("wide-k1024-bias", m=4, k=1024, n=16, regime="wide", bias="bfloat16", seed=15)
    big = e4m3_codes(np.array([448.0]))[0]
    one = e4m3_codes(np.array([1.0]))[0]
    x = np.zeros((1, 96), np.uint8)
    x[0, 0], x[0, 32], x[0, 64] = big, one, big | 0x80
    w = np.zeros((96, 8), np.uint8)
    w[[0, 32, 64], :] = 2
    xs = np.array([[[127 + 20, 127], [127 + 20, TAIL_SCALE]]], np.uint8)
    yield make_call("cancellation-k96", m=1, k=96, n=8, x=x, weight=w, x_scale=xs,
                    w_scale=np.full((8, 2, 2), 127, np.uint8), regime="wide",
                    note="+448*2^20, +1, -448*2^20 in three blocks: exact 1, float32 in order 0")
    yield from ut_cases()
    yield from edge_cases()
    yield from defect_cases()
    yield from out_of_domain_cases()


def defect_cases() -> Iterator[Case]:
    """Calls that each exercise one defect class in another dtype, shape or layout than the
    cases above, so that at least three single calls fail each (tests/test_mutants.py)."""
    for i, (m, k, n, out_dtype) in enumerate(((3, 64, 16, "bfloat16"), (2, 96, 32, "float16"))):
        case = make_call(f"x1-e5m2-{m}x{k}x{n}-{out_dtype}", m=m, k=k, n=n, out_dtype=out_dtype,
                         seed=50 + i)
        yield case.with_tensor("x1", recast(case.tensor("x1"), DT.FLOAT8_E5M2)).with_(
            rule_ids=("QMMNZ-PATH-001",), note="E5M2 activations with an FP4 weight: no path")
    for i, (k, n) in enumerate(((96, 32), (128, 48))):
        case = make_call(f"x2-storage-dims-other-k{k}-n{n}", m=3, k=k, n=n, seed=52 + i)
        k1, n1 = ceil_div(k, 32), ceil_div(n, 16)
        yield with_desc(case, "x2", storage_shape=(k1 * n1, 16, 32)).with_(
            rule_ids=case.rule_ids + ("QMMNZ-VAL-009",),
            note=f"x2 storage ({k1 * n1}, 16, 32): the element count of ({k1}, {n1}, 16, 32)")
    tiny = np.array([2.0 ** -10 + 2.0 ** -20, 3e-4, -3e-4, 2.0 ** -9, 2.0 ** -14, -2.0 ** -12, 1e-3,
                     -7e-4, 2.0 ** -11 + 2.0 ** -21, 5e-5, -5e-5, 2.0 ** -13, 0.25, -1.0, 1.5e-4, 0.0])
    yield make_call("fp16-bias-below-2^-8-m3-k64", m=3, k=64, n=16, out_dtype="float16",
                    bias="float16", bias_values=tiny, x=np.zeros((3, 64), np.uint8), seed=54,
                    rule_ids=("QMMNZ-PRE-004",), note="x = 0: out is the prescaled bias alone")
    yield make_call("fp16-bias-below-2^-8-nk-k96", m=2, k=96, n=16, out_dtype="float16",
                    bias="float16", bias_values=tiny[::-1], x=np.zeros((2, 96), np.uint8),
                    x2_layout="nk", scale_layout="nk", seed=55, rule_ids=("QMMNZ-PRE-004",),
                    note="x = 0, x2 (n, k): out is the prescaled bias alone")


def edge_cases() -> Iterator[Case]:
    base = make_call("edge", m=4, k=64, n=16, seed=21)
    x2o = TensorArg.from_array(np.ones(16), DT.FLOAT)
    yield base.with_tensor("x2Offset", x2o).with_(
        case_id="x2offset-ignored", rule_ids=base.rule_ids + ("QMMNZ-VAL-008",))
    k1 = ceil_div(64, 32)
    yield with_desc(base, "x2", storage_shape=(k1 * 1, 16, 32)).with_(
        case_id="x2-storage-dims-other", rule_ids=base.rule_ids + ("QMMNZ-VAL-009",),
        note="x2 storage (2, 16, 32): the element count of (2, 1, 16, 32)")
    yield with_desc(base, "x1", format=F.NCL).with_(
        case_id="x1-format-ncl", rule_ids=base.rule_ids + ("QMMNZ-VAL-010",))
    yield with_desc(base, "x2Scale", format=F.NCHW).with_(
        case_id="x2scale-format-nchw", rule_ids=base.rule_ids + ("QMMNZ-VAL-010",))
    nan = base.tensor("x2Scale").copy()
    nan.storage.view(np.uint8)[0] = 0xFF
    yield base.with_tensor("x2Scale", nan).with_(case_id="nan-scale", rule_ids=("QMMNZ-PRE-001",))
    yield make_call("fp16-overflow", m=2, k=64, n=8, out_dtype="float16",
                    x=e4m3_codes(np.full((2, 64), 448.0)), weight=np.full((64, 8), 7, np.uint8),
                    x_scale=np.full((2, 1, 2), 127 + 4, np.uint8),
                    w_scale=np.full((8, 1, 2), 127 + 4, np.uint8), rule_ids=("QMMNZ-PRE-002",))
    x1 = base.tensor("x1")
    shifted = TensorArg.strided(x1.values().astype(np.float32), DT.FLOAT8_E4M3FN, (64, 1), offset=8)
    yield base.with_tensor("x1", shifted).with_(case_id="x1-view-offset", rule_ids=("QMMNZ-PRE-003",))


def out_of_domain_cases() -> Iterator[Case]:
    """Calls this spec does not cover: reported NOT_COVERED on every product."""
    base = make_call("ood", m=4, k=64, n=16, seed=31)
    yield base.with_tensor("x1", recast(base.tensor("x1"), DT.INT8)).with_tensor(
        "x2", recast(base.tensor("x2"), DT.INT8)).with_(case_id="ood-int8-int8", rule_ids=("QMMNZ-DOMAIN-002",))
    yield base.with_tensor("x1", recast(base.tensor("x1"), DT.HIFLOAT8)).with_(
        case_id="ood-hifloat8-x1", rule_ids=("QMMNZ-DOMAIN-002",))
    scale = TensorArg.from_array(np.ones((2, 16)), DT.BF16)
    yield base.with_tensor("x1Scale", None).with_tensor("x2Scale", scale).with_(
        case_id="ood-t-cg", rule_ids=("QMMNZ-DOMAIN-003",))


def ut_cases() -> Iterator[Case]:
    """The MX A8W4 rows of the vendor's WeightNz unit-test csv (x2 FP4 in NZ)."""
    yield make_call("ut-mxa8w4-bias-fp16", m=16, k=64, n=32, out_dtype="float16", bias="float16",
                    seed=41, note="ascend950_test_mxa8w4_bias_fp16: SUCCESS")
    case = make_call("ut-mxa8w4-bias-fp16-out-bf16", m=16, k=64, n=32, out_dtype="bfloat16", seed=42)
    bias = TensorArg.from_array(np.ones((1, 32)), DT.FLOAT16)
    yield case.with_tensor("bias", bias).with_(rule_ids=("QMMNZ-DTYPE-002",),
                                               note="ascend950_test_mxa8w4_bias_fp16_out_bf16: 161002")


# ---- sensitivity: realistic outputs for the sensitivity tables (reports/sensitivity.py) ----

def sensitivity_targets() -> tuple[list[dict], list[dict]]:
    """(targets, rounding rows): out of the wide-range case (outside the exact regime) and of an
    fp16 case inside it, under model-bound@3; the wide case's out cast otherwise."""
    cases = list(table_cases("ci"))
    targets = [envelope_target(cases, c, "ascend950", "out")
               for c in ("wide-k256", "fp16-bias-prescale-with-sum")]
    return targets, envelope_rounding_rows(cases, "wide-k256", "out", ("ascend950",))
