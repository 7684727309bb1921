"""Tests of the torch backend: availability, bit-for-bit agreement with the NumPy oracle on
ApplyAdamWQuant calls of every var dtype, the FRACTAL_NZ_C0_32 layout on hand-worked examples, and
the statuses of rejected calls and of the runtime's readings (format rewrite, empty tensors)."""
from __future__ import annotations

import sys

import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from aclnn_conformance.backends.registry import load_backend  # noqa: E402
from aclnn_conformance.backends.torch_backend import TorchBackend  # noqa: E402
from aclnn_conformance.backends.torch_backend.apply_adam_w_quant import nearest_codes, sqrt_f32  # noqa: E402
from aclnn_conformance.backends.torch_backend.weight_quant_preprocess import nz_bytes, nz_codes  # noqa: E402
from aclnn_conformance.oracle.cases import oracle_result  # noqa: E402
from aclnn_conformance.spec.enums import AclDataType as DT  # noqa: E402
from aclnn_conformance.spec.enums import AclFormat as F  # noqa: E402
from aclnn_conformance.spec.enums import Status  # noqa: E402
from aclnn_conformance.spec.tensor import TensorArg  # noqa: E402
from aclnn_conformance.suites.calls import apply_adam_w_quant as aawq  # noqa: E402
from aclnn_conformance.suites.calls import weight_quant_preprocess as wqp  # noqa: E402

BACKEND = TorchBackend()
DTYPES = ("float32", "float16", "bfloat16")


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


# ---- availability ----

def test_available_with_torch():
    assert BACKEND.available() == (True, "")
    assert BACKEND.name == "torch"
    assert f"torch{torch.__version__}" in BACKEND.version
    assert "ascend950" in BACKEND.products() and "atlas-a2" in BACKEND.products()
    assert isinstance(load_backend("torch"), TorchBackend)


def test_unavailable_without_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)   # makes `import torch` raise ImportError
    ok, reason = TorchBackend().available()
    assert not ok
    assert reason == "torch is not installed (pip install torch==2.13.0)"


# ---- ApplyAdamWQuant against the oracle ----

def _aawq_cases(dtype: str):
    yield aawq.make_call(f"two-blocks-{dtype}", (2, 256), dtype, seed=1)
    yield aawq.make_call(f"partial-{dtype}", (3, 101), dtype, seed=2, qmaps="linspace", step=0)
    grad = np.random.default_rng(3).standard_normal(700) * 0.01
    grad[:256] = 0.0                                        # a block whose absmax becomes 0
    grad[300], grad[301], grad[650] = np.nan, np.inf, -np.inf
    yield aawq.make_call(f"zero-block-nonfinite-{dtype}", (700,), dtype, seed=3, grad=grad,
                         absmax_m=[0.0, 0.05, 0.02], absmax_v=[0.0, 1e-4, 1e-4])
    yield aawq.make_call(f"sign-fix-{dtype}", (2, 256), dtype, seed=4, qmaps="asymmetric",
                         weightDecay=-0.1, gnormScale=3.0)
    yield aawq.make_call(f"attributes-{dtype}", (513,), dtype, seed=5, qmaps="dyadic",
                         beta1=0.99999991, beta2=0.999999, lr=0.30000000000000004, step=2 ** 31 + 5,
                         weightDecay=0.7, eps=1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_adam_w_quant_matches_oracle_bit_for_bit(dtype):
    for case in _aawq_cases(dtype):
        result = BACKEND.run(case, "ascend950")
        assert result.status == 0, (case.case_id, result.message)
        want = oracle_result(case, "cann", "ascend950")
        for name, values in want.views.items():
            arg = case.tensor(name)
            got = np.asarray(arg.view_of(result.storages[name]))
            expected = np.asarray(values).reshape(arg.desc.shape).astype(got.dtype)
            assert _bits(got) == _bits(expected) or np.array_equal(got, expected, equal_nan=True), \
                f"{case.case_id}: {name} differs from the oracle"
        for name in ("grad", "qmapM", "qmapV", "step"):
            assert _bits(result.storages[name]) == _bits(case.tensor(name).storage)


def test_apply_adam_w_quant_writes_only_inside_views():
    case = aawq.make_call("strided", (3, 200), "bfloat16", seed=7)
    case = aawq.as_noncontiguous(case, ("varRef", "mRef", "absmaxMRef"), "strided")
    result = BACKEND.run(case, "atlas-a2")
    assert result.status == 0
    for name in ("varRef", "mRef", "absmaxMRef"):
        arg = case.tensor(name)
        outside = ~arg.view_mask()
        assert _bits(result.storages[name][outside]) == _bits(arg.storage[outside])


def test_nearest_codes_lowest_index_on_ties_and_nan():
    q = torch.tensor(np.arange(256, dtype=np.float32) / 128 - 1)   # exact midpoints exist
    mids = (q[:-1] + q[1:]) / 2
    x = torch.cat([mids, torch.tensor([float("nan"), float("inf"), -5.0, 5.0])])
    codes = nearest_codes(x, q)
    assert codes[:255].tolist() == list(range(255))               # the lower index wins a tie
    assert codes[255:].tolist() == [0, 0, 0, 255]                 # NaN -> 0; +inf: all inf -> 0


def test_sqrt_is_correctly_rounded():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(0, 1e-3, 200_000).astype(np.float32),
                        rng.integers(0, 2 ** 31, 200_000, dtype=np.uint32).view(np.float32),
                        np.array([0.0, -0.0, np.inf, 1e-45, 4.0], np.float32)])
    with np.errstate(invalid="ignore"):
        want = np.sqrt(x)
    assert _bits(sqrt_f32(torch.from_numpy(x)).numpy()) == _bits(want)


