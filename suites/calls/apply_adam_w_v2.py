"""Calls of aclnnApplyAdamWV2: a builder of valid calls and the table of cases."""
from __future__ import annotations

import itertools
from typing import Iterator, Mapping, Sequence

import numpy as np

from aclnn_conformance.judging.sensitivity import (envelope_rounding_rows, envelope_target,
                                                   table_case)
from aclnn_conformance.oracle.cases import oracle_result
from aclnn_conformance.spec.apply_adam_w_v2 import MAX_GRAD_NORM, OP
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.tensor import TensorArg
from aclnn_conformance.suites.calls import as_noncontiguous as noncontiguous

DTYPES = {"float32": DT.FLOAT, "float16": DT.FLOAT16, "bfloat16": DT.BF16}
STEP_DTYPES = {"int64": DT.INT64, "float32": DT.FLOAT}
STATE = ("varRef", "mRef", "vRef", MAX_GRAD_NORM, "grad")
DEFAULT_ATTRS = {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "weightDecay": 1e-2, "eps": 1e-8,
                 "amsgrad": False, "maximize": False}
BASE_RULES = ("AAWV2-VAL-001", "AAWV2-VAL-002", "AAWV2-VAL-003", "AAWV2-VAL-004", "AAWV2-VAL-010",
              "AAWV2-VAL-011", "AAWV2-VAL-018")


def _dtypes(dtype: str | Mapping[str, str]) -> dict[str, str]:
    if isinstance(dtype, str):
        return {n: dtype for n in STATE}
    return {n: dtype.get(n, dtype.get("varRef", "float32")) for n in STATE}


