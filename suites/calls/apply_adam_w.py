"""Calls of aclnnApplyAdamW: a builder of valid calls, non-contiguous layouts, and the table of cases."""
from __future__ import annotations

import math
from typing import Iterator, Sequence

import numpy as np

from aclnn_conformance.judging.sensitivity import (envelope_rounding_rows, envelope_target)
from aclnn_conformance.spec.apply_adam_w import MAX_GRAD_NORM, OP, SCALARS
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.tensor import TensorArg
from aclnn_conformance.suites.calls import as_noncontiguous as noncontiguous

DTYPES = {"float32": DT.FLOAT, "float16": DT.FLOAT16, "bfloat16": DT.BF16}
# Value rules every valid, non-empty call exercises.
CORE_RULES = ("AAW-VAL-002", "AAW-VAL-003", "AAW-VAL-004", "AAW-VAL-005", "AAW-VAL-008",
              "AAW-VAL-014", "AAW-VAL-016")
# make_call keyword -> tensor name of the seven hyper-parameters
SCALAR_KEYWORDS = {"beta1_power": "beta1Power", "beta2_power": "beta2Power", "lr": "lr",
                   "weightDecay": "weightDecay", "beta1": "beta1", "beta2": "beta2", "eps": "eps"}


def make_call(case_id: str, shape: Sequence[int] = (3, 40), dtype: str = "float32", seed: int = 0,
              step: int = 10, amsgrad: bool = False, maximize: bool = False,
              max_grad_norm: bool | None = None, lr: float = 1e-3, weightDecay: float = 0.01,
              beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
              beta1_power: float | None = None, beta2_power: float | None = None,
              scalar_shape: Sequence[int] = (1,), var=None, m=None, v=None, grad=None,
              mgn=None, rule_ids: tuple[str, ...] = (), origin: str = "table", note: str = "") -> Case:
    """A valid, contiguous call at step ``step`` (t: the powers passed are beta^(t-1) unless given);
    every array not given is drawn from ``seed``. ``max_grad_norm``: pass the optional tensor
    (default: exactly when ``amsgrad``)."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in shape)
    draw = {"var": lambda: rng.standard_normal(shape) * 0.5,
            "m": lambda: rng.standard_normal(shape) * 1e-2,
            "v": lambda: rng.uniform(0, 1e-3, shape),
            "grad": lambda: rng.standard_normal(shape) * 3e-2,
            "mgn": lambda: rng.uniform(0, 2e-3, shape)}
    given = {"var": var, "m": m, "v": v, "grad": grad, "mgn": mgn}
    arrays = {k: draw[k]() if given[k] is None else np.asarray(given[k], np.float64).reshape(shape)
              for k in draw}
    if beta1_power is None:
        beta1_power = beta1 ** (step - 1)
    if beta2_power is None:
        beta2_power = beta2 ** (step - 1)
    scalars = {"beta1Power": beta1_power, "beta2Power": beta2_power, "lr": lr,
               "weightDecay": weightDecay, "beta1": beta1, "beta2": beta2, "eps": eps}
    dt = DTYPES[dtype]
    with_mgn = amsgrad if max_grad_norm is None else max_grad_norm
    tensors = {"varRef": TensorArg.from_array(arrays["var"], dt),
               "mRef": TensorArg.from_array(arrays["m"], dt),
               "vRef": TensorArg.from_array(arrays["v"], dt),
               **{n: TensorArg.from_array(np.full(tuple(scalar_shape), scalars[n]), dt)
                  for n in SCALARS},
               "grad": TensorArg.from_array(arrays["grad"], dt),
               MAX_GRAD_NORM: TensorArg.from_array(arrays["mgn"], dt) if with_mgn else None}
    rules = CORE_RULES + (("AAW-VAL-001",) if maximize else ()) + (
        ("AAW-VAL-006",) if amsgrad else ("AAW-VAL-007",) if with_mgn else ())
    if math.prod(shape) == 0:
        rules = ("AAW-VAL-010",)
    return Case(op=OP, case_id=case_id, tensors=tensors,
                attrs={"amsgrad": bool(amsgrad), "maximize": bool(maximize)},
                rule_ids=tuple(dict.fromkeys(rules + tuple(rule_ids))), origin=origin, seed=seed,
                note=note)


def base_call() -> Case:
    """The valid call one-fault cases start from: float32, no maxGradNorm."""
    return make_call("base", (3, 40), "float32", seed=1)


def amsgrad_call() -> Case:
    return make_call("base-amsgrad", (3, 40), "float32", seed=2, amsgrad=True)


def unused_max_grad_norm_call() -> Case:
    return make_call("base-mgn-unused", (3, 40), "float32", seed=3, max_grad_norm=True)


FAULT_BASES = {"": base_call, "amsgrad": amsgrad_call, "mgn-unused": unused_max_grad_norm_call}


def as_noncontiguous(case: Case, names: Sequence[str], how: str) -> Case:
    """The same values laid out through strides (suites.calls.as_noncontiguous), rule AAW-VAL-011."""
    return noncontiguous(case, names, how, "AAW-VAL-011")


def with_format(case: Case, names: Sequence[str], fmt: F) -> Case:
    for name in names:
        case = case.with_tensor(name, case.tensor(name).with_desc(format=fmt))
    return case


# ---- the table ----

def doc_example() -> Case:
    """The document's example: [2,2] float32, inputs 0..3, beta powers 0.431/0.992, amsgrad and
    maximize true."""
    x = np.arange(4.0).reshape(2, 2)
    return make_call("doc-example", (2, 2), "float32", amsgrad=True, maximize=True, lr=0.001,
                     weightDecay=0.01, beta1=0.9, beta2=0.999, eps=1e-8, beta1_power=0.431,
                     beta2_power=0.992, var=x, m=x, v=x, grad=x, mgn=x,
                     note="the document's example call")


def _vendor_golden_call(dtype: str, amsgrad: bool, maximize: bool, n: int, seed: int) -> Case:
    """The distribution the vendor golden was checked over (notes 7): random betas and powers,
    lr 1e-8..1e-1, wd 0..0.5, eps 1e-10..1e-6."""
    rng = np.random.default_rng(seed)
    t = int(rng.integers(1, 2000))
    b1, b2 = float(rng.uniform(0.5, 0.99)), float(rng.uniform(0.9, 0.9999))
    return make_call(f"vendor-{dtype}-ams{int(amsgrad)}-max{int(maximize)}-n{n}", (n,), dtype,
                     seed=seed, step=t, amsgrad=amsgrad, maximize=maximize,
                     lr=float(10.0 ** rng.uniform(-8, -1)), weightDecay=float(rng.uniform(0, 0.5)),
                     beta1=b1, beta2=b2, eps=float(10.0 ** rng.uniform(-10, -6)),
                     note="vendor golden distribution")


def table_cases(tier: str = "ci") -> Iterator[Case]:
    """The table-driven cases; ``full`` adds more sizes of the vendor distribution."""
    yield doc_example()
    sizes = (37, 1000, 5000) if tier == "full" else (1000,)
    seed = 100
    for dtype in DTYPES:
        for amsgrad in (False, True):
            for maximize in (False, True):
                for n in sizes:
                    seed += 1
                    yield _vendor_golden_call(dtype, amsgrad, maximize, n, seed)
    for dtype in DTYPES:
        for shape in ((1,), (7, 33), (2, 3, 4, 5)):
            yield make_call(f"shape{'x'.join(map(str, shape))}-{dtype}", shape, dtype, seed=11)
    yield make_call("rank8", (1, 2, 1, 2, 1, 2, 2, 5), "float32", seed=8)
    yield make_call("rank0-unchecked", (), "float32", seed=10, amsgrad=True,
                    note="a 0-d varRef: no rank check (erratum E12)")
    yield make_call("rank9-unchecked", (1, 1, 2, 1, 2, 1, 2, 2, 5), "float32", seed=9,
                    note="no rank check (erratum E12)")
    base = make_call("noncontiguous", (6, 10), "float32", seed=12, amsgrad=True)
    yield as_noncontiguous(base.with_(case_id="noncontig-transposed"),
                           ("varRef", "mRef", "vRef", "grad", MAX_GRAD_NORM), "transposed")
    yield as_noncontiguous(base.with_(case_id="noncontig-strided"),
                           ("varRef", "vRef", "beta1Power", "eps"), "strided")
    yield as_noncontiguous(base.with_(case_id="noncontig-offset"),
                           ("mRef", "grad", MAX_GRAD_NORM, "lr", "beta2Power"), "offset")
    yield as_noncontiguous(make_call("noncontig-bfloat16", (6, 10), "bfloat16", seed=13),
                           ("varRef", "mRef", "vRef", "grad"), "transposed")
    for dtype in DTYPES:
        yield make_call(f"empty-{dtype}", (0, 4), dtype, seed=14)
    yield make_call("empty-amsgrad", (3, 0), "float32", seed=15, amsgrad=True)
    grad = np.random.default_rng(16).standard_normal((4, 8)) * 0.03
    grad[0, 1], grad[1, 2], grad[2, 3] = np.nan, np.inf, -np.inf
    for dtype in DTYPES:
        yield make_call(f"nonfinite-grad-{dtype}", (4, 8), dtype, seed=16, grad=grad,
                        rule_ids=("AAW-VAL-009",))
    mgn = np.random.default_rng(17).uniform(0, 1e-3, (4, 8))
    mgn[3, 3] = np.nan
    yield make_call("nonfinite-max-grad-norm", (4, 8), "float32", seed=17, amsgrad=True, mgn=mgn,
                    rule_ids=("AAW-VAL-009",))
    for step in (1, 2, 10_000, 1_000_000):
        yield make_call(f"step-{step}", (4, 64), "float32", seed=18, step=step,
                        note="beta powers beta^(t-1)")
    yield make_call("step-1-bf16", (4, 64), "bfloat16", seed=19, step=1, beta2=0.99)
    yield make_call("beta2-rounds-to-1-bfloat16", (4, 64), "bfloat16", seed=19, step=1,
                    note="bf16 beta2 = 0.999 is 1.0: 1 - beta2^t = 0, values not judged")
    yield make_call("beta-powers-not-updated", (4, 64), "float32", seed=20, beta1=0.5, beta2=0.6,
                    beta1_power=0.25, beta2_power=0.36,
                    note="t = 3: the kernel multiplies the powers by beta once")
    for wd in (0.0, -0.5, 0.5):
        yield make_call(f"weight-decay-{wd:g}", (4, 64), "float32", seed=21, weightDecay=wd,
                        lr=0.1, var=np.full((4, 64), 2.0))
    yield make_call("eps-large", (4, 64), "float32", seed=22, eps=1e-2, step=1)
    yield make_call("lr-large-bfloat16", (4, 64), "bfloat16", seed=23, lr=0.05, weightDecay=0.3)
    yield make_call("hyper-parameters-float16", (4, 64), "float16", seed=24, lr=1e-3,
                    beta2=0.999, eps=1e-7, note="the hyper-parameters keep their float16 values")
    yield make_call("hyper-parameters-bfloat16", (4, 64), "bfloat16", seed=25, lr=1e-3,
                    beta1=0.95, beta2=0.999, note="bf16 lr = 1e-3 is 0.00100040435791015625")
    for dtype in DTYPES:
        yield make_call(f"amsgrad-max-{dtype}", (4, 64), dtype, seed=26, amsgrad=True,
                        mgn=np.full((4, 64), 5e-3), note="maxGradNorm above v: the max decides")
    yield make_call("max-grad-norm-unused", (4, 64), "float32", seed=27, max_grad_norm=True,
                    mgn=np.full((4, 64), 1.0))
    yield make_call("maximize-no-amsgrad", (4, 64), "float32", seed=28, maximize=True, lr=0.05)
    yield make_call("scalars-0d", (4, 64), "float32", seed=29, scalar_shape=(),
                    rule_ids=("AAW-VAL-012",))
    yield make_call("scalars-1x1", (4, 64), "float16", seed=30, scalar_shape=(1, 1),
                    rule_ids=("AAW-VAL-012",))
    yield with_format(make_call("format-nchw", (2, 3, 4, 5), "float32", seed=31, amsgrad=True),
                      ("varRef", "grad", "lr"), F.NCHW).with_(
        rule_ids=CORE_RULES + ("AAW-VAL-006", "AAW-VAL-013"))
    yield with_format(make_call("format-nc1hwc0", (1, 1, 2, 2, 16), "float32", seed=32),
                      ("varRef",), F.NC1HWC0).with_(note="a private format: accepted, not judged")
    yield make_call("v-negative", (4, 64), "float32", seed=33,
                    v=-np.random.default_rng(33).uniform(0, 1e-3, (4, 64)),
                    note="sqrt of a negative v/(1-beta2^t): NaN, nothing checks v")
    yield make_call("cancellation-m", (4, 64), "float32", seed=34, beta1=0.5,
                    m=np.full((4, 64), 0.01), grad=np.full((4, 64), -0.01) * (1 + 1e-6),
                    note="m*beta1 and (beta1-1)*g nearly cancel")
    yield from defect_cases()


def defect_cases() -> Iterator[Case]:
    """Calls that each exercise one defect class in another dtype, shape or attribute than the
    cases above, so that at least three single calls fail each (tests/test_mutants.py)."""
    for dtype, wd, shape in (("float16", -0.5, (3, 50)), ("bfloat16", -0.25, (5, 20))):
        yield make_call(f"weight-decay-negative-{dtype}", shape, dtype, seed=40, weightDecay=wd,
                        lr=0.1, var=np.full(shape, 2.0))
    for i, (shape, dtype) in enumerate((((3, 50), "float16"), ((2, 17), "bfloat16"))):
        yield make_call(f"amsgrad-null-max-grad-norm-{dtype}", shape, dtype, seed=41 + i, amsgrad=True,
                        max_grad_norm=False, rule_ids=("AAW-NULL-012",),
                        note="amsgrad with a NULL maxGradNorm: 161001")
    base = make_call("max-grad-norm-other-dtype-no-amsgrad", (3, 50), "float16", seed=43,
                     max_grad_norm=True, rule_ids=("AAW-DTYPE-024",))
    yield base.with_tensor(MAX_GRAD_NORM, TensorArg.from_array(
        np.random.default_rng(43).uniform(0, 1e-3, (3, 50)), DT.FLOAT))
    base = make_call("max-grad-norm-other-shape-no-amsgrad", (2, 17), "bfloat16", seed=44,
                     max_grad_norm=True, rule_ids=("AAW-SHAPE-004",))
    yield base.with_tensor(MAX_GRAD_NORM, TensorArg.from_array(
        np.random.default_rng(44).uniform(0, 1e-3, (17, 2)), DT.BF16))
    yield make_call("scalars-0d-bfloat16-amsgrad", (3, 50), "bfloat16", seed=45, scalar_shape=(),
                    amsgrad=True, rule_ids=("AAW-VAL-012",))
    yield with_format(make_call("format-nhwc-float16", (2, 4, 4, 3), "float16", seed=46),
                      ("varRef", "mRef", "beta1"), F.NHWC).with_(rule_ids=CORE_RULES + ("AAW-VAL-013",))
    yield with_format(make_call("format-ncdhw-bfloat16", (1, 2, 3, 4, 5), "bfloat16", seed=47,
                                maximize=True), ("grad", "vRef", "eps"), F.NCDHW).with_(
        rule_ids=CORE_RULES + ("AAW-VAL-001", "AAW-VAL-013"))
    yield as_noncontiguous(make_call("noncontig-strided-float16", (6, 10), "float16", seed=48,
                                     amsgrad=True), ("varRef", "mRef", MAX_GRAD_NORM, "lr"), "strided")


# ---- sensitivity: realistic outputs for the sensitivity tables (reports/sensitivity.py) ----

def sensitivity_targets() -> tuple[list[dict], list[dict]]:
    """(targets, rounding rows): var, m, v of the vendor-distribution cases under model-bound@3 on
    Ascend 950; the bf16 var cast otherwise."""
    cases = list(table_cases("ci"))
    targets = [envelope_target(cases, f"vendor-{d}-ams1-max1-n1000", "ascend950", o)
               for d in ("float32", "bfloat16") for o in ("varRef", "mRef", "vRef")]
    return targets, envelope_rounding_rows(cases, "vendor-bfloat16-ams1-max1-n1000", "varRef",
                                           ("ascend950",))
