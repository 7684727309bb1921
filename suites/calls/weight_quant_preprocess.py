"""Calls of aclnnWeightQuantPreprocess: a builder of valid calls, the vendor's unit-test calls and the
table of cases.

A valid call is laid out exactly as the document's example: the FP4 weight view {K, N} with strides
{1, K} over a {N, K} storage (GMM: {G, K, N}, strides {K*N, 1, K}, storage {G, N, K}); the E8M0
weightScale view {ceil(K/64), N, 2} with strides {2, 2*ceil(K/64), 1} over {N, ceil(K/64), 2}; the
outWeight view equal to the weight's, format FRACTAL_NZ_C0_32, storage
{[G,] ceil(K/32), ceil(N/16), 16, 32}. Output storages start filled with sentinels (FP4 code 7 for
outWeight, so that unwritten padding shows) and outWeight's storage array carries guard elements
past its storage so that writes beyond it show.
"""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc, contiguous_strides
from aclnn_conformance.spec.mx_a8w4_layout import (
    nz_storage_shape, scale_storage_shape, scale_strides, scale_view_shape,
    weight_storage_shape, weight_strides, weight_view_shape)
from aclnn_conformance.spec.weight_quant_preprocess import OP, X_DTYPE, X_SCALE_DTYPE

BIAS_DTYPES = {"float16": DT.FLOAT16, "bfloat16": DT.BF16}
BIAS_SHAPES = ("n", "1n", "gn")
def recast(arg: TensorArg, dtype: DT) -> TensorArg:
    """The same buffer under another dtype: the bytes reinterpreted when the element widths agree,
    converted through float32 otherwise."""
    target = numpy_dtype(dtype)
    if target.itemsize == arg.storage.dtype.itemsize:
        return TensorArg(arg.desc.with_(dtype=DT(dtype)), arg.storage.view(target))
    return arg.with_desc(dtype=DT(dtype))


DEFAULT_ATTRS = {"xDtype": X_DTYPE, "xScaleDtype": X_SCALE_DTYPE, "kGroupSize": 32}

OUT_WEIGHT_SENTINEL = 7          # FP4 code 7 (6.0): padding left unwritten shows as non-zero
OUT_SCALE_SENTINEL = 0x01        # E8M0 code outside the drawn scale range
OUT_BIAS_SENTINEL = -999.0
GUARD = 64                       # elements of outWeight's storage array past its NZ storage
SCALE_CODES = (118, 137)         # E8M0 codes drawn for weightScale: 2**-9 .. 2**9
VALUE_RULES = ("WQP-VAL-001", "WQP-VAL-002", "WQP-VAL-003", "WQP-VAL-005", "WQP-VAL-007")


def _codes_arg(codes: np.ndarray, dtype: DT, shape, strides, storage_shape, fmt: F = F.ND,
               fill: int = 0, extra: int = 0, offset: int = 0) -> TensorArg:
    """A one-byte-element tensor whose view holds ``codes`` (uint8 bit patterns) at ``strides``;
    the rest of its storage array (at least the storage shape, plus ``extra``) holds ``fill``."""
    desc = TensorDesc(dtype, tuple(shape), tuple(strides), offset, fmt, tuple(storage_shape))
    size = max(desc.extent(), desc.storage_numel) + extra
    raw = np.full(size, fill, dtype=np.uint8)
    arg = TensorArg(desc, raw.view(numpy_dtype(dtype)))
    arg.view_of(raw)[...] = np.asarray(codes, dtype=np.uint8).reshape(desc.shape)
    return arg


def _bias_shape(kind: str, g: int | None, n: int) -> tuple[int, ...]:
    if kind == "n":
        return (n,)
    if kind == "1n":
        return (1, n)
    if kind == "gn":
        return (g or 1, n)
    raise ValueError(f"bias shape {kind!r}; valid: {', '.join(BIAS_SHAPES)}")