# ---- WeightQuantPreprocess: the NZ layout by hand ----

def test_nz_hand_example_2x2():
    """W (view {K=2, N=2}) = [[1, 2], [3, 4]]: NZ[0, 0, n0, k0] = W[k0, n0]."""
    w = torch.tensor([[[1, 2], [3, 4]]], dtype=torch.uint8)
    codes = nz_codes(w)
    assert codes.numel() == 1 * 1 * 16 * 32
    expected = torch.zeros(512, dtype=torch.uint8)
    expected[0], expected[1], expected[32], expected[33] = 1, 3, 2, 4
    assert torch.equal(codes, expected)
    packed = nz_bytes(w).reshape(-1)                       # device bytes: 16 per fractal row
    assert packed[0].item() == 0x31 and packed[16].item() == 0x42
    assert int(torch.count_nonzero(packed)) == 2


def test_nz_hand_example_k_blocks():
    """K = 34, N = 1: K splits into blocks of 32 in front of N; everything else is padding 0."""
    w = (torch.arange(34, dtype=torch.uint8) % 16).reshape(1, 34, 1)
    codes = nz_codes(w).reshape(2, 1, 16, 32)
    expected = torch.zeros(2, 1, 16, 32, dtype=torch.uint8)
    expected[0, 0, 0, :] = torch.arange(32) % 16
    expected[1, 0, 0, :2] = torch.tensor([0, 1])
    assert torch.equal(codes, expected)


def test_weight_quant_preprocess_call():
    """A whole call: the NZ storage from element 0, guard elements untouched, scale and bias copied."""
    k, n = 4, 3
    weight = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], dtype=np.uint8)   # {K, N}
    case = wqp.make_call("hand", k=k, n=n, weight=weight, bias="n")
    result = BACKEND.run(case, "ascend950")
    assert result.status == 0, result.message
    out = result.storages["outWeight"].view(np.uint8)
    nz = out[:512].reshape(16, 32)
    expected = np.zeros((16, 32), np.uint8)
    expected[:n, :k] = weight.T                                   # NZ[n0, k0] = W[k0, n0]
    np.testing.assert_array_equal(nz, expected)
    np.testing.assert_array_equal(out[512:], case.tensor("outWeight").storage.view(np.uint8)[512:])
    scale = case.tensor("weightScale")
    got_scale = case.tensor("outWeightScale").view_of(result.storages["outWeightScale"])
    assert _bits(np.asarray(got_scale)) == _bits(scale.values())
    assert _bits(result.storages["outBiasOptional"]) == _bits(case.tensor("biasOptional").storage)
    assert result.storages["outWeight"].dtype == np.dtype(ml_dtypes.float4_e2m1fn)