def make_call(case_id: str, shape: Sequence[int] = (4, 33), dtype: str | Mapping[str, str] = "float32",
              seed: int = 0, step: float = 9, step_dtype: str = "int64", max_grad_norm: bool | None = None,
              rule_ids: tuple[str, ...] = (), var=None, m=None, v=None, grad=None, mgn=None,
              origin: str = "table", note: str = "", **attrs) -> Case:
    """A valid, contiguous call; every array not given is drawn from ``seed``. ``dtype`` is one name
    for every float tensor or a mapping tensor -> name (missing ones follow varRef).
    ``max_grad_norm`` defaults to ``amsgrad``."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in shape)
    attrs = {**DEFAULT_ATTRS, **attrs}
    with_mgn = bool(attrs["amsgrad"]) if max_grad_norm is None else max_grad_norm
    dts = _dtypes(dtype)

    def draw(given, make):
        return make() if given is None else np.asarray(given, dtype=np.float64).reshape(shape)

    values = {
        "varRef": draw(var, lambda: rng.standard_normal(shape) * 0.1),
        "mRef": draw(m, lambda: rng.standard_normal(shape) * 0.01),
        "vRef": draw(v, lambda: rng.uniform(0, 1e-4, shape)),
        MAX_GRAD_NORM: draw(mgn, lambda: rng.uniform(0, 2e-4, shape)),
        "grad": draw(grad, lambda: rng.standard_normal(shape) * 0.01),
    }
    tensors: dict[str, TensorArg | None] = {
        n: TensorArg.from_array(values[n], DTYPES[dts[n]]) for n in STATE}
    if not with_mgn:
        tensors[MAX_GRAD_NORM] = None
    tensors["step"] = TensorArg.from_array(np.array([step]), STEP_DTYPES[step_dtype])
    ordered = {n: tensors[n] for n in ("varRef", "mRef", "vRef", MAX_GRAD_NORM, "grad", "step")}
    extra = ("AAWV2-VAL-005",) if attrs["amsgrad"] else ()
    extra += ("AAWV2-VAL-006",) if with_mgn and not attrs["amsgrad"] else ()
    extra += ("AAWV2-VAL-007",) if attrs["maximize"] else ()
    extra += ("AAWV2-VAL-008",) if len({dts[n] for n in STATE if ordered[n] is not None}) > 1 else ()
    extra += ("AAWV2-VAL-009",) if any(dts[n] != "float32" for n in STATE) else ()
    return Case(op=OP, case_id=case_id, tensors=ordered, attrs=attrs,
                rule_ids=BASE_RULES + extra + rule_ids, origin=origin, seed=seed, note=note)


def base_call() -> Case:
    """The valid call that one-fault cases start from: fp32, amsgrad with its maxGradNorm."""
    return make_call("base", (4, 33), "float32", seed=1, amsgrad=True)


def base_call_without_amsgrad() -> Case:
    """amsgrad = false, maxGradNorm NULL: the base of the faults that need no maxGradNorm."""
    return make_call("base-no-amsgrad", (4, 33), "float32", seed=2)


def base_call_bf16() -> Case:
    return make_call("base-bf16", (4, 33), "bfloat16", seed=3, amsgrad=True)


FAULT_BASES = {"": base_call, "no-amsgrad": base_call_without_amsgrad, "bf16": base_call_bf16}


def as_noncontiguous(case: Case, names: Sequence[str], how: str) -> Case:
    """The same values laid out through strides (suites.calls.as_noncontiguous), rule AAWV2-VAL-014."""
    return noncontiguous(case, names, how, "AAWV2-VAL-014")


def with_step(case: Case, step: float, step_dtype: str = "int64", shape: Sequence[int] = (1,)) -> Case:
    values = np.array([step]).reshape(tuple(shape))
    return case.with_tensor("step", TensorArg.from_array(values, STEP_DTYPES[step_dtype]))


# ---- the table ----

def _vendor_st_call(shape: tuple[int, ...], dtype: str, seed: int, amsgrad: bool, maximize: bool) -> Case:
    """The vendor golden's distribution: beta1 over [0, 0.9999], lr in {1e-8, 1e-6, 1e-3}, step 1..10000."""
    rng = np.random.default_rng(seed)
    attrs = {"lr": float(rng.choice([1e-8, 1e-6, 1e-3])), "beta1": float(rng.uniform(0, 0.9999)),
             "beta2": float(rng.uniform(0.9, 0.9999)), "weightDecay": float(rng.uniform(0, 0.1)),
             "eps": 1e-8}
    tag = f"{'ams' if amsgrad else 'plain'}-{'max' if maximize else 'min'}"
    return make_call(f"vendor-{dtype}-{'x'.join(map(str, shape))}-{tag}", shape, dtype, seed,
                     step=int(rng.integers(1, 10001)), amsgrad=amsgrad, maximize=maximize,
                     var=rng.uniform(-1, 1, shape), m=rng.uniform(-0.1, 0.1, shape),
                     v=rng.uniform(0, 0.01, shape), grad=rng.uniform(-1, 1, shape),
                     mgn=rng.uniform(0, 0.01, shape), note="the vendor golden's distribution", **attrs)


def doc_example() -> Case:
    """The document's example: 2x2 float32, inputs 0, 1, 2, 3, step 1 (float), amsgrad and maximize."""
    x = np.arange(4.0).reshape(2, 2)
    return make_call("doc-example", (2, 2), "float32", step=1.0, step_dtype="float32", amsgrad=True,
                     maximize=True, var=x, m=x, v=x, grad=x, mgn=x, lr=1e-3, beta1=0.9, beta2=0.999,
                     weightDecay=1e-2, eps=1e-8, note="the document's example (t = step + 1 = 2 in cann)")


MIXES = (
    # the native mixed kernel: var/m/v fp32, grad fp16/bf16, maxGradNorm absent or grad's dtype
    {"varRef": "float32", "grad": "float16"},
    {"varRef": "float32", "grad": "bfloat16"},
    {"varRef": "float32", "grad": "bfloat16", MAX_GRAD_NORM: "bfloat16"},
    # the cast-to-float32 route: everything else
    {"varRef": "float32", "grad": "float32", MAX_GRAD_NORM: "float16"},
    {"varRef": "float16", "mRef": "float32", "vRef": "float32", "grad": "float16"},
    {"varRef": "bfloat16", "mRef": "float16", "vRef": "float32", MAX_GRAD_NORM: "bfloat16",
     "grad": "float32"},
    {"varRef": "float16", "mRef": "bfloat16", "vRef": "bfloat16", MAX_GRAD_NORM: "float32",
     "grad": "bfloat16"},
)