def make_call(case_id: str, g: int | None = None, k: int = 64, n: int = 128, seed: int = 0,
              bias: str | None = None, bias_dtype: str = "float16", out_bias: bool | None = None,
              weight=None, scale=None, out_weight_strides: str = "contiguous",
              scale_layout: str = "doc", out_scale_layout: str | None = None,
              scale_format: F = F.ND, out_scale_format: F | None = None,
              rule_ids: tuple[str, ...] = (), origin: str = "table", note: str = "",
              **attrs) -> Case:
    """A valid call (cann profile) as the document's example builds it.

    ``weight``: the logical FP4 codes {[G,] K, N} (uint8 0..15), drawn from ``seed`` when None;
    ``scale``: the E8M0 codes of the weightScale view. ``out_weight_strides``: ``contiguous``
    (nullptr, as the example) or ``transposed`` ({1, K}). ``scale_layout``/``out_scale_layout``:
    ``doc`` (the documented strides) or ``spread`` (every documented stride doubled: the code's
    transposition check still holds). ``out_bias``: whether outBias is given (default: with a bias).
    """
    rng = np.random.default_rng(seed)
    view = weight_view_shape(k, n, g)
    if weight is None:
        weight = rng.integers(0, 16, view, dtype=np.uint8)
    weight = np.asarray(weight, dtype=np.uint8).reshape(view)
    w_strides = weight_strides(k, n, g)
    tensors: dict[str, TensorArg | None] = {
        "weight": _codes_arg(weight, DT.FLOAT4_E2M1, view, w_strides, weight_storage_shape(k, n, g))}

    s_view = scale_view_shape(k, n, g)
    if scale is None:
        scale = rng.integers(SCALE_CODES[0], SCALE_CODES[1], s_view, dtype=np.uint8)

    def scale_strides_for(layout: str) -> tuple[int, ...]:
        base = scale_strides(k, n, g)
        if layout == "doc":
            return base
        if layout == "spread":
            return tuple(2 * s for s in base)
        raise ValueError(f"scale layout {layout!r}; valid: doc, spread")

    s_storage = scale_storage_shape(k, n, g)
    tensors["weightScale"] = _codes_arg(scale, DT.FLOAT8_E8M0, s_view, scale_strides_for(scale_layout),
                                        s_storage, scale_format, fill=0x7F)
    tensors["weightOffsetOptional"] = None
    bias_arg = None
    if bias is not None:
        shape = _bias_shape(bias, g, n)
        bias_arg = TensorArg.from_array(rng.standard_normal(shape) * 4, BIAS_DTYPES[bias_dtype])
    tensors["biasOptional"] = bias_arg

    nz = nz_storage_shape(k, n, g)
    ow_strides = contiguous_strides(view) if out_weight_strides == "contiguous" else w_strides
    if out_weight_strides not in ("contiguous", "transposed"):
        raise ValueError(f"outWeight strides {out_weight_strides!r}; valid: contiguous, transposed")
    ow_desc = TensorDesc(DT.FLOAT4_E2M1, view, ow_strides, 0, F.FRACTAL_NZ_C0_32, nz)
    raw = np.full(max(math.prod(nz), ow_desc.extent()) + GUARD, OUT_WEIGHT_SENTINEL, np.uint8)
    tensors["outWeight"] = TensorArg(ow_desc, raw.view(numpy_dtype(DT.FLOAT4_E2M1)))
    os_layout = scale_layout if out_scale_layout is None else out_scale_layout
    os_desc = TensorDesc(DT.FLOAT8_E8M0, s_view, scale_strides_for(os_layout), 0,
                         scale_format if out_scale_format is None else out_scale_format, s_storage)
    raw = np.full(max(os_desc.extent(), os_desc.storage_numel), OUT_SCALE_SENTINEL, np.uint8)
    tensors["outWeightScale"] = TensorArg(os_desc, raw.view(numpy_dtype(DT.FLOAT8_E8M0)))
    tensors["outWeightOffsetOptional"] = None
    out_bias = bias is not None if out_bias is None else out_bias
    out_bias_arg = None
    if out_bias:
        shape = _bias_shape(bias or ("n" if g is None else "gn"), g, n)
        dtype = BIAS_DTYPES[bias_dtype]
        out_bias_arg = TensorArg.from_array(np.full(shape, OUT_BIAS_SENTINEL), dtype)
    tensors["outBiasOptional"] = out_bias_arg

    value_rules = VALUE_RULES + (("WQP-VAL-006",) if bias is not None else ())
    if k % 32 and k % 2 == 0:
        value_rules += ("WQP-VAL-004",)
    return Case(op=OP, case_id=case_id, tensors=tensors, attrs={**DEFAULT_ATTRS, **attrs},
                rule_ids=value_rules + tuple(r for r in rule_ids if r not in value_rules),
                origin=origin, seed=seed, note=note)


