"""Calls of aclnnApplyAdamWQuant: a builder of valid calls, the qmaps, and the table of cases."""
from __future__ import annotations

import math
from typing import Iterator, Sequence

import numpy as np

from aclnn_conformance.judging.sensitivity import ROUNDING_MODES, rounding_row, table_case
from aclnn_conformance.oracle.apply_adam_w_quant import nearest_code
from aclnn_conformance.oracle.cases import oracle_result
from aclnn_conformance.spec.apply_adam_w_quant import OP, absmax_count
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.tensor import TensorArg
from aclnn_conformance.suites.calls import as_noncontiguous as noncontiguous

DTYPES = {"float32": DT.FLOAT, "float16": DT.FLOAT16, "bfloat16": DT.BF16}
DEFAULT_ATTRS = {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "weightDecay": 0.01, "eps": 1e-8,
                 "gnormScale": 1.0, "quantModeOptional": "BLOCKWISE", "blockSize": 256}


# ---- quantization maps ----

def _torch_style_linspace(start: float, end: float, steps: int) -> np.ndarray:
    """float32 linspace computed from both ends, as the 8-bit optimizer's map builder sees it."""
    f = np.float32
    step = (f(end) - f(start)) / f(steps - 1)
    i = np.arange(steps)
    lo = f(start) + i.astype(np.float32) * step
    hi = f(end) - (steps - 1 - i).astype(np.float32) * step
    return np.where(i < steps // 2, lo, hi).astype(np.float32)


def dynamic_qmap(signed: bool) -> np.ndarray:
    """The 8-bit dynamic (exponent + linear fraction) map: 7 exponent decades of fractions, plus 0
    and 1; 256 ascending float32 values."""
    values: list[np.ndarray] = []
    for i in range(7):
        n = 2 ** i if signed else 2 ** (i + 1)
        bounds = _torch_style_linspace(0.1, 1.0, n + 1)
        means = ((bounds[:-1] + bounds[1:]) / np.float32(2)).astype(np.float32)
        vals = (np.float32(10.0 ** (i - 6)) * means).astype(np.float32)
        values.append(vals)
        if signed:
            values.append(-vals)
    values.append(np.array([0.0, 1.0], np.float32))
    return np.sort(np.concatenate(values)).astype(np.float32)


def linspace_qmap(signed: bool) -> np.ndarray:
    """The vendor tests' maps: linspace(-1, 1, 256) and linspace(0, 1, 256)."""
    return _torch_style_linspace(-1.0 if signed else 0.0, 1.0, 256)


def dyadic_qmap(signed: bool) -> np.ndarray:
    """Exactly representable steps (-1 + j/128, or j/256) so that midpoints are exact float32 values."""
    j = np.arange(256, dtype=np.float64)
    return (j / 128 - 1 if signed else j / 256).astype(np.float32)


def asymmetric_qmap() -> np.ndarray:
    """A map for m without 0: negative and positive entries of different spacing (the sign fix can fire)."""
    neg = -np.geomspace(1.0, 1e-3, 100)
    pos = np.linspace(2e-3, 1.0, 156)
    return np.concatenate([neg, pos]).astype(np.float32)


QMAPS = {"dynamic": lambda: (dynamic_qmap(True), dynamic_qmap(False)),
         "linspace": lambda: (linspace_qmap(True), linspace_qmap(False)),
         "dyadic": lambda: (dyadic_qmap(True), dyadic_qmap(False)),
         "asymmetric": lambda: (asymmetric_qmap(), dynamic_qmap(False))}


# ---- valid calls ----

def make_call(case_id: str, shape: Sequence[int] = (2, 256), dtype: str = "float32", seed: int = 0,
              qmaps: str = "dynamic", step: int = 10, rule_ids: tuple[str, ...] = (),
              var=None, grad=None, m=None, v=None, absmax_m=None, absmax_v=None,
              origin: str = "table", note: str = "", **attrs) -> Case:
    """A valid, contiguous call; every array not given is drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in shape)
    n = math.prod(shape)
    blocks = absmax_count(n)
    qm, qv = QMAPS[qmaps]()
    var = rng.standard_normal(shape) * 0.1 if var is None else np.asarray(var).reshape(shape)
    grad = rng.standard_normal(shape) * 0.01 if grad is None else np.asarray(grad).reshape(shape)
    m = rng.integers(0, 256, shape) if m is None else np.asarray(m).reshape(shape)
    v = rng.integers(0, 256, shape) if v is None else np.asarray(v).reshape(shape)
    absmax_m = rng.uniform(1e-3, 1e-1, blocks) if absmax_m is None else np.asarray(absmax_m)
    absmax_v = rng.uniform(1e-6, 1e-3, blocks) if absmax_v is None else np.asarray(absmax_v)
    tensors = {
        "varRef": TensorArg.from_array(var, DTYPES[dtype]),
        "grad": TensorArg.from_array(grad, DTYPES[dtype]),
        "mRef": TensorArg.from_array(m, DT.UINT8),
        "vRef": TensorArg.from_array(v, DT.UINT8),
        "qmapM": TensorArg.from_array(qm, DT.FLOAT),
        "qmapV": TensorArg.from_array(qv, DT.FLOAT),
        "absmaxMRef": TensorArg.from_array(absmax_m, DT.FLOAT),
        "absmaxVRef": TensorArg.from_array(absmax_v, DT.FLOAT),
        "step": TensorArg.from_array(np.array([step]), DT.INT64),
    }
    return Case(op=OP, case_id=case_id, tensors=tensors, attrs={**DEFAULT_ATTRS, **attrs},
                rule_ids=("AAWQ-VAL-001", "AAWQ-VAL-002", "AAWQ-VAL-003", "AAWQ-VAL-004",
                          "AAWQ-VAL-006", "AAWQ-VAL-007", "AAWQ-VAL-009", "AAWQ-ATTR-003") + rule_ids,
                origin=origin, seed=seed, note=note)


def base_call() -> Case:
    """The valid call that one-fault cases start from: two full blocks, fp32."""
    return make_call("base", (2, 256), "float32", seed=1)


FAULT_BASES = {"": base_call}


def as_noncontiguous(case: Case, names: Sequence[str], how: str) -> Case:
    """The same values laid out through strides (suites.calls.as_noncontiguous), rule AAWQ-VAL-015."""
    return noncontiguous(case, names, how, "AAWQ-VAL-015")


# ---- the table ----

def _vendor_st_call(n_rows: int, dtype: str, seed: int) -> Case:
    """The vendor's own system-test distribution: [N,256], linspace maps, attributes drawn as it does."""
    rng = np.random.default_rng(seed)
    attrs = {"lr": float(rng.choice([1e-8, 1e-6, 1e-3])), "eps": 1e-6,
             "beta1": float(rng.uniform(1e-8, 0.9999)), "beta2": float(rng.uniform(1e-8, 0.9999)),
             "weightDecay": float(rng.uniform(1e-8, 0.9999)),
             "gnormScale": float(rng.uniform(1e-8, 0.9999))}
    hi = float(rng.choice([1.0, 5.0]))
    shape = (n_rows, 256)
    blocks = n_rows
    return make_call(f"vendor-st-{dtype}-N{n_rows}", shape, dtype, seed, qmaps="linspace",
                     step=int(rng.integers(1, 10001)),
                     var=rng.uniform(0.1, hi, shape), grad=rng.uniform(0.1, hi, shape),
                     absmax_m=rng.uniform(1, 5, blocks), absmax_v=rng.uniform(1, 5, blocks),
                     note="vendor system-test distribution", **attrs)


def midpoint_call() -> Case:
    """m lands exactly on midpoints of a dyadic map: beta1 = 0 makes m_t = g, and max|g| = 1."""
    q = dyadic_qmap(True)
    mids = ((q[:-1].astype(np.float64) + q[1:]) / 2).astype(np.float32)
    grad = np.concatenate([mids, [1.0]]).astype(np.float32)  # 255 midpoints and the block max
    return make_call("midpoint-ties", (256,), "float32", seed=5, qmaps="dyadic", grad=grad,
                     beta1=0.0, beta2=0.0, gnormScale=1.0, rule_ids=("AAWQ-VAL-009",),
                     note="every m lands exactly between two codes: the lower index wins")


def sign_fix_call() -> Case:
    """Many small positive m nearest to a negative qmapM entry: beta1 = 0 makes m_t = g and the block
    max 1.0 makes m_t/absmax = g. The map has no 0; its negative entries are 0.01 apart and the
    positive ones start at 2e-3, so every g in (0, 5e-4) is nearest to -1e-3 and the sign fix
    moves it one code up, to 2e-3 (one code down would land on -0.011)."""
    qm = np.concatenate([np.linspace(-1.0, -1e-3, 100), np.geomspace(2e-3, 1.0, 156)])
    grad = np.concatenate([[1.0], np.linspace(1e-5, 4.9e-4, 127),
                           -np.geomspace(1e-3, 0.9, 128)]).reshape(1, 256)
    return make_call("sign-fix-small-positive-m", (1, 256), "float32", seed=53, grad=grad,
                     beta1=0.0, rule_ids=("AAWQ-VAL-010",),
                     note="127 sign fixes in one block").with_tensor(
        "qmapM", TensorArg.from_array(qm.astype(np.float32), DT.FLOAT))


def rounding_ties_call(dtype: str) -> Case:
    """Every new var lands exactly halfway between two neighbours of its dtype: beta1 = beta2 = 0,
    eps = 0 and no decay make the update exactly -lr*sign(g) (m = g, sqrt(v) = |g|, bias
    corrections 1), and lr is half the dtype's spacing in [1, 2), where var lies."""
    fraction_bits = {"float16": 10, "bfloat16": 7}[dtype]
    rng = np.random.default_rng(54)
    spacing = 2.0 ** -fraction_bits
    var = 1.0 + rng.integers(1, 2 ** fraction_bits, (2, 256)) * spacing
    grad = (0.5 + rng.integers(0, 2 ** fraction_bits, (2, 256)) * spacing / 2) * rng.choice([-1, 1], (2, 256))
    return make_call(f"rounding-ties-{dtype}", (2, 256), dtype, seed=54, var=var, grad=grad,
                     lr=spacing / 2, beta1=0.0, beta2=0.0, eps=0.0, weightDecay=0.0,
                     rule_ids=("AAWQ-VAL-012",),
                     note="every float32 result is an exact tie of the cast: round half to even")


def table_cases(tier: str = "ci") -> Iterator[Case]:
    """The table-driven cases; ``full`` adds every vendor system-test row count."""
    z = np.zeros((1, 256))
    yield make_call("doc-example", (1, 256), "float32", qmaps="linspace", step=0,
                    var=z, grad=z, m=np.zeros((1, 256), int), v=np.zeros((1, 256), int),
                    absmax_m=[5.0], absmax_v=[3.0], lr=0.1, beta1=0.1, beta2=0.1, weightDecay=0.1,
                    eps=0.01, gnormScale=0.1, rule_ids=("AAWQ-VAL-011",),
                    note="the document's example (its qmaps are zeros; here the vendor tests' maps)")
    yield make_call("doc-example-zero-qmaps", (1, 256), "float32", qmaps="linspace", step=0,
                    var=z, grad=z, m=np.zeros((1, 256), int), v=np.zeros((1, 256), int),
                    absmax_m=[5.0], absmax_v=[3.0], lr=0.1, beta1=0.1, beta2=0.1, weightDecay=0.1,
                    eps=0.01, gnormScale=0.1, rule_ids=("AAWQ-VAL-011",),
                    note="the document's example as written: all-zero qmaps"
                    ).with_tensor("qmapM", TensorArg.from_array(np.zeros(256), DT.FLOAT)
                    ).with_tensor("qmapV", TensorArg.from_array(np.zeros(256), DT.FLOAT))
    rows = range(17, 256) if tier == "full" else (17, 96, 255)
    for dtype in DTYPES:
        for n_rows in rows:
            yield _vendor_st_call(n_rows, dtype, seed=1000 + n_rows)
    for dtype in DTYPES:
        for n in (1, 255, 256, 257, 1000, 4097):
            yield make_call(f"n{n}-{dtype}", (n,), dtype, seed=n, rule_ids=("AAWQ-VAL-008",))
    yield make_call("rank8", (1, 2, 1, 2, 1, 2, 2, 40), "float32", seed=8, rule_ids=("AAWQ-VAL-008",))
    yield make_call("rank1", (700,), "bfloat16", seed=9, rule_ids=("AAWQ-VAL-008",))
    base = make_call("noncontiguous", (3, 200), "float32", seed=11, rule_ids=("AAWQ-VAL-008",))
    yield as_noncontiguous(base.with_(case_id="noncontig-transposed"),
                           ("varRef", "grad", "mRef", "vRef"), "transposed")
    yield as_noncontiguous(base.with_(case_id="noncontig-strided"),
                           ("varRef", "mRef", "absmaxMRef", "qmapV"), "strided")
    yield as_noncontiguous(base.with_(case_id="noncontig-offset"),
                           ("grad", "vRef", "absmaxVRef", "step"), "offset")
    for qmaps in ("dynamic", "linspace"):
        for dtype in DTYPES:
            yield make_call(f"qmap-{qmaps}-{dtype}", (4, 256), dtype, seed=21, qmaps=qmaps)
    yield midpoint_call()
    yield make_call("all-zero-blocks", (3, 256), "float32", seed=31, grad=np.zeros((3, 256)),
                    absmax_m=np.zeros(3), absmax_v=np.zeros(3), rule_ids=("AAWQ-VAL-011",))
    yield make_call("zero-block-among-others", (3, 256), "float32", seed=32,
                    grad=np.concatenate([np.zeros(256), np.full(512, 0.01)]).reshape(3, 256),
                    absmax_m=[0.0, 0.05, 0.05], absmax_v=[0.0, 1e-4, 1e-4], rule_ids=("AAWQ-VAL-011",))
    for wd in (0.0, -0.5):
        yield make_call(f"weight-decay-{wd:g}", (2, 256), "float32", seed=41, weightDecay=wd,
                        lr=0.1, rule_ids=("AAWQ-VAL-005",))
    yield make_call("weight-decay-large", (2, 256), "float32", seed=42, weightDecay=0.5, lr=0.1,
                    var=np.full((2, 256), 2.0), rule_ids=("AAWQ-VAL-004",))
    for gs in (0.5, 4.0):
        yield make_call(f"gnorm-scale-{gs:g}", (2, 256), "float32", seed=43, gnormScale=gs,
                        rule_ids=("AAWQ-VAL-006", "AAWQ-ATTR-001"))
    for step in (10_000, 1_000_000, 2 ** 31 + 5):
        yield make_call(f"large-step-{step}", (2, 256), "float32", seed=44, step=step)
    yield make_call("first-steps-step0", (2, 256), "float32", seed=45, step=0, beta1=0.5,
                    beta2=0.75, rule_ids=("AAWQ-VAL-003",))
    yield make_call("first-steps-step1", (2, 256), "float32", seed=46, step=1, beta1=0.5,
                    beta2=0.75, rule_ids=("AAWQ-VAL-003",))
    yield make_call("eps-large", (2, 256), "float32", seed=47, eps=1e-2, step=0,
                    rule_ids=("AAWQ-VAL-002",))
    yield make_call("attr-float32-rounding", (2, 256), "float32", seed=48, beta2=0.999999,
                    beta1=0.99999991, lr=0.30000000000000004, step=0, rule_ids=("AAWQ-ATTR-003",),
                    note="beta2 = 0.999999 rounds to float32 0.99999899: 1 - beta2 moves by 1.3%")
    yield make_call("sign-fix", (2, 256), "float32", seed=49, qmaps="asymmetric",
                    rule_ids=("AAWQ-VAL-010",))
    yield make_call("partial-block-signed-map", (257,), "float32", seed=50,
                    m=np.full(257, 200), absmax_m=[0.05, 1e-3], rule_ids=("AAWQ-VAL-008",),
                    note="the partial block's padding must not enter its absmax")
    for dtype in ("float16", "bfloat16"):
        yield make_call(f"rounding-once-{dtype}", (4, 256), dtype, seed=51, lr=0.05,
                        weightDecay=0.3, var=np.random.default_rng(5).uniform(0.5, 2, (4, 256)),
                        rule_ids=("AAWQ-VAL-012",))
    for dtype in ("float16", "bfloat16"):
        yield rounding_ties_call(dtype)
    yield make_call("rounding-once-float16-near-max", (2, 256), "float16", seed=52, lr=0.9,
                    weightDecay=0.5, var=np.full((2, 256), 65504.0),
                    grad=np.random.default_rng(52).uniform(0.005, 0.02, (2, 256)),
                    m=np.zeros((2, 256), int), v=np.zeros((2, 256), int), absmax_m=[1.0, 1.0],
                    absmax_v=[1.0, 1.0], rule_ids=("AAWQ-VAL-012",),
                    note="theta = 65504 (the float16 maximum) plus a step of 180 to 770 (m from "
                         "the map's most negative code, v from 0), then the decay 0.55: rounded "
                         "once, every result is finite (about 36,000); rounded after the step as "
                         "well, every one overflows to inf")
    yield sign_fix_call()
    grad = np.random.default_rng(60).standard_normal((2, 256)) * 0.01
    grad[0, 3], grad[0, 100], grad[1, 7] = np.nan, np.inf, -np.inf
    yield make_call("nonfinite-grad", (2, 256), "float32", seed=60, grad=grad,
                    rule_ids=("AAWQ-VAL-013",))
    var = np.random.default_rng(61).standard_normal((2, 256)) * 0.1
    var[1, 9] = np.nan
    yield make_call("nonfinite-var", (2, 256), "bfloat16", seed=61, var=var,
                    rule_ids=("AAWQ-VAL-013",))
    yield make_call("empty", (0, 256), "float32", seed=62, rule_ids=("AAWQ-VAL-014",))
    yield make_call("empty-skips-tiling-checks", (0, 256), "float32", seed=62, blockSize=128,
                    rule_ids=("AAWQ-VAL-014",),
                    note="every output empty: tiling (and its blockSize check) never runs")
    yield make_call("quant-mode-null", (2, 256), "float32", seed=63, quantModeOptional=None,
                    rule_ids=("AAWQ-ATTR-002",))
    yield make_call("attr-out-of-range", (2, 256), "float32", seed=64, lr=2.0, beta1=1.5,
                    weightDecay=3.0, rule_ids=("AAWQ-ATTR-001",))
    yield make_call("qmap-shape-1x256", (2, 256), "float32", seed=65).with_tensor(
        "qmapM", TensorArg.from_array(dynamic_qmap(True).reshape(1, 256), DT.FLOAT)).with_tensor(
        "qmapV", TensorArg.from_array(dynamic_qmap(False).reshape(1, 256), DT.FLOAT))
    yield make_call("qmap-unsorted", (2, 256), "float32", seed=66).with_tensor(
        "qmapM", TensorArg.from_array(dynamic_qmap(True)[::-1].copy(), DT.FLOAT)).with_(
        note="precondition broken: status judged, values not")
    yield make_call("qmapv-unsorted", (2, 256), "float32", seed=69).with_tensor(
        "qmapV", TensorArg.from_array(np.roll(dynamic_qmap(False), 5), DT.FLOAT))
    yield make_call("absmax-short", (2, 256), "float32", seed=70, absmax_m=[0.05], absmax_v=[1e-4],
                    note="one absmax entry for two blocks: 561002 on Ascend 950, outside the "
                         "contract where the count is unchecked")
    yield make_call("absmax-long", (2, 256), "float32", seed=71, absmax_m=[0.05, 0.02, 7.0],
                    absmax_v=[1e-4, 2e-4, 7.0], rule_ids=("AAWQ-VAL-015",),
                    note="an extra absmax entry: 561002 on Ascend 950, left untouched on A2/A3")
    yield make_call("qmapv-negative", (2, 256), "float32", seed=67, qmaps="linspace").with_tensor(
        "qmapV", TensorArg.from_array(linspace_qmap(True), DT.FLOAT))
    yield make_call("step-negative", (2, 256), "float32", seed=68, step=-3)


# ---- sensitivity: realistic outputs for the sensitivity tables (reports/sensitivity.py) ----

def _sensitivity_case(dtype: str, case_id: str | None = None) -> Case:
    return table_case(table_cases("ci"), case_id or f"vendor-st-{dtype}-N17")


def float_target(std_name: str, profile: str, dtype: str, output: str,
                  case_id: str | None = None) -> dict:
    """The vendor system-test case of 17 blocks (or ``case_id``): one float output's oracle values."""
    case = _sensitivity_case(dtype, case_id)
    o = oracle_result(case, profile, "atlas-a2")
    expected = np.asarray(o.views[output])
    aux = dict(o.aux.get(output, {}))
    arg = case.tensor(output)
    if output.startswith("absmax"):      # the judged entries: one per block
        blocks = absmax_count(case.tensor("varRef").desc.numel)
        expected = expected.reshape(-1)[:blocks]
        if "bound" in aux:
            aux["bound"] = np.asarray(aux["bound"]).reshape(-1)[:blocks]
    return {"op": OP, "standard": std_name, "profile": profile, "product": "atlas-a2",
            "output": output, "case_id": case.case_id,
            "dtype": np.dtype(arg.storage.dtype).name if dtype != "bfloat16" else "bfloat16",
            "expected": expected, "aux": aux}


def _code_target(output: str, std_name: str) -> dict:
    case = _sensitivity_case("float32")
    o = oracle_result(case, "cann", "atlas-a2")
    return {"op": OP, "standard": std_name, "profile": "cann", "product": "atlas-a2",
            "output": output, "case_id": case.case_id, "dtype": "uint8 codes of float32",
            "expected": np.asarray(o.views[output]).reshape(-1), "aux": o.aux[output],
            "requantize": nearest_code}


def sensitivity_targets() -> tuple[list[dict], list[dict]]:
    """(targets, rounding rows): var per dtype and the absmax outputs under model-bound@2 and
    float-ulp (cann) and mere-mare (doc); the m and v codes under quant-code @3 and @2; the
    float32 var cast to fp16/bf16 toward zero or with ties away from zero, on the vendor case and
    the exact-tie case."""
    targets = []
    for std_name in ("model-bound@2", "float-ulp"):
        targets += [float_target(std_name, "cann", d, "varRef") for d in ("float32", "float16", "bfloat16")]
        targets += [float_target(std_name, "cann", "float32", n) for n in ("absmaxMRef", "absmaxVRef")]
    targets += [float_target("mere-mare", "doc", d, "varRef") for d in ("float32", "float16", "bfloat16")]
    targets += [float_target("mere-mare", "doc", "float32", n) for n in ("absmaxMRef", "absmaxVRef")]
    targets += [_code_target(n, s) for s in ("quant-code@3", "quant-code@2") for n in ("mRef", "vRef")]
    rounding = []
    for dtype in ("float16", "bfloat16"):
        for case_id in (f"vendor-st-{dtype}-N17", f"rounding-ties-{dtype}"):
            unrounded = float_target("model-bound@2", "cann", dtype, "varRef", case_id)["aux"]["unrounded"]
            for std_name in ("model-bound@2", "float-ulp"):
                target = float_target(std_name, "cann", dtype, "varRef", case_id)
                rounding += [rounding_row(target, unrounded, how) for how in ROUNDING_MODES]
    return targets, rounding