def dtype_mixes(tier: str) -> list[tuple[str, ...]]:
    """Dtype names of (var, m, v, maxGradNorm, grad): every one of the 243 combinations in the full
    tier; in ci 31 of them, every dtype in every position (the combinations whose indices sum to a
    multiple of 7)."""
    names = list(DTYPES)
    combos = list(itertools.product(names, repeat=len(STATE)))
    if tier == "full":
        return combos
    return [c for c in combos if sum(names.index(n) for n in c) % 7 == 0]


def bf16_tie_call(case_id: str = "bf16-exact-ties", rows: int = 2, maximize: bool = False,
                  amsgrad: bool = False, dtype: str | Mapping[str, str] = "bfloat16") -> Case:
    """float32 results on exact bfloat16 ties: beta1 = 0.5, m = +-1 and g = +-(1 + odd/128) make
    m' = +-(1 + odd/256) exactly in every order of the arithmetic, halfway between two bfloat16
    values (low 16 bits 0x8000); rows alternate in sign; with ``maximize`` grad is passed negated."""
    shape = (rows, 32)
    odd = (2 * np.arange(32) + 1) * 2.0 ** -7
    sign = np.where(np.arange(rows) % 2, -1.0, 1.0)[:, None]
    return make_call(case_id, shape, dtype, seed=90, m=sign * np.ones(shape),
                     grad=(-1 if maximize else 1) * sign * (1 + odd), lr=0.0, weightDecay=0.0,
                     beta1=0.5, maximize=maximize, amsgrad=amsgrad, rule_ids=("AAWV2-VAL-009",),
                     note="every m' lies on an exact bfloat16 tie: either neighbour on A2/A3, even on 950")


# Case ids name every dtype of a mix, so that no two mixes share an id (a record is keyed by it).
SHORT_DTYPE = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}