def base_call() -> Case:
    """The valid MM call that one-fault cases start from: the document's {64, 128}, with a bias (N)."""
    return make_call("base", k=64, n=128, seed=1, bias="n")


def gmm_base_call() -> Case:
    """The valid GMM call that GMM-only faults start from: {2, 64, 128}, with a bias (G, N)."""
    return make_call("gmm-base", g=2, k=64, n=128, seed=2, bias="gn")


FAULT_BASES = {"": base_call, "gmm": gmm_base_call}


# ---- the vendor's unit-test calls (notes section 3, UT paragraph) ----

def _ut(case_id: str, case: Case, note: str, valid: bool = False) -> Case:
    """A unit-test call; an invalid one names no value rule (its deciding rule is derived)."""
    return case.with_(case_id=f"ut-{case_id}", origin="table", note=f"vendor unit test: {note}",
                      rule_ids=case.rule_ids if valid else ())


def _mm() -> Case:
    """The unit test's MM call: weight {64, 128} strides {1, 64}, scale {1, 128, 2} strides {2, 2, 1}."""
    return make_call("ut-mm", k=64, n=128, seed=101)


def _gmm() -> Case:
    """The unit test's GMM call: {2, 64, 128} strides {8192, 1, 64}, scale {2, 1, 128, 2} strides
    {256, 2, 2, 1}."""
    return make_call("ut-gmm", g=2, k=64, n=128, seed=102)


def _desc_change(case: Case, name: str, **changes) -> Case:
    return case.with_tensor(name, case.tensor(name).with_desc(**changes))


def _bias_of(case: Case, shape, dtype: DT = DT.FLOAT16, fmt: F = F.ND) -> Case:
    arg = TensorArg.from_array(np.ones(shape), dtype, fmt)
    out = TensorArg.from_array(np.zeros(shape), dtype if dtype in BIAS_DTYPES.values() else DT.FLOAT16)
    return case.with_tensor("biasOptional", arg).with_tensor("outBiasOptional", out)