# ---- statuses ----

def test_statuses_of_rejected_calls():
    call = aawq.make_call("base", (2, 256), "float32", seed=1)
    assert BACKEND.run(call, "atlas-training").status == Status.ERR_INNER
    assert BACKEND.run(call.with_tensor("mRef", None), "atlas-a2").status == Status.ERR_PARAM_NULLPTR
    retyped = call.with_tensor("grad", call.tensor("grad").with_desc(dtype=DT.FLOAT16))
    assert BACKEND.run(retyped, "atlas-a3").status == Status.ERR_PARAM_INVALID
    short = call.with_tensor("absmaxMRef", TensorArg.from_array(np.ones(3), DT.FLOAT))
    assert BACKEND.run(short, "ascend950").status == Status.ERR_INNER_TILING_ERROR
    assert BACKEND.run(short, "atlas-a2").status == 0          # A2/A3 do not count absmax
    mm = wqp.make_call("mm", k=64, n=128, seed=1)
    assert BACKEND.run(mm, "atlas-a2").status == Status.ERR_RUNTIME_ERROR
    assert BACKEND.run(mm.with_(null_outputs=frozenset({"executor"})), "atlas-a2").status \
        == Status.ERR_INNER_NULLPTR
    assert BACKEND.run(mm.with_attrs(kGroupSize=64), "ascend950").status == Status.ERR_PARAM_INVALID


def test_runtime_statuses_of_apply_adam_w_quant():
    """The runtime's reading (notes apply_adam_w_quant.md section 10)."""
    call = aawq.make_call("base", (2, 256), "float32", seed=1)
    nd = BACKEND.run(call, "atlas-a2")
    for fmt in (F.NCL, F.NCDHW, F.NHWC, F.NCHW):                 # N1: taken as ND
        case = call
        for name in call.tensors:
            case = case.with_tensor(name, case.tensor(name).with_desc(format=fmt))
        got = BACKEND.run(case, "atlas-a2")
        assert got.status == 0, got.message
        assert all(got.storages[n].tobytes() == nd.storages[n].tobytes() for n in call.tensors)
    hwcn = call.with_tensor("step", call.tensor("step").with_desc(format=F.HWCN))
    assert BACKEND.run(hwcn, "ascend950").status == Status.ERR_PARAM_INVALID
    no_absmax = call.with_tensor("absmaxVRef", TensorArg.from_array(np.zeros(0), DT.FLOAT))
    assert BACKEND.run(no_absmax, "atlas-a3").status == 0      # never checked on A2/A3
    assert BACKEND.run(no_absmax, "ascend950").status == Status.ERR_INNER_TILING_ERROR
    empty_var = aawq.make_call("empty", (0, 256), "float32", seed=1).with_tensor(
        "absmaxMRef", TensorArg.from_array(np.ones(1), DT.FLOAT))
    got = BACKEND.run(empty_var, "atlas-a2")                   # T-7, after the other tiling checks
    assert got.status == Status.ERR_INNER_TILING_ERROR and "empty" in got.message
    step_1x1 = empty_var.with_tensor("step", TensorArg.from_array(np.array([[0]]), DT.INT64))
    assert "step" in BACKEND.run(step_1x1, "atlas-a2").message
    wrong_count = call.with_tensor("absmaxMRef", TensorArg.from_array(np.ones(3), DT.FLOAT)).with_tensor(
        "step", TensorArg.from_array(np.array([[0]]), DT.INT64))
    assert "absmaxMRef" in BACKEND.run(wrong_count, "ascend950").message   # T35-6 before T-6