def table_cases(tier: str = "ci") -> Iterator[Case]:
    """The table-driven cases; ``full`` adds the vendor distribution over more shapes."""
    yield doc_example()
    shapes = ((1000,), (37,), (8, 129)) if tier == "ci" else ((1000,), (37,), (8, 129), (3, 5, 77),
                                                             (4096,), (1, 1, 1, 1, 1, 1, 2, 17))
    for dtype in DTYPES:
        for i, shape in enumerate(shapes):
            for amsgrad in (False, True):
                for maximize in (False, True):
                    if tier == "ci" and (amsgrad, maximize) not in ((False, False), (True, True)) and i:
                        continue
                    yield _vendor_st_call(shape, dtype, 500 + 7 * i + 2 * amsgrad + maximize,
                                          amsgrad, maximize)
    for i, mix in enumerate(MIXES):
        tag = "-".join(f"{k[0] if k != MAX_GRAD_NORM else 'n'}{SHORT_DTYPE[v]}" for k, v in mix.items())
        amsgrad = MAX_GRAD_NORM in mix
        yield make_call(f"mix-{tag}", (5, 41), mix, seed=600 + i, amsgrad=amsgrad,
                        rule_ids=("AAWV2-VAL-008",))
    for i, combo in enumerate(dtype_mixes(tier)):
        mix = dict(zip(STATE, combo))
        tag = "-".join(SHORT_DTYPE[n] for n in combo)
        yield make_call(f"every-mix-{tag}", (3, 17), mix, seed=700 + i, amsgrad=True,
                        rule_ids=("AAWV2-VAL-008",))
    yield make_call("mix-mgn-given-no-amsgrad", (5, 41), {"varRef": "float32", "grad": "bfloat16",
                                                          MAX_GRAD_NORM: "float16"},
                    seed=610, max_grad_norm=True, rule_ids=("AAWV2-VAL-006", "AAWV2-VAL-008"))
    for dtype in DTYPES:
        yield make_call(f"amsgrad-off-mgn-given-{dtype}", (3, 50), dtype, seed=620, max_grad_norm=True,
                        rule_ids=("AAWV2-VAL-006",))
        yield make_call(f"amsgrad-max-chosen-{dtype}", (3, 50), dtype, seed=621, amsgrad=True,
                        mgn=np.random.default_rng(621).uniform(0, 1e-3, (3, 50)),
                        rule_ids=("AAWV2-VAL-005",), note="maxGradNorm above v' in most elements")
        yield make_call(f"maximize-{dtype}", (3, 50), dtype, seed=622, maximize=True, lr=0.05,
                        rule_ids=("AAWV2-VAL-007",))
    yield bf16_tie_call()
    yield bf16_tie_call("bf16-exact-ties-maximize-4x32", rows=4, maximize=True)
    yield bf16_tie_call("bf16-exact-ties-amsgrad-3x32", rows=3, amsgrad=True)
    yield bf16_tie_call("bf16-exact-ties-mixed-m-bf16-3x32", rows=3,
                        dtype={"varRef": "float32", "mRef": "bfloat16", "vRef": "float32",
                               "grad": "float32"})
    for dtype in ("float16", "bfloat16"):
        yield make_call(f"rounding-once-{dtype}", (4, 64), dtype, seed=630, lr=0.05, weightDecay=0.3,
                        var=np.random.default_rng(630).uniform(0.5, 2, (4, 64)),
                        rule_ids=("AAWV2-VAL-009",))
    # the step
    for step in (0, 1, 100_000, 10_000_000, 2 ** 31 + 5):
        yield make_call(f"step-{step}", (2, 64), "float32", seed=640, step=step, beta1=0.5,
                        beta2=0.75, rule_ids=("AAWV2-VAL-003",))
    yield make_call("step-float-fractional", (2, 64), "float32", seed=641, step=2.5,
                    step_dtype="float32", beta1=0.5, beta2=0.75, rule_ids=("AAWV2-VAL-010",))
    yield make_call("step-float-large", (2, 64), "float32", seed=642, step=3.0e7, step_dtype="float32",
                    rule_ids=("AAWV2-VAL-010",))
    yield make_call("step-int64-inexact-float32", (2, 64), "float32", seed=643, step=2 ** 24 + 1,
                    beta2=0.999, rule_ids=("AAWV2-VAL-010",),
                    note="2^24 + 1 rounds to 2^24 in float32 before the + 1")
    yield with_step(make_call("step-0d", (2, 64), "float32", seed=644), 4, shape=(),
                    ).with_(rule_ids=BASE_RULES + ("AAWV2-VAL-017",))
    yield with_step(make_call("step-1x1", (2, 64), "float32", seed=645), 4, shape=(1, 1),
                    ).with_(rule_ids=BASE_RULES + ("AAWV2-VAL-017",))
    yield make_call("step-minus-one", (2, 64), "float32", seed=646, step=-1,
                    note="t = 0: 1 - beta1^0 = 0, the update divides by zero")
    # hyper-parameters
    yield make_call("attr-beta2-float32-rounding", (2, 64), "float32", seed=650, beta2=0.999999,
                    beta1=0.99999991, lr=0.30000000000000004, step=0, rule_ids=("AAWV2-VAL-011",),
                    note="beta2 = 0.999999 is float 0.99999899: 1 - beta2 moves by 1.3%")
    yield make_call("weight-decay-negative", (2, 64), "float32", seed=651, weightDecay=-0.5, lr=0.1,
                    rule_ids=("AAWV2-VAL-004",))
    yield make_call("weight-decay-large", (2, 64), "float32", seed=652, weightDecay=0.5, lr=0.1,
                    var=np.full((2, 64), 2.0), rule_ids=("AAWV2-VAL-004",))
    yield make_call("beta1-above-1.5", (2, 64), "float32", seed=653, beta1=2.0,
                    rule_ids=("AAWV2-VAL-001", "AAWV2-VAL-011"),
                    note="w = 1 - beta1 = -1: torch's lerp takes its second branch (|w| >= 0.5)")
    yield make_call("eps-large", (2, 64), "float32", seed=654, eps=1e-2, step=0)
    yield make_call("first-step-from-zero", (2, 64), "float32", seed=655, step=0, m=np.zeros((2, 64)),
                    v=np.zeros((2, 64)))
    # layouts
    base = make_call("noncontiguous", (6, 40), "float32", seed=660, amsgrad=True)
    yield as_noncontiguous(base.with_(case_id="noncontig-transposed"), ("varRef", "mRef", "grad"),
                           "transposed")
    yield as_noncontiguous(base.with_(case_id="noncontig-strided"), ("vRef", MAX_GRAD_NORM, "step"),
                           "strided")
    yield as_noncontiguous(base.with_(case_id="noncontig-offset"), ("varRef", "vRef", "grad", "step"),
                           "offset")
    yield as_noncontiguous(make_call("noncontig-bf16-mixed", (6, 40), {"varRef": "bfloat16",
                                                                      "grad": "float32"},
                                     seed=661), ("varRef", "grad"), "transposed")
    yield make_call("format-nchw", (2, 3, 4, 5), "float32", seed=662, rule_ids=("AAWV2-VAL-015",)
                    ).with_tensor("varRef", TensorArg.from_array(
                        np.random.default_rng(662).standard_normal((2, 3, 4, 5)), DT.FLOAT, F.NCHW))
    yield make_call("format-fractal-nz", (32, 32), "float16", seed=664,
                    note="a private format: accepted (no format check), values outside the contract"
                    ).with_tensor("grad", TensorArg.from_array(
                        np.random.default_rng(664).standard_normal((32, 32)) * 0.01, DT.FLOAT16, F.FRACTAL_NZ))
    yield make_call("rank8", (1, 2, 1, 2, 1, 2, 2, 5), "float16", seed=663, rule_ids=("AAWV2-VAL-017",))
    # empty
    for product_free in ("float32", "bfloat16"):
        yield make_call(f"empty-{product_free}", (0, 16), product_free, seed=670, amsgrad=True,
                        rule_ids=("AAWV2-VAL-013",))
    # NaN and Inf
    g = np.random.default_rng(680).standard_normal((2, 64)) * 0.01
    g[0, 3], g[0, 10], g[1, 7] = np.nan, np.inf, -np.inf
    for dtype in DTYPES:
        yield make_call(f"nonfinite-grad-{dtype}", (2, 64), dtype, seed=680, grad=g, amsgrad=True,
                        rule_ids=("AAWV2-VAL-012",))
    mgn = np.random.default_rng(681).uniform(0, 1e-4, (2, 64))
    mgn[1, 1] = np.nan
    yield make_call("nonfinite-max-grad-norm", (2, 64), "float32", seed=681, amsgrad=True, mgn=mgn,
                    rule_ids=("AAWV2-VAL-012", "AAWV2-VAL-005"))
    yield make_call("v-negative", (2, 64), "float32", seed=682,
                    v=-np.random.default_rng(682).uniform(0, 1e-4, (2, 64)),
                    note="cann: not checked, sqrt of a negative v is NaN")
    yield make_call("float16-overflow-free-near-max", (2, 64), "float16", seed=683,
                    var=np.full((2, 64), 60000.0), lr=1e-3, weightDecay=0.01, rule_ids=("AAWV2-VAL-009",))
    yield from defect_cases()