def ut_cases() -> Iterator[Case]:
    """Every call of the vendor's op-host unit test, as the notes list them."""
    for name in ("weight", "weightScale", "outWeight", "outWeightScale"):
        yield _ut(f"null-{name}", _mm().with_tensor(name, None), f"{name} nullptr")
    yield _ut("empty-weight", _desc_change(_mm(), "weight", shape=(0, 128)), "empty weight")
    yield _ut("empty-weight-scale", _desc_change(_mm(), "weightScale", shape=(1, 0, 2)),
              "empty weightScale")
    yield _ut("weight-format-nchw", _desc_change(_mm(), "weight", format=F.NCHW), "weight NCHW")
    yield _ut("scale-format-nhwc", _desc_change(_mm(), "weightScale", format=F.NHWC),
              "weightScale NHWC")
    yield _ut("out-weight-format-nd", _desc_change(_mm(), "outWeight", format=F.ND), "outWeight ND")
    mm = _mm()
    yield _ut("weight-dtype-int8", mm.with_tensor("weight", recast(mm.tensor("weight"), DT.INT8)),
              "weight INT8")
    yield _ut("scale-dtype-int8", mm.with_tensor("weightScale", recast(mm.tensor("weightScale"),
                                                                        DT.INT8)), "weightScale INT8")
    yield _ut("x-dtype-float16", mm.with_attrs(xDtype=DT.FLOAT16), "xDtype FLOAT16")
    yield _ut("out-weight-dtype-int8", mm.with_tensor("outWeight", recast(mm.tensor("outWeight"),
                                                                           DT.INT8)), "outWeight INT8")
    yield _ut("out-scale-dtype-int8", mm.with_tensor("outWeightScale", recast(
        mm.tensor("outWeightScale"), DT.INT8)), "outWeightScale INT8")
    yield _ut("weight-rank1", _desc_change(mm, "weight", shape=(64 * 128,), strides=(1,),
                                           storage_shape=(64 * 128,)), "weight rank 1")
    yield _ut("weight-rank4", _desc_change(mm, "weight", shape=(1, 1, 64, 128),
                                           strides=(8192, 8192, 1, 64), storage_shape=(1, 1, 128, 64)),
              "weight rank 4")
    yield _ut("weight-not-transposed", _desc_change(mm, "weight", strides=(128, 1)),
              "weight strides {128, 1}")
    for kgs in (64, 0):
        yield _ut(f"kgroup-{kgs}", mm.with_attrs(kGroupSize=kgs), f"kGroupSize {kgs}")
    yield _ut("scale-shape-2x128x2", _desc_change(mm, "weightScale", shape=(2, 128, 2),
                                                  strides=(2, 4, 1), storage_shape=(128, 2, 2)),
              "weightScale {2, 128, 2} for K = 64")
    yield _ut("scale-not-transposed", _desc_change(mm, "weightScale", strides=(256, 2, 1)),
              "weightScale strides {256, 2, 1}")
    yield _ut("weight-offset-not-null", mm.with_tensor(
        "weightOffsetOptional", TensorArg.from_array(np.zeros(128), DT.FLOAT16)),
        "weightOffsetOptional given")
    yield _ut("bias-dtype-int8", _bias_of(mm, (128,), DT.INT8), "bias INT8")
    yield _ut("bias-2x128", _bias_of(mm, (2, 128)), "bias (2, 128)")
    yield _ut("bias-127", _bias_of(mm, (127,)), "bias (127)")
    yield _ut("bias-format-nchw", _bias_of(mm, (128,), fmt=F.NCHW), "bias NCHW")
    yield _ut("gmm-bias-1x128", _bias_of(_gmm(), (1, 128)), "GMM bias (1, 128)")
    yield _ut("gmm-bias-128", _bias_of(_gmm(), (128,)), "GMM bias (128)")
    yield _ut("mm-64x128", _mm(), "MM success", valid=True)
    yield _ut("mm-bias-128", make_call("x", k=64, n=128, seed=103, bias="n"), "MM bias (128)",
              valid=True)
    yield _ut("mm-bias-1x128", make_call("x", k=64, n=128, seed=104, bias="1n"), "MM bias (1, 128)",
              valid=True)
    yield _ut("gmm-2x64x128", _gmm(), "GMM success", valid=True)


# ---- the table ----

def _with_offset(case: Case, name: str, offset: int) -> Case:
    """The same values seen through a view starting ``offset`` elements into a longer storage."""
    arg = case.tensor(name)
    d = arg.desc
    raw = np.concatenate([np.full(offset, 3, np.uint8), arg.storage.view(np.uint8)])
    return case.with_tensor(name, TensorArg(d.with_(offset=d.offset + offset),
                                            raw.view(arg.storage.dtype)))


def _only(case: Case, *rule_ids: str) -> Case:
    """The case names ``rule_ids`` alone (a call outside the contract exercises no value rule)."""
    return case.with_(rule_ids=rule_ids)


def table_cases(tier: str = "ci") -> Iterator[Case]:
    """The vendor's unit-test calls, the document's example, and the boundaries of K, N, G and bias;
    ``full`` adds larger shapes."""
    yield from ut_cases()
    v = ("WQP-VAL-001", "WQP-VAL-002", "WQP-VAL-003")
    yield make_call("doc-example", k=64, n=128, weight=np.zeros((64, 128), np.uint8),
                    scale=np.zeros((1, 128, 2), np.uint8), rule_ids=v + ("WQP-VAL-009",),
                    note="the document's example: all-zero weight and scale, outWeight strides nullptr")
    yield make_call("mm-64x128", k=64, n=128, seed=1, rule_ids=v)
    yield make_call("gmm-2x64x128", g=2, k=64, n=128, seed=2, rule_ids=v)
    for dtype in BIAS_DTYPES:
        yield make_call(f"mm-bias-n-{dtype}", k=64, n=128, seed=3, bias="n", bias_dtype=dtype,
                        rule_ids=("WQP-VAL-006",))
        yield make_call(f"mm-bias-1n-{dtype}", k=64, n=48, seed=4, bias="1n", bias_dtype=dtype,
                        rule_ids=("WQP-VAL-006",))
        yield make_call(f"gmm-bias-gn-{dtype}", g=3, k=32, n=40, seed=5, bias="gn", bias_dtype=dtype,
                        rule_ids=("WQP-VAL-006",))
    for k in (32, 64, 96, 2048):
        yield make_call(f"mm-k{k}", k=k, n=128 if k < 2048 else 48, seed=10 + k, rule_ids=v)
    for k in (40, 2, 66, 100):
        yield make_call(f"mm-k{k}-padded", k=k, n=20, seed=20 + k, rule_ids=v + ("WQP-VAL-004",))
    yield make_call("gmm-k40-padded", g=2, k=40, n=17, seed=31, rule_ids=v + ("WQP-VAL-004",))
    for n in (1, 15, 16, 17, 128, 7168):
        yield make_call(f"mm-n{n}", k=32 if n == 7168 else 64, n=n, seed=40 + n, rule_ids=v)
    yield make_call("gmm-n1", g=3, k=64, n=1, seed=41, bias="gn", rule_ids=v)
    yield make_call("gmm-g1", g=1, k=96, n=33, seed=42, bias="gn", rule_ids=v)
    for k in (33, 1):
        yield _only(make_call(f"mm-k{k}-odd", k=k, n=16, seed=50 + k,
                              note="odd K: accepted by the code, result undefined (not judged "
                                   "under cann)"), "WQP-PRE-001")
    yield make_call("mm-out-weight-transposed-strides", k=64, n=48, seed=60,
                    out_weight_strides="transposed", rule_ids=("WQP-VAL-009",))
    yield make_call("gmm-out-weight-transposed-strides", g=2, k=32, n=16, seed=61,
                    out_weight_strides="transposed", rule_ids=("WQP-VAL-009",))
    yield make_call("mm-scale-spread", k=128, n=24, seed=62, scale_layout="spread",
                    rule_ids=("WQP-VAL-005", "WQP-VAL-010"),
                    note="scale strides doubled: check g holds, the documented strides do not")
    yield make_call("mm-out-scale-spread", k=128, n=24, seed=63, out_scale_layout="spread",
                    rule_ids=("WQP-VAL-005",), note="outWeightScale strides differ: a view-wise copy")
    yield make_call("gmm-scales-spread", g=2, k=192, n=8, seed=64, scale_layout="spread",
                    out_scale_layout="doc", rule_ids=("WQP-VAL-005", "WQP-VAL-010"))
    for fmt in (F.NCL, F.NCHW):
        yield make_call(f"mm-scale-format-{fmt.name.lower()}", k=64, n=32, seed=65,
                        scale_format=fmt, rule_ids=("WQP-VAL-010",))
        yield make_call(f"gmm-out-scale-format-{fmt.name.lower()}", g=2, k=64, n=32, seed=66,
                        out_scale_format=fmt, rule_ids=("WQP-VAL-010",))
    base = make_call("mm-scale-offsets", k=64, n=32, seed=67, rule_ids=("WQP-VAL-005",))
    yield _with_offset(_with_offset(base, "weightScale", 5), "outWeightScale", 3)
    base = make_call("mm-weight-storage-flat", k=64, n=32, seed=68, rule_ids=("WQP-VAL-010",))
    yield _desc_change(base, "weight", storage_shape=(64 * 32,))
    base = make_call("gmm-scale-g-mismatch", g=2, k=64, n=32, seed=69, rule_ids=("WQP-VAL-010",))
    for name in ("weightScale", "outWeightScale"):
        base = _desc_change(base, name, shape=(3, 1, 32, 2), strides=(64, 2, 2, 1),
                            storage_shape=(3, 32, 1, 2))
    yield base
    yield make_call("mm-out-bias-without-bias", k=64, n=32, seed=70, out_bias=True,
                    rule_ids=("WQP-VAL-008",), note="outBias given, bias null: ignored, not written")
    yield make_call("gmm-out-bias-without-bias", g=2, k=64, n=32, seed=71, out_bias=True,
                    rule_ids=("WQP-VAL-008",))
    # Checks the vendor test and the generated faults leave unexercised.
    mm = make_call("x", k=64, n=128, seed=78)
    yield _only(mm.with_(case_id="null-scale-before-dtype-judge", note="weightScale nullptr and an "
                         "INT8 weight: the null checks (step 5) run before the data-flow judge "
                         "(step 6): 161001").with_tensor("weightScale", None).with_tensor(
        "weight", recast(mm.tensor("weight"), DT.INT8)), "WQP-NULL-004", "WQP-FLOW-001")
    yield _only(_desc_change(make_call("mm-k40-n20-out-weight-storage-floor", k=40, n=20, seed=79,
                                       note="outWeight storage {floor(K/32), floor(N/16), 16, 32} = "
                                            "{1, 1, 16, 32}: the documented shape is ceildiv"),
                             "outWeight", storage_shape=(1, 1, 16, 32)), "WQP-SHAPE-011")
    fp32 = make_call("mm-bias-float32", k=64, n=128, seed=80,
                     note="a FLOAT32 bias (and outBias): only float16/bfloat16 are supported")
    fp32 = fp32.with_tensor("biasOptional", TensorArg.from_array(
        np.random.default_rng(80).standard_normal(128) * 4, DT.FLOAT)).with_tensor(
        "outBiasOptional", TensorArg.from_array(np.full(128, OUT_BIAS_SENTINEL), DT.FLOAT))
    yield _only(fp32, "WQP-DTYPE-001")
    # Outside the contract (not judged under cann): the status is still judged.
    yield _only(_with_offset(make_call("mm-weight-offset", k=64, n=32, seed=72), "weight", 2),
                "WQP-PRE-002")
    yield _only(_with_offset(make_call("mm-out-weight-offset", k=64, n=32, seed=73), "outWeight", 32),
                "WQP-PRE-003")
    yield _only(_desc_change(make_call("gmm-weight-group-gap", g=2, k=64, n=32, seed=74), "weight",
                             strides=(64 * 32 + 64, 1, 64)), "WQP-PRE-004")
    yield _only(_desc_change(make_call("gmm-out-weight-groups-3", g=2, k=64, n=32, seed=75),
                             "outWeight", storage_shape=(3, 2, 2, 16, 32)), "WQP-PRE-005")
    yield _only(_desc_change(make_call("gmm-weight-format-ncl", g=2, k=64, n=32, seed=76), "weight",
                             format=F.NCL), "WQP-PRE-006")
    yield _only(_desc_change(make_call("mm-weight-format-ncl", k=64, n=32, seed=77), "weight",
                             format=F.NCL), "WQP-INNER-001")
    if tier == "full":
        yield make_call("mm-7168x7168", k=7168, n=7168, seed=80, rule_ids=v)
        yield make_call("gmm-8x2048x512", g=8, k=2048, n=512, seed=81, bias="gn", rule_ids=v)
        for k in range(2, 130, 2):
            yield make_call(f"mm-k{k}-sweep", k=k, n=17, seed=200 + k, rule_ids=v)
        for n in range(1, 65):
            yield make_call(f"mm-n{n}-sweep", k=64, n=n, seed=300 + n, rule_ids=v)


__all__ = ["BIAS_DTYPES", "BIAS_SHAPES", "FAULT_BASES", "base_call", "gmm_base_call", "make_call",
           "table_cases", "ut_cases"]