def defect_cases() -> Iterator[Case]:
    """Calls that each exercise one defect class in another dtype, shape or attribute than the
    cases above, so that at least three single calls fail each (tests/test_mutants.py)."""
    yield make_call("weight-decay-negative-bfloat16", (3, 50), "bfloat16", seed=690, weightDecay=-0.5,
                    lr=0.1, rule_ids=("AAWV2-VAL-004",))
    yield make_call("weight-decay-negative-float16-amsgrad", (4, 24), "float16", seed=691,
                    weightDecay=-0.25, lr=0.1, amsgrad=True, rule_ids=("AAWV2-VAL-004",))
    yield make_call("eps-large-bfloat16-amsgrad", (3, 50), "bfloat16", seed=692, eps=1e-2, step=0,
                    amsgrad=True, rule_ids=("AAWV2-VAL-002",))
    yield make_call("eps-large-float16-maximize", (5, 20), "float16", seed=693, eps=5e-3, step=3,
                    maximize=True, rule_ids=("AAWV2-VAL-002",))
    yield make_call("step-2147483648-float16", (3, 40), "float16", seed=694, step=2 ** 31,
                    beta1=0.5, beta2=0.75, rule_ids=("AAWV2-VAL-003", "AAWV2-VAL-010"),
                    note="2^31 read as a 32-bit integer wraps to -2^31")
    yield make_call("step-4294967299-bfloat16-amsgrad", (2, 33), "bfloat16", seed=695, step=2 ** 32 + 3,
                    beta1=0.5, beta2=0.75, amsgrad=True, rule_ids=("AAWV2-VAL-003", "AAWV2-VAL-010"),
                    note="2^32 + 3 read as a 32-bit integer is 3")
    for i, (shape, dtype) in enumerate((((3, 50), "float16"), ((2, 17), "bfloat16"))):
        yield make_call(f"amsgrad-null-max-grad-norm-{dtype}", shape, dtype, seed=696 + i, amsgrad=True,
                        max_grad_norm=False, rule_ids=("AAWV2-NULL-004",),
                        note="amsgrad with a NULL maxGradNorm: 161001")
    for i, (shape, other, dtype) in enumerate((((3, 50), (3, 49), "float32"), ((2, 17), (17, 2), "float16"))):
        case = make_call(f"max-grad-norm-shape-{'x'.join(map(str, other))}-no-amsgrad-{dtype}", shape,
                         dtype, seed=698 + i, max_grad_norm=True, rule_ids=("AAWV2-SHAPE-004",))
        mgn = TensorArg.from_array(np.random.default_rng(698 + i).uniform(0, 1e-4, other), DTYPES[dtype])
        yield case.with_tensor(MAX_GRAD_NORM, mgn)
    yield make_call("empty-float16-3x0", (3, 0), "float16", seed=700, rule_ids=("AAWV2-VAL-013",))
    yield make_call("empty-float32-1d-maximize", (0,), "float32", seed=701, maximize=True,
                    rule_ids=("AAWV2-VAL-013",))


# ---- sensitivity: realistic outputs for the sensitivity tables (reports/sensitivity.py) ----

def sensitivity_targets() -> tuple[list[dict], list[dict]]:
    """(targets, rounding rows): every float output of the vendor-distribution cases (amsgrad,
    maximize) under model-bound@3 and, for float32, the per-element bound of model-bound@1; the
    bf16 var and the exact bf16 ties of m cast otherwise on A2 and 950."""
    cases = list(table_cases("ci"))
    outputs = ("varRef", "mRef", "vRef", "maxGradNormOptionalRef")
    targets = [envelope_target(cases, f"vendor-{d}-1000-ams-max", "atlas-a2", o)
               for d in ("float32", "bfloat16") for o in outputs]
    case = table_case(cases, "vendor-float32-1000-ams-max")
    o = oracle_result(case, "cann", "atlas-a2")
    targets.append({"op": OP, "standard": "model-bound@1", "profile": "cann", "product": "atlas-a2",
                    "output": "varRef", "case_id": case.case_id, "dtype": "float32",
                    "expected": np.asarray(o.views["varRef"]), "aux": o.aux["varRef"]})
    both = ("atlas-a2", "ascend950")
    rounding = (envelope_rounding_rows(cases, "vendor-bfloat16-1000-ams-max", "varRef", both)
                + envelope_rounding_rows(cases, "bf16-exact-ties", "mRef", both))
    return targets, rounding
