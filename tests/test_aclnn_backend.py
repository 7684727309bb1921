"""The aclnn backend's marshalling, against stand-in CANN libraries built from tests/fake_cann.

The stand-in exports the ACL runtime, aclCreateTensor and the two operators' two-phase functions
spread over four libraries as a toolkit spreads them, records every call it receives, keeps
"device" memory in host memory and, on a launch, writes a known byte pattern into the operator's
first output (aclnnAdd, aclnnPowTensorScalar and aclnnLtScalar compute their documented results). Where the runtime's behaviour is known from its source (the accumulating error text,
device references and the broken context after a fault, the launch's workspace checks,
WeightQuantPreprocess's early checks) the stand-in follows it. The tests check what the backend
passes across the C boundary and what it reads back, the product of each real SoC name, the error
text per call, the recovery after a fault and the device check. Without a C compiler the tests
that need the stand-in are skipped.
"""
from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from aclnn_conformance.backends.aclnn import AclnnBackend, libraries
from aclnn_conformance.backends.aclnn.backend import select_device
from aclnn_conformance.backends.aclnn.bindings import MissingSymbol
from aclnn_conformance.plugin import EXIT_NOTHING_JUDGED
from aclnn_conformance.backends.call_layer import to_raw_call
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc
from aclnn_conformance.suites.calls import apply_adam_w_quant as aawq_calls
from aclnn_conformance.reports.certify import PLAIN_ASSERTS
from tests.representative import REPRESENTATIVE_OPS

ROOT = Path(__file__).resolve().parent.parent
FAKE_DIR = Path(__file__).resolve().parent / "fake_cann"
FAKE_ENV = ("FAKE_CANN_SOC", "FAKE_CANN_DEVICE_COUNT", "FAKE_CANN_STATUS", "FAKE_CANN_WORKSPACE",
            "FAKE_CANN_LAUNCH_STATUS", "FAKE_CANN_SYNC_STATUS")
CANN_ENV = ("ACLNN_LIBRARIES", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_CUSTOM_OPP_PATH",
            "ACLNN_DEVICE_ID", "PYTEST_XDIST_WORKER")
A2_SOC, A950_SOC = "Ascend910B1", "Ascend950PR_9599"


def _load_build():
    spec = importlib.util.spec_from_file_location("fake_cann_build", FAKE_DIR / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _load_build()
needs_cc = pytest.mark.skipif(build.compiler() is None, reason="no C compiler (gcc/cc) to build "
                                                               "the stand-in CANN libraries")


def pattern(n: int) -> np.ndarray:
    """The bytes the stand-in's launch writes over an output's storage."""
    return ((np.arange(n, dtype=np.int64) * 37 + 11) % 256).astype(np.uint8)


@pytest.fixture(scope="module")
def fake_root(tmp_path_factory) -> Path:
    if build.compiler() is None:
        pytest.skip("no C compiler (gcc/cc) to build the stand-in CANN libraries")
    root = tmp_path_factory.mktemp("fake_toolkit")
    build.build_split(root)
    (root / "version.cfg").write_text("# stand-in toolkit\nVersion=8.9.RC9\n")
    return root


@pytest.fixture(scope="module")
def fake_paths(fake_root) -> list[str]:
    return [str(fake_root / "lib64" / name) for name, _ in build.SPLIT_PARTS]


class Fake:
    """The stand-in's query API."""

    def __init__(self, runtime_path: str):
        self.lib = ctypes.CDLL(runtime_path, mode=ctypes.RTLD_GLOBAL)
        self.lib.fake_call_log.restype = ctypes.c_char_p

    def reset(self) -> None:
        self.lib.fake_reset()

    def events(self, ev: str | None = None) -> list[dict]:
        log = json.loads(self.lib.fake_call_log().decode())
        return [e for e in log if ev is None or e["ev"] == ev]

    def one(self, ev: str) -> dict:
        found = self.events(ev)
        assert len(found) == 1, f"{len(found)} {ev} events"
        return found[0]

    def live(self) -> tuple[int, int]:
        return self.lib.fake_live_tensors(), self.lib.fake_live_allocations()


@pytest.fixture
def clean_env(monkeypatch):
    for var in FAKE_ENV + CANN_ENV:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


@pytest.fixture
def fake(fake_paths, clean_env) -> Fake:
    f = Fake(fake_paths[0])
    f.reset()
    return f


@pytest.fixture
def backend(fake_paths, fake) -> AclnnBackend:
    b = AclnnBackend(libraries=fake_paths)
    assert b.available() == (True, "")
    fake.reset()
    return b


def wqp_case() -> Case:
    """The document's MM example call: K=64, N=128, no offset, no bias."""
    try:
        from aclnn_conformance.suites.calls.weight_quant_preprocess import make_call
    except ImportError:
        make_call = None
    if make_call is not None:
        return make_call("marshal-wqp", k=64, n=128, seed=3)
    rng = np.random.default_rng(3)

    def codes(desc: TensorDesc, dtype, hi: int, extra: int = 0) -> TensorArg:
        raw = rng.integers(0, hi, desc.storage_numel + extra, dtype=np.uint8)
        from aclnn_conformance.spec.dtypes import numpy_dtype
        return TensorArg(desc, raw.view(numpy_dtype(dtype)))

    tensors = {
        "weight": codes(TensorDesc(DT.FLOAT4_E2M1, (64, 128), (1, 64), 0, F.ND, (128, 64)),
                        DT.FLOAT4_E2M1, 16),
        "weightScale": codes(TensorDesc(DT.FLOAT8_E8M0, (1, 128, 2), (2, 2, 1), 0, F.ND, (128, 1, 2)),
                             DT.FLOAT8_E8M0, 200),
        "weightOffsetOptional": None, "biasOptional": None,
        "outWeight": codes(TensorDesc(DT.FLOAT4_E2M1, (64, 128), (128, 1), 0, F.FRACTAL_NZ_C0_32,
                                      (2, 8, 16, 32)), DT.FLOAT4_E2M1, 16, extra=64),
        "outWeightScale": codes(TensorDesc(DT.FLOAT8_E8M0, (1, 128, 2), (2, 2, 1), 0, F.ND,
                                           (128, 1, 2)), DT.FLOAT8_E8M0, 200),
        "outWeightOffsetOptional": None, "outBiasOptional": None,
    }
    return Case(op="weight_quant_preprocess", case_id="marshal-wqp", tensors=tensors,
                attrs={"xDtype": DT.FLOAT8_E4M3FN, "xScaleDtype": DT.FLOAT8_E8M0, "kGroupSize": 32})


AAWQ_ATTRS = {"lr": 0.0123456789012345, "beta1": 0.8765432101234567, "beta2": 0.99912345678,
              "weightDecay": 0.0314159265358979, "eps": 1.2345678901234567e-08,
              "gnormScale": 0.7071067811865476, "quantModeOptional": "BLOCKWISE", "blockSize": 256}


# ---------------------------------------------------------------- without CANN, library search


def test_unavailable_without_cann(clean_env, tmp_path):
    clean_env.setattr(libraries, "DEFAULT_TOOLKIT", str(tmp_path / "no-toolkit"))
    clean_env.setenv("LD_LIBRARY_PATH", str(tmp_path / "empty"))
    b = AclnnBackend()
    ok, reason = b.available()
    assert not ok
    assert "\n" not in reason
    for word in ("libascendcl.so", "libopapi.so", "ASCEND_HOME_PATH (unset)",
                 "ASCEND_TOOLKIT_HOME (unset)", f"LD_LIBRARY_PATH={tmp_path / 'empty'}",
                 str(tmp_path / "no-toolkit" / "lib64") + " (absent)", "ACLNN_LIBRARIES"):
        assert word in reason
    assert b.products() == ()
    assert b.environment() == {}
    assert b.version == "unknown"


def test_unavailable_names_the_missing_library(clean_env, tmp_path):
    lib64 = tmp_path / "toolkit" / "lib64"
    lib64.mkdir(parents=True)
    (lib64 / "libascendcl.so").write_bytes(b"")
    clean_env.setattr(libraries, "DEFAULT_TOOLKIT", str(tmp_path / "none"))
    clean_env.setenv("ASCEND_HOME_PATH", str(tmp_path / "toolkit"))
    found = libraries.find_libraries()
    assert not found.ok and found.missing and "libopapi.so" in found.missing[0]
    assert "libascendcl.so" not in found.reason().split(" not found")[0]
    assert f"ASCEND_HOME_PATH={lib64}" in found.reason()


def test_library_search_order(tmp_path):
    def toolkit(name: str, libs: list[str]) -> Path:
        root = tmp_path / name
        (root / "lib64").mkdir(parents=True)
        for lib in libs:
            (root / "lib64" / lib).write_bytes(b"")
        return root

    home = toolkit("home", ["libascendcl.so"])
    tk = toolkit("tk", ["libascendcl.so", "libopapi.so", "libnnopbase.so"])
    ld = toolkit("ld", ["libopapi_math.so", "libopapi.so"])
    vendor = tk / "opp" / "vendors" / "acme" / "op_api" / "lib"
    vendor.mkdir(parents=True)
    (vendor / "libcust_opapi.so").write_bytes(b"")
    env = {"ASCEND_HOME_PATH": str(home), "ASCEND_TOOLKIT_HOME": str(tk),
           "LD_LIBRARY_PATH": f"{ld / 'lib64'}:{tmp_path / 'missing'}"}
    found = libraries.find_libraries(env)
    assert found.ok, found.reason()
    assert found.libraries == (str(home / "lib64" / "libascendcl.so"),
                               str(tk / "lib64" / "libnnopbase.so"),
                               str(tk / "lib64" / "libopapi.so"),
                               str(ld / "lib64" / "libopapi_math.so"),
                               str(vendor / "libcust_opapi.so"))
    # an explicit list replaces the search, directories contribute the known names they hold
    override = libraries.find_libraries({**env, "ACLNN_LIBRARIES": f"{ld / 'lib64'}:/x/libfoo.so"})
    assert override.override and override.libraries == (str(ld / "lib64" / "libopapi.so"),
                                                        str(ld / "lib64" / "libopapi_math.so"))
    assert "/x/libfoo.so (absent)" in ";".join(override.searched)
    nothing = libraries.find_libraries({"ACLNN_LIBRARIES": "/nowhere"})
    assert not nothing.ok and "ACLNN_LIBRARIES" in nothing.reason()


@pytest.mark.parametrize("name,text,expected", [
    ("version.cfg", "Version=8.1.RC1\n", "8.1.RC1"),
    ("x86_64-linux/ascend_toolkit_install.info", "package_name=Ascend-cann-toolkit\nversion=8.0.0\n",
     "8.0.0"),
    ("version.cfg", "# comment\nruntime_running_version=[7.0.0.5.242:7.0.0]\n", "7.0.0.5.242"),
])
def test_toolkit_version(tmp_path, name, text, expected):
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    assert libraries.toolkit_version([str(tmp_path)]) == expected
    assert libraries.toolkit_version([str(tmp_path / "none")]) is None


def test_select_device():
    assert select_device(3, {"ACLNN_DEVICE_ID": "5", "PYTEST_XDIST_WORKER": "gw2"}, 8) == (3, "option")
    assert select_device(None, {"ACLNN_DEVICE_ID": "5", "PYTEST_XDIST_WORKER": "gw2"}, 8)[0] == 5
    assert select_device(None, {"PYTEST_XDIST_WORKER": "gw2"}, 8)[0] == 2
    assert select_device(None, {"PYTEST_XDIST_WORKER": "gw10"}, 8)[0] == 2
    assert select_device(None, {"PYTEST_XDIST_WORKER": "gw10"}, None)[0] == 10
    assert select_device(None, {}, 8) == (0, "default")


# ---------------------------------------------------------------- against the stand-in


@needs_cc
def test_discovered_through_ascend_home_path(fake_root, fake, clean_env):
    clean_env.setenv("ASCEND_HOME_PATH", str(fake_root))
    clean_env.setattr(libraries, "DEFAULT_TOOLKIT", str(fake_root / "none"))
    b = AclnnBackend()
    assert b.available() == (True, "")
    assert b.products() == ("atlas-a2",)
    assert b.version == "8.9.RC9"
    env = b.environment()
    assert env["cann_version"] == "8.9.RC9" and env["soc_name"] == A2_SOC
    assert env["product"] == "atlas-a2" and env["device_id"] == 0
    assert [Path(p).name for p in env["libraries"]] == [n for n, _ in build.SPLIT_PARTS]


@needs_cc
def test_device_from_environment(fake_paths, fake, clean_env):
    clean_env.setenv("FAKE_CANN_DEVICE_COUNT", "8")
    clean_env.setenv("ACLNN_DEVICE_ID", "9")
    ok, reason = AclnnBackend(libraries=fake_paths).available()
    assert not ok and "device 9 (from ACLNN_DEVICE_ID) does not exist: 8 device(s) visible" == reason
    clean_env.setenv("ACLNN_DEVICE_ID", "3")
    assert AclnnBackend(libraries=fake_paths).environment()["device_id"] == 3
    clean_env.delenv("ACLNN_DEVICE_ID")
    clean_env.setenv("PYTEST_XDIST_WORKER", "gw5")
    assert AclnnBackend(libraries=fake_paths).environment()["device_id"] == 5


@needs_cc
@pytest.mark.parametrize("amsgrad", [True, False])
def test_apply_adam_w_v2_marshalling(backend, fake, clean_env, amsgrad):
    """ApplyAdamWV2's float and bool parameters cross as C float and bool (the float the caller's
    double rounds to), its tensors in API order with their own dtypes, maxGradNorm NULL when absent."""
    from aclnn_conformance.suites.calls.apply_adam_w_v2 import make_call
    case = make_call("marshal-v2", (3, 5), {"varRef": "float32", "grad": "bfloat16"}, seed=4, step=6,
                     amsgrad=amsgrad, maximize=True, lr=0.0123456789012345, beta2=0.999999)
    result = backend.run(case, "atlas-a2")
    assert (result.status, result.phase) == (0, "Execute")
    call = fake.one("aclnnApplyAdamWV2GetWorkspaceSize")
    t = call["tensors"]
    assert list(t) == ["varRef", "mRef", "vRef", "maxGradNormOptionalRef", "grad", "step"]
    assert [None if t[n] is None else t[n]["dtype"] for n in t] == (
        [0, 0, 0, 0 if amsgrad else None, 27, 9])
    for name in ("lr", "beta1", "beta2", "weightDecay", "eps"):
        assert call[name] == float(np.float32(case.attrs[name])), name
    assert (call["amsgrad"], call["maximize"]) == (amsgrad, True)
    assert np.array_equal(result.storages["varRef"].view(np.uint8), pattern(60))


@needs_cc
def test_wqp_marshalling(backend, fake, clean_env):
    clean_env.setenv("FAKE_CANN_SOC", A950_SOC)
    case = wqp_case()
    raw = to_raw_call(case)
    result = backend.run(case, "ascend950")
    assert (result.status, result.phase, result.message) == (0, "Execute", "")
    assert result.workspace_size == 1024

    call = fake.one("aclnnWeightQuantPreprocessGetWorkspaceSize")
    t = call["tensors"]
    w = t["weight"]
    assert (w["view"], w["strides"], w["offset"], w["storage"]) == ([64, 128], [1, 64], 0, [128, 64])
    assert (w["dtype"], w["format"]) == (40, 2)                    # FLOAT4_E2M1, ND
    s = t["weightScale"]
    assert (s["view"], s["strides"], s["storage"]) == ([1, 128, 2], [2, 2, 1], [128, 1, 2])
    assert (s["dtype"], s["format"]) == (37, 2)                    # FLOAT8_E8M0, ND
    o = t["outWeight"]
    assert (o["dtype"], o["format"], o["storage"], o["view"]) == (40, 51, [2, 8, 16, 32], [64, 128])
    assert (t["outWeightScale"]["dtype"], t["outWeightScale"]["storage"]) == (37, [128, 1, 2])
    for name in ("weightOffsetOptional", "biasOptional", "outWeightOffsetOptional",
                 "outBiasOptional"):
        assert t[name] is None, name
    assert all(v["device"] for v in t.values() if v is not None)
    assert (call["xDtype"], call["xScaleDtype"], call["kGroupSize"]) == (36, 37, 32)
    assert not call["workspaceSize_null"] and not call["executor_null"]

    # the FP4 weight arrives on the device packed two per byte, the lower index in the low nibble
    codes = case.tensor("weight").storage.view(np.uint8)
    packed = (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8)
    uploads = {e["dst"]: e for e in fake.events("aclrtMemcpy") if e["kind"] == 1}
    assert uploads[w["data"]]["count"] == codes.size // 2 == 4096
    assert bytes.fromhex(uploads[w["data"]]["hex"]) == packed.tobytes()
    assert bytes.fromhex(uploads[s["data"]]["hex"]) == case.tensor("weightScale").storage.view(
        np.uint8).tobytes()

    launch = fake.one("aclnnWeightQuantPreprocess")
    assert launch["executor_known"] and launch["stream_known"]
    assert launch["workspaceSize"] == 1024 and launch["workspace_device"]
    assert launch["workspace_room"] >= 1024
    assert fake.one("aclrtSynchronizeStream")["known"]

    # every buffer comes back; the launch's pattern over outWeight's packed storage, unpacked
    downloads = [e for e in fake.events("aclrtMemcpy") if e["kind"] == 2]
    assert len(downloads) == 4
    out = result.storages["outWeight"].view(np.uint8)
    written = pattern(4096)
    unpacked = np.empty(8192, np.uint8)
    unpacked[0::2], unpacked[1::2] = written & 0x0F, written >> 4
    assert np.array_equal(out[:8192], unpacked)
    before = case.tensor("outWeight").storage.view(np.uint8)
    assert np.array_equal(out[8192:], before[8192:])               # guard elements untouched
    assert result.storages["weight"].view(np.uint8).tobytes() == codes.tobytes()
    assert set(result.storages) == {n for n, v in raw.tensors().items() if v is not None}
    assert fake.live() == (0, 0)                                   # destroyed and freed


@needs_cc
@pytest.mark.parametrize("dtype,enum", [("float32", 0), ("float16", 1), ("bfloat16", 27)])
def test_aawq_marshalling(backend, fake, dtype, enum):
    case = aawq_calls.make_call(f"marshal-{dtype}", (3, 256), dtype, seed=5, **AAWQ_ATTRS)
    result = backend.run(case, "atlas-a2")
    assert (result.status, result.phase) == (0, "Execute")

    call = fake.one("aclnnApplyAdamWQuantGetWorkspaceSize")
    t = call["tensors"]
    assert list(t) == ["varRef", "grad", "mRef", "vRef", "qmapM", "qmapV", "absmaxMRef",
                       "absmaxVRef", "step"]
    expected = {"varRef": (enum, [3, 256]), "grad": (enum, [3, 256]), "mRef": (4, [3, 256]),
                "vRef": (4, [3, 256]), "qmapM": (0, [256]), "qmapV": (0, [256]),
                "absmaxMRef": (0, [3]), "absmaxVRef": (0, [3]), "step": (9, [1])}
    for name, (dt, dims) in expected.items():
        got = t[name]
        assert (got["dtype"], got["view"], got["storage"], got["format"], got["offset"]) == (
            dt, dims, dims, 2, 0), name
        assert got["strides"] == list(TensorDesc.contiguous(dims, DT(dt)).strides), name
    for name in ("lr", "beta1", "beta2", "weightDecay", "eps", "gnormScale"):
        assert call[name] == AAWQ_ATTRS[name], name             # the double, bit for bit
    assert call["quantModeOptional"] == "BLOCKWISE" and call["blockSize"] == 256

    uploads = {e["dst"]: e for e in fake.events("aclrtMemcpy") if e["kind"] == 1}
    for name in expected:
        sent = bytes.fromhex(uploads[t[name]["data"]]["hex"])
        assert sent == case.tensor(name).storage.view(np.uint8).tobytes(), name

    m = result.storages["mRef"]
    assert m.dtype == np.uint8 and np.array_equal(m, pattern(768))
    for name in ("varRef", "grad", "vRef", "step"):
        assert result.storages[name].tobytes() == case.tensor(name).storage.tobytes(), name
    assert fake.live() == (0, 0)


@needs_cc
def test_null_tensor_and_null_string(backend, fake):
    case = aawq_calls.make_call("marshal-null", (1, 256), "float32", seed=1)
    case = case.with_tensor("grad", None).with_attrs(quantModeOptional=None)
    result = backend.run(case, "atlas-a2")
    call = fake.one("aclnnApplyAdamWQuantGetWorkspaceSize")
    assert call["tensors"]["grad"] is None
    assert call["tensors"]["varRef"]["view"] == [1, 256]
    assert call["quantModeOptional"] is None
    assert "grad" not in result.storages
    assert len(fake.events("aclCreateTensor")) == 8
    assert fake.live() == (0, 0)


@needs_cc
@pytest.mark.parametrize("how,strides,offset", [("offset", [256, 1], 7), ("strided", [512, 2], 1),
                                                 ("transposed", [1, 2], 0)])
def test_noncontiguous_views(backend, fake, how, strides, offset):
    case = aawq_calls.make_call("marshal-view", (2, 256), "float16", seed=2)
    case = aawq_calls.as_noncontiguous(case, ("varRef",), how)
    backend.run(case, "atlas-a2")
    v = fake.one("aclnnApplyAdamWQuantGetWorkspaceSize")["tensors"]["varRef"]
    desc = case.desc("varRef")
    assert (v["view"], v["strides"], v["offset"], v["storage"]) == (
        [2, 256], strides, offset, list(desc.storage_shape))
    upload = {e["dst"]: e for e in fake.events("aclrtMemcpy") if e["kind"] == 1}[v["data"]]
    assert upload["count"] == case.tensor("varRef").storage.nbytes


@needs_cc
@pytest.mark.parametrize("nulled", ["workspaceSize", "executor"])
def test_null_out_pointer(backend, fake, nulled):
    case = aawq_calls.make_call("marshal-nullout", (1, 256), "float32").with_(
        null_outputs=frozenset({nulled}))
    result = backend.run(case, "atlas-a2")
    call = fake.one("aclnnApplyAdamWQuantGetWorkspaceSize")
    assert call[f"{nulled}_null"] and not call[
        "executor_null" if nulled == "workspaceSize" else "workspaceSize_null"]
    assert (result.status, result.phase) == (161001, "GetWorkspaceSize")
    assert "nullptr" in result.message
    assert not fake.events("aclnnApplyAdamWQuant")
    assert fake.live() == (0, 0)


@needs_cc
def test_statuses_and_messages(backend, fake, clean_env):
    case = aawq_calls.make_call("marshal-status", (1, 256), "float32")
    clean_env.setenv("FAKE_CANN_STATUS", "161002")
    r = backend.run(case, "atlas-a2")
    assert (r.status, r.phase) == (161002, "GetWorkspaceSize")
    assert "fake rejection by aclnnApplyAdamWQuantGetWorkspaceSize" in r.message
    assert not fake.events("aclnnApplyAdamWQuant") and fake.live() == (0, 0)
    assert np.array_equal(r.storages["mRef"], case.tensor("mRef").storage)   # copied back as is

    clean_env.delenv("FAKE_CANN_STATUS")
    clean_env.setenv("FAKE_CANN_LAUNCH_STATUS", "561000")
    r = backend.run(case, "atlas-a2")
    assert (r.status, r.phase) == (561000, "Execute") and "fake launch failure" in r.message

    clean_env.delenv("FAKE_CANN_LAUNCH_STATUS")
    clean_env.setenv("FAKE_CANN_SYNC_STATUS", "507011")
    r = backend.run(case, "atlas-a2")
    assert (r.status, r.phase) == (507011, "Synchronize") and "kernel failure" in r.message
    assert fake.live() == (0, 0)

    clean_env.delenv("FAKE_CANN_SYNC_STATUS")
    r = backend.run(case, "atlas-a2")                    # no stale message from the failures above
    assert (r.status, r.message) == (0, "")


@needs_cc
def test_zero_workspace_is_null(backend, fake, clean_env):
    clean_env.setenv("FAKE_CANN_WORKSPACE", "0")
    r = backend.run(aawq_calls.make_call("marshal-ws0", (1, 256), "float32"), "atlas-a2")
    launch = fake.one("aclnnApplyAdamWQuant")
    assert r.workspace_size == 0 and launch["workspace_null"] and launch["workspaceSize"] == 0


@needs_cc
def test_empty_tensors(backend, fake):
    case = aawq_calls.make_call("marshal-empty", (0, 256), "float32")
    r = backend.run(case, "atlas-a2")
    t = fake.one("aclnnApplyAdamWQuantGetWorkspaceSize")["tensors"]
    assert t["varRef"]["view"] == [0, 256] and t["absmaxMRef"]["view"] == [0]
    assert all(e["count"] > 0 for e in fake.events("aclrtMemcpy"))      # nothing to copy: no copy
    assert all(e["size"] >= 32 for e in fake.events("aclrtMalloc"))
    assert r.status == 0 and r.storages["varRef"].size == 0


@needs_cc
def test_replayed_dtype_names(backend, fake, clean_env):
    """A case loaded from its file form carries dtype attributes as names."""
    clean_env.setenv("FAKE_CANN_SOC", A950_SOC)
    case = wqp_case().with_attrs(xDtype="FLOAT8_E4M3FN", xScaleDtype="FLOAT8_E8M0")
    backend.run(case, "ascend950")
    call = fake.one("aclnnWeightQuantPreprocessGetWorkspaceSize")
    assert (call["xDtype"], call["xScaleDtype"]) == (36, 37)


@needs_cc
def test_product_must_be_the_devices(backend, fake, clean_env):
    case = aawq_calls.make_call("marshal-product", (1, 256), "float32")
    with pytest.raises(ValueError, match=r"device is Ascend910B1 \(atlas-a2\), not atlas-a3"):
        backend.run(case, "atlas-a3")
    clean_env.setenv("FAKE_CANN_SOC", "Ascend910_9391")
    assert backend.products() == ("atlas-a3",)
    assert backend.run(case, "atlas-a3").status == 0
    clean_env.setenv("FAKE_CANN_SOC", "Mystery1")
    fake.reset()
    assert backend.products() == ()
    with pytest.raises(ValueError, match="SoC 'Mystery1' belongs to no product line"):
        backend.run(case, "atlas-a2")
    assert not fake.events("aclCreateTensor")


@needs_cc
def test_init_once_per_process(backend, fake, fake_paths):
    before = fake.lib.fake_init_calls()
    for _ in range(3):
        AclnnBackend(libraries=fake_paths).run(aawq_calls.make_call("marshal-init", (1, 256)),
                                               "atlas-a2")
    assert fake.lib.fake_init_calls() == before >= 1
    assert not fake.events("aclInit") and not fake.events("aclrtCreateStream")


@needs_cc
def test_missing_operator_symbols(fake_paths, fake, clean_env):
    clean_env.setenv("FAKE_CANN_SOC", A950_SOC)
    without_math = [p for p in fake_paths if not p.endswith("libopapi_math.so")]
    b = AclnnBackend(libraries=without_math)
    assert b.available() == (True, "")        # a second aclInit in the process is accepted
    with pytest.raises(MissingSymbol, match="aclnnWeightQuantPreprocessGetWorkspaceSize"):
        b.run(wqp_case(), "ascend950")


@needs_cc
def test_single_library_build(tmp_path):
    """Every symbol in one library (run in a child process: it would shadow the split build)."""
    lib = build.build_single(tmp_path)
    code = ("from backends.aclnn import AclnnBackend\n"
            "from suites.calls.apply_adam_w_quant import make_call\n"
            f"b = AclnnBackend(libraries=[{str(lib)!r}])\n"
            "print(b.available(), b.run(make_call('one', (1, 256)), 'atlas-a2').status)\n")
    env = {k: v for k, v in os.environ.items() if k not in FAKE_ENV + CANN_ENV}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(True, '') 0"


def test_suite_skips_without_cann(tmp_path):
    """The pytest plugin turns an unavailable aclnn backend into SKIPPED cases with the reason, and
    the run, having judged nothing, exits 6."""
    env = {k: v for k, v in os.environ.items() if k not in FAKE_ENV + CANN_ENV}
    env["ACLNN_LIBRARIES"] = str(tmp_path / "no-such-library.so")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_rules.py", "--backend", "aclnn",
         "--product", "atlas-a2", "-q", "-p", "no:cacheprovider", "-k", "one_fault", "--op", "apply_adam_w_quant",
         "--report-dir", str(tmp_path / "report")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == EXIT_NOTHING_JUDGED, out.stdout[-3000:] + out.stderr[-3000:]
    assert " skipped" in out.stdout and " failed" not in out.stdout and " passed" not in out.stdout
    reason = [line for line in out.stdout.splitlines() if line.startswith("SKIPPED [")]
    assert len(reason) == 1 and "backend aclnn unavailable:" in reason[0]
    assert "no-such-library.so (absent)" in reason[0]


@needs_cc
def test_runs_in_an_isolated_worker(fake_paths, clean_env):
    """--case-timeout runs the backend in a spawned worker: the backend pickles and initialises
    its own runtime there."""
    from aclnn_conformance.backends.isolation import isolated_executor
    execute = isolated_executor(120)
    case = aawq_calls.make_call("marshal-isolated", (1, 256), "float32")
    result = execute(AclnnBackend(libraries=fake_paths), case, "atlas-a2")
    assert (result.status, result.phase) == (0, "Execute")
    assert np.array_equal(result.storages["mRef"], pattern(256))
    close = getattr(execute, "close", None)
    if close is not None:
        close()


# ---------------------------------------------------------------- the SoC name and the product

# Every SoC of the runtime's platform configurations (hicann/runtime 681ef76,
# src/platform/platform_config/cann*/<SoC>.ini) with the line its Short_SoC_version names.
REAL_SOCS = {
    "atlas-training": ("Ascend910A", "Ascend910B", "Ascend910ProA", "Ascend910ProB",
                       "Ascend910PremiumA"),                              # Short_SoC_version Ascend910
    "atlas-a2": ("Ascend910B1", "Ascend910B2", "Ascend910B2C", "Ascend910B3", "Ascend910B4",
                 "Ascend910B4-1"),                                        # Ascend910B
    "atlas-a3": ("Ascend910_9362", "Ascend910_9363", "Ascend910_9372", "Ascend910_9381",
                 "Ascend910_9382", "Ascend910_9391", "Ascend910_9392"),   # Ascend910_93
    "ascend950": ("Ascend950PR_9579", "Ascend950PR_957b", "Ascend950PR_957bx", "Ascend950PR_9599",
                  "Ascend950PR_950z", "Ascend950DT_9571", "Ascend950DT_9581x", "Ascend950DT_95A2",
                  "Ascend950DT_950x",                                     # Ascend950
                  "Ascend910_9579", "Ascend910_957b", "Ascend910_95A1", "Ascend910_950x"),
    # the last four: earlier names of the same chips (revision 494dda3, Short_SoC_version
    # Ascend910_95, NpuArch 3510)
    "atlas-200i-500-a2": ("Ascend310B1", "Ascend310B2", "Ascend310B3", "Ascend310B4"),  # Ascend310B
    "atlas-inference": ("Ascend310P1", "Ascend310P3", "Ascend310P5", "Ascend310P7"),    # Ascend310P
}
NOT_A_PRODUCT = ("Ascend031", "Ascend035", "Ascend035A", "Ascend350_354f", "Kirin9030", "KirinX90",
                 "Ascend910B5", "Ascend910B1x", "ascend910b1", "Ascend910_93", "Ascend950", "")


@pytest.mark.parametrize("product,soc", [(p, s) for p, socs in REAL_SOCS.items() for s in socs])
def test_product_of_every_real_soc(product, soc):
    from aclnn_conformance.spec.soc import product_of_soc
    assert product_of_soc(soc) == product


@pytest.mark.parametrize("soc", NOT_A_PRODUCT)
def test_unknown_soc_is_a_one_line_error_naming_it(soc):
    from aclnn_conformance.spec.soc import UnknownSoc, product_of_soc
    with pytest.raises(UnknownSoc) as info:
        product_of_soc(soc)
    assert f"SoC {soc!r}" in str(info.value) and "\n" not in str(info.value)


def test_soc_patterns_name_known_products():
    from aclnn_conformance.spec.soc import SOC_PATTERNS
    from aclnn_conformance.spec.products import PRODUCT_IDS
    assert set(SOC_PATTERNS) == set(PRODUCT_IDS)


@needs_cc
def test_device_product_from_the_soc(backend, fake, clean_env):
    assert backend.device_product() == "atlas-a2"
    clean_env.setenv("FAKE_CANN_SOC", "Ascend910B")              # the older training line
    assert backend.device_product() == "atlas-training" and backend.products() == ("atlas-training",)
    with pytest.raises(ValueError, match=r"device is Ascend910B \(atlas-training\), not atlas-a2"):
        backend.run(aawq_calls.make_call("soc-910b", (1, 256)), "atlas-a2")
    clean_env.setenv("FAKE_CANN_SOC", "Ascend035")
    ok, reason = backend.available()
    assert not ok and "SoC 'Ascend035' belongs to no product line" in reason and "\n" not in reason
    assert "product" not in backend.environment()


def test_device_product_without_cann(clean_env, tmp_path):
    clean_env.setenv("ACLNN_LIBRARIES", str(tmp_path / "none.so"))
    assert AclnnBackend().device_product() is None


# ---------------------------------------------------------------- error text per call


@pytest.mark.parametrize("before,after,added", [
    ("", "E1", "E1"),
    ("E1", "E1", ""),
    ("E1", "E2\nE1", "E2"),                        # a host error goes in front
    ("E2\nE1", "E3\nE2\nE1", "E3"),
    ("E1", "E1\nF1", "F1"),                        # a fault event is appended
    ("E1", "E2\nE1\nF1", "E2\nF1"),
    ("E1", "D1", "D1"),                            # a device message replaces the text
    ("E1", "E1x\nE0", "E1x\nE0"),                  # the old text is not there as whole lines
    ("E1", "E1\nE1", "E1"),                        # the same error again
    ("E1", "", ""),
])
def test_added_text(before, after, added):
    from aclnn_conformance.backends.aclnn.recent_error import added_text
    assert added_text(before, after) == added


def test_recent_errors_per_thread():
    import threading
    from aclnn_conformance.backends.aclnn.recent_error import RecentErrors
    texts = ["A", "B\nA", "C\nB\nA"]
    errors = RecentErrors(lambda: texts[0])
    assert errors.new() == "A" and errors.new() == ""
    texts[0] = texts[1]
    seen = []
    thread = threading.Thread(target=lambda: seen.append(errors.new()))
    thread.start()
    thread.join()
    assert seen == ["B | A"]                       # another thread has read nothing yet
    assert errors.new() == "B"
    texts[0] = texts[2]
    assert errors.new() == "C"


def _recent_text(fake: Fake) -> str:
    fn = fake.lib.aclGetRecentErrMsg
    fn.restype = ctypes.c_char_p
    return (fn() or b"").decode()


@needs_cc
def test_message_is_only_what_the_call_added(backend, fake, clean_env):
    clean_env.setenv("FAKE_CANN_SOC", A950_SOC)
    case = aawq_calls.make_call("errtext", (1, 256), "float32")
    clean_env.setenv("FAKE_CANN_STATUS", "161002")
    first = backend.run(case, "ascend950")
    clean_env.delenv("FAKE_CANN_STATUS")
    second = backend.run(wqp_case().with_(null_outputs=frozenset({"executor"})), "ascend950")
    third = backend.run(case.with_tensor("grad", None), "ascend950")
    assert (first.status, second.status, third.status) == (161002, 561103, 161001)
    assert first.message == "EZ1001: fake rejection by aclnnApplyAdamWQuantGetWorkspaceSize"
    assert second.message == ("EZ1001: aclnnWeightQuantPreprocessGetWorkspaceSize: workspaceSize "
                              "or executor is nullptr")
    assert third.message == "EZ1001: aclnnApplyAdamWQuantGetWorkspaceSize: grad is nullptr"
    # the runtime's own text still holds all three, the newest first
    text = _recent_text(fake).splitlines()
    assert text[:3] == [third.message, second.message, first.message]
    assert backend.run(case, "ascend950").message == ""


# ---------------------------------------------------------------- the stand-in's runtime behaviour


@needs_cc
@pytest.mark.parametrize("soc,nulls,status", [
    (A950_SOC, {"workspaceSize"}, 561103),
    (A950_SOC, {"executor"}, 561103),
    (A2_SOC, {"workspaceSize"}, 561103),           # the out-pointers come before the product
    (A2_SOC, set(), 361001),                       # only Ascend 950 runs it
])
def test_wqp_out_pointers_then_product(backend, fake, clean_env, soc, nulls, status):
    clean_env.setenv("FAKE_CANN_SOC", soc)
    product = "ascend950" if soc == A950_SOC else "atlas-a2"
    case = wqp_case().with_tensor("weight", None).with_(null_outputs=frozenset(nulls))
    result = backend.run(case, product)
    assert (result.status, result.phase) == (status, "GetWorkspaceSize")
    assert not fake.events("aclnnWeightQuantPreprocess")


@needs_cc
@pytest.mark.parametrize("name", ["weight", "weightScale", "outWeight", "outWeightScale"])
def test_wqp_mandatory_tensors(backend, fake, clean_env, name):
    clean_env.setenv("FAKE_CANN_SOC", A950_SOC)
    result = backend.run(wqp_case().with_tensor(name, None), "ascend950")
    assert result.status == 161001 and f"{name} is nullptr" in result.message
    assert backend.run(wqp_case().with_tensor("biasOptional", None), "ascend950").status == 0


def _first_phase(rt, api: str, kinds: list[str], tensor: int, scalars: dict):
    ops = rt.libs.operator(api, kinds)
    args = [tensor if kind == "tensor" else scalars[kind] for kind in kinds]
    size, executor = ctypes.c_uint64(0), ctypes.c_void_p()
    assert ops.get_workspace_size(*args, ctypes.byref(size), ctypes.byref(executor)) == 0
    return ops, size.value, executor


@needs_cc
def test_launch_checks_its_workspace(backend, fake, clean_env):
    """nnopbase's generated second phase (ApplyAdamWQuant) checks a NULL workspace and its size;
    the composite one of ops-math (WeightQuantPreprocess) only the NULL workspace."""
    from aclnn_conformance.backends.call_layer import signature
    clean_env.setenv("FAKE_CANN_SOC", A950_SOC)
    rt, _ = backend._device_runtime()
    ws = rt.malloc(1024)
    dims = (ctypes.c_int64 * 1)(1)
    tensor = rt.libs.aclCreateTensor(dims, 1, 0, None, 0, 2, dims, 1, ws)
    scalars = {"double": 0.5, "int64": 256, "string": None, "dtype": 36}
    try:
        for op, checks_size in (("apply_adam_w_quant", True), ("weight_quant_preprocess", False)):
            api, params_in_order = signature(op)
            kinds = [kind for _, kind in params_in_order]
            ops, size, executor = _first_phase(rt, api, kinds, tensor, scalars)
            assert size == 1024
            assert ops.launch(None, 0, None, rt.stream) == 161001                  # no executor
            assert ops.launch(ws, size // 2, executor, rt.stream) == (161002 if checks_size else 0)
            ops, size, executor = _first_phase(rt, api, kinds, tensor, scalars)
            assert ops.launch(None, size, executor, rt.stream) == 161001
            if not checks_size:       # the composite second phase deleted the executor
                assert ops.launch(ws, size, executor, rt.stream) == 161001
            else:
                assert ops.launch(ws, size, executor, rt.stream) == 0
        assert rt.libs.aclDestroyTensor(None) == 0
    finally:
        rt.libs.aclDestroyTensor(tensor)
        rt.free(ws)
    assert fake.live() == (0, 0)


# ---------------------------------------------------------------- recovery after a fault


@needs_cc
@pytest.mark.parametrize("switch,phase", [("FAKE_CANN_SYNC_STATUS", "Synchronize"),
                                          ("FAKE_CANN_LAUNCH_STATUS", "Execute")])
def test_device_reset_after_a_fault(backend, fake, clean_env, switch, phase):
    case = aawq_calls.make_call("fault", (1, 256), "float32")
    clean_env.setenv(switch, "507015")
    failed = backend.run(case, "atlas-a2")
    clean_env.delenv(switch)
    assert (failed.status, failed.phase) == (507015, phase)
    assert failed.message.endswith("device 0 reset (aclrtResetDeviceForce) and a new stream created "
                                   f"after the failed {phase}, before the next case")
    names = [e["ev"] for e in fake.events()]
    tail = names[names.index("aclrtResetDeviceForce") - 1:]
    assert tail == ["aclrtDestroyStream", "aclrtResetDeviceForce", "aclrtSetDevice",
                    "aclrtCreateStream"]
    assert fake.lib.fake_fault_status() == 0 and fake.live() == (0, 0)
    after = backend.run(case, "atlas-a2")
    assert (after.status, after.message) == (0, "")


@needs_cc
def test_without_the_reset_the_next_case_would_be_blamed(backend, fake, clean_env):
    """The control of the test above: the stand-in keeps the fault until the device is reset."""
    from aclnn_conformance.backends.aclnn.backend import _Runtime
    case = aawq_calls.make_call("fault", (1, 256), "float32")
    rt, _ = backend._device_runtime()
    with clean_env.context() as patch:
        patch.setattr(_Runtime, "reset_device", lambda self, after: "")
        patch.setenv("FAKE_CANN_SYNC_STATUS", "507015")
        backend.run(case, "atlas-a2")
        patch.delenv("FAKE_CANN_SYNC_STATUS")
        blamed = backend.run(case, "atlas-a2")
    assert (blamed.status, blamed.phase) == (507015, "Execute")
    assert "broken by an earlier kernel fault" in blamed.message
    rt.reset_device("the test")
    assert backend.run(case, "atlas-a2").status == 0


@needs_cc
def test_isolated_worker_recovers_or_stops(fake_paths, clean_env):
    """In the isolated worker: the first synchronize fails, the device is reset and the next case
    passes; when the reset itself fails, later cases are refused as a harness error, not failed."""
    from aclnn_conformance.backends.isolation import BackendWorkerError, isolated_executor
    case = aawq_calls.make_call("isolated-fault", (1, 256), "float32")
    clean_env.setenv("FAKE_CANN_SYNC_FAIL_AT", "1")
    execute = isolated_executor(120)
    try:
        b = AclnnBackend(libraries=fake_paths)          # one backend object: one worker process
        failed = execute(b, case, "atlas-a2")
        assert (failed.status, failed.phase) == (507015, "Synchronize")
        assert "device 0 reset (aclrtResetDeviceForce)" in failed.message
        assert execute(b, case, "atlas-a2").status == 0
    finally:
        execute.close()
    clean_env.setenv("FAKE_CANN_RESET_STATUS", "507899")
    execute = isolated_executor(120)
    try:
        b = AclnnBackend(libraries=fake_paths)
        failed = execute(b, case, "atlas-a2")
        assert failed.status == 507015 and "device 0 could not be reset after the failed " \
            "Synchronize: aclrtResetDeviceForce returned 507899" in failed.message
        with pytest.raises(BackendWorkerError, match="could not be reset"):
            execute(b, case, "atlas-a2")
    finally:
        execute.close()


# ---------------------------------------------------------------- the device check (doctor)


def _doctor_lines(**kwargs) -> dict[str, tuple[str, str]]:
    from aclnn_conformance.backends.aclnn import doctor
    return {line.what: (line.state, line.detail) for line in doctor.check(**kwargs)}


def test_doctor_without_cann_says_what_is_missing(clean_env, tmp_path, capsys):
    from aclnn_conformance.backends.aclnn import doctor
    clean_env.setattr(libraries, "DEFAULT_TOOLKIT", str(tmp_path / "no-toolkit"))
    assert doctor.main(["--op", "apply_adam_w_quant"]) == 1
    out = capsys.readouterr().out.splitlines()
    state = {line[:doctor.LABEL_WIDTH].strip(): line[doctor.LABEL_WIDTH + 1:].split(None, 1)
             for line in out}
    assert state["libraries"][0] == "MISSING" and "libascendcl.so" in state["libraries"][1]
    assert "ASCEND_HOME_PATH (unset)" in state["libraries"][1]
    assert state["toolkit version"][0] == "MISSING"
    assert state["apply_adam_w_quant symbols"] == [
        "-", "needs aclnnApplyAdamWQuantGetWorkspaceSize, aclnnApplyAdamWQuant; not checked: the "
             "CANN libraries were not found"]
    assert state["verdict"][0] == "FAIL"
    assert [line[:doctor.LABEL_WIDTH].strip() for line in out] == [
        "toolkit version", "libraries", "runtime symbols", "device", "SoC", "product",
        "apply_adam_w_quant symbols", "apply_adam_w_quant call", "verdict"]


def test_doctor_runs_as_a_module(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in FAKE_ENV + CANN_ENV}
    env["ACLNN_LIBRARIES"] = str(tmp_path / "no-such-library.so")
    out = subprocess.run([sys.executable, "-m", "aclnn_conformance.backends.aclnn.doctor"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and out.stderr == ""
    assert "no-such-library.so (absent)" in out.stdout and "MISSING" in out.stdout


@needs_cc
@pytest.mark.parametrize("soc,product,wqp", [
    (A2_SOC, "atlas-a2", "ACLNN_ERR_RUNTIME_ERROR (361001) in GetWorkspaceSize"),
    (A950_SOC, "ascend950", "ACLNN_SUCCESS (0) in Execute"),
])
def test_doctor_against_the_stand_in(fake_paths, fake, clean_env, soc, product, wqp):
    clean_env.setenv("FAKE_CANN_SOC", soc)
    lines = _doctor_lines(libraries=fake_paths, ops=["apply_adam_w_quant", "weight_quant_preprocess"],
                          timeout=None)
    assert lines["toolkit version"] == ("ok", "8.9.RC9")
    assert lines["libraries"][0] == "ok" and all(p in lines["libraries"][1] for p in fake_paths)
    assert lines["device"][0] == "ok" and lines["device"][1].startswith("device 0 (default) of 8")
    assert lines["SoC"] == ("ok", soc)
    assert lines["product"][0] == "ok" and lines["product"][1].startswith(product + " (")
    assert lines["weight_quant_preprocess symbols"] == (
        "ok", "aclnnWeightQuantPreprocessGetWorkspaceSize in libopapi_math.so; "
              "aclnnWeightQuantPreprocess in libopapi_math.so")
    aawq = lines["apply_adam_w_quant call"]
    assert aawq[0] == "ok" and aawq[1].startswith("ACLNN_SUCCESS (0) in Execute (")
    assert f"as the spec expects ACLNN_SUCCESS on {product}" in aawq[1]
    assert lines["weight_quant_preprocess call"][0] == "ok"
    assert lines["weight_quant_preprocess call"][1].startswith(wqp)
    assert not [what for what, (state, _) in lines.items() if state not in ("ok",)]


@needs_cc
def test_doctor_in_its_worker_and_exit_status(fake_paths, clean_env, capsys):
    from aclnn_conformance.backends.aclnn import doctor
    argv = ["--libraries", ":".join(fake_paths), "--op", "apply_adam_w_quant"]
    assert doctor.main(argv) == 0
    out = capsys.readouterr().out
    assert "the aclnn backend is wired: run pytest suites --backend aclnn --product atlas-a2" in out
    clean_env.setenv("FAKE_CANN_STATUS", "161002")      # the worker inherits it: the call disagrees
    assert doctor.main(argv) == 1
    call = [line for line in capsys.readouterr().out.splitlines()
            if line.startswith("apply_adam_w_quant call")]
    assert len(call) == 1 and " FAIL " in call[0]
    assert "ACLNN_ERR_PARAM_INVALID (161002) in GetWorkspaceSize" in call[0]
    assert "but the spec expects ACLNN_SUCCESS on atlas-a2" in call[0]


@needs_cc
def test_doctor_names_what_fails(fake_paths, fake, clean_env):
    clean_env.setenv("FAKE_CANN_SOC", "Ascend035")
    lines = _doctor_lines(libraries=fake_paths, ops=["apply_adam_w_quant"], timeout=None)
    assert lines["SoC"] == ("ok", "Ascend035")
    assert lines["product"][0] == "FAIL" and "SoC 'Ascend035'" in lines["product"][1]
    assert lines["apply_adam_w_quant call"] == (
        "-", "not run: the SoC belongs to no known product")
    clean_env.setenv("FAKE_CANN_SOC", A950_SOC)
    without_math = [p for p in fake_paths if not p.endswith("libopapi_math.so")]
    lines = _doctor_lines(libraries=without_math, timeout=None)
    assert lines["weight_quant_preprocess symbols"][0] == "MISSING"
    assert "aclnnWeightQuantPreprocessGetWorkspaceSize, aclnnWeightQuantPreprocess exported by no " \
           "loaded library" in lines["weight_quant_preprocess symbols"][1]
    assert lines["apply_adam_w_quant call"][0] == "ok"
    clean_env.setenv("ACLNN_DEVICE_ID", "9")
    lines = _doctor_lines(libraries=fake_paths, ops=["apply_adam_w_quant"], timeout=None)
    assert lines["device"] == ("FAIL", "device 9 (from ACLNN_DEVICE_ID) does not exist: 8 device(s) "
                                       "visible")


@pytest.mark.parametrize("op", REPRESENTATIVE_OPS)   # the main job runs every base call
def test_tiny_calls_are_valid(op):
    """Each operator's base call (the doctor's tiny call) is a valid call by the spec on every
    product the operator supports, and the emulator (an independent model of the API) accepts it;
    a data operator's call may be not judged, by a check its extraction could not read, or on a
    product whose support it does not know (its values are judged only where values exist, and not
    after a success return on a condition the extraction could not read)."""
    from aclnn_conformance.backends.registry import load_backend
    from aclnn_conformance.spec import op_spec
    from aclnn_conformance.spec.rules import expected_outcome
    case = operator(op).piece("base_call")()
    supported = sorted(op_spec(op).supported["cann"])
    assert supported
    emulator = load_backend("emulator")
    for product in supported:
        expected = expected_outcome(op_spec(op), case, product, "cann")
        if expected.kind == "not_judged":
            assert op_spec(op).rule(expected.rule_id).category in ("unread", "product"), expected
            continue
        if op_spec(op).rule(expected.rule_id).category == "dtype" if expected.rule_id else False:
            from aclnn_conformance.suites.calls.surface import valid_dtype_choices
            assert not valid_dtype_choices(op), expected   # no one dtype serves every product
            continue
        assert expected.kind == "success", (product, expected)
        if op_spec(op).values_judged and not expected.judge_values:
            # a success return on a condition the extraction could not read, or a call outside the
            # value function's domain (the base call's shapes come from the code-read checks, which
            # do not hold a shape relation such as a halved dim): values not judged here, and then
            # some value case of the operator is judged on this product
            categories = {op_spec(op).rule(r).category for r in expected.reasons}
            assert expected.reasons and categories <= {"unread", "value"}, (product, expected)
            if "value" in categories:
                assert _some_value_case_judged(op, case, product), (product, expected)
        else:
            assert expected.judge_values == op_spec(op).values_judged, (product, expected)
        assert emulator.run(case, product).status == 0, product


def _some_value_case_judged(op: str, base: Case, product: str) -> bool:
    from aclnn_conformance.spec import op_spec
    from aclnn_conformance.spec.rules import expected_outcome
    from aclnn_conformance.suites.calls.surface import data_value_cases
    return any(expected_outcome(op_spec(op), c, product, "cann").judge_values
               for c in data_value_cases(op, base, "ci"))


@needs_cc
def test_records_after_a_fault(backend, fake, clean_env):
    """Through the harness: the failing case's record says the device was reset, and the case after
    it (an empty call, which the stand-in can pass) is judged PASS instead of inheriting the fault."""
    from aclnn_conformance.suites.runner import Harness, check_case
    records = []
    harness = Harness(backend=backend, profile="cann", tier="ci", run_id="fault-test")
    harness.append = records.append
    empty = aawq_calls.make_call("after-fault", (0, 256), "float32")
    clean_env.setenv("FAKE_CANN_SYNC_STATUS", "507015")
    with pytest.raises(pytest.fail.Exception):
        check_case(harness, aawq_calls.make_call("faulting", (1, 256), "float32"), "atlas-a2")
    clean_env.delenv("FAKE_CANN_SYNC_STATUS")
    check_case(harness, empty, "atlas-a2")
    faulting, after = records
    assert (faulting.outcome, faulting.actual_status, faulting.phase) == ("FAIL", 507015,
                                                                          "Synchronize")
    assert "device 0 reset (aclrtResetDeviceForce)" in faulting.message
    assert (after.outcome, after.actual_status, after.message) == ("PASS", 0, "")


@needs_cc
@pytest.mark.parametrize("force", [True, False])
def test_reset_releases_every_runtime_on_the_device(backend, fake, fake_paths, clean_env, force):
    """Two library lists in one process share the device: the reset after a fault takes every
    aclrtSetDevice reference and stream of the process (one aclrtResetDeviceForce, or one
    aclrtResetDevice per holder), so the fault is gone and both run their next case."""
    other = AclnnBackend(libraries=[p for p in fake_paths if not p.endswith("libopapi_math.so")])
    case = aawq_calls.make_call("shared-device", (1, 256), "float32")
    assert other.run(case, "atlas-a2").status == 0 and backend.run(case, "atlas-a2").status == 0
    rt, _ = backend._device_runtime()
    with clean_env.context() as patch:
        if not force:
            patch.setattr(rt.libs, "aclrtResetDeviceForce", None)
        patch.setenv("FAKE_CANN_SYNC_STATUS", "507015")
        failed = backend.run(case, "atlas-a2")
    how = "aclrtResetDeviceForce" if force else "aclrtResetDevice"
    assert f"device 0 reset ({how})" in failed.message
    assert fake.lib.fake_fault_status() == 0 and fake.lib.fake_device_refs() == 1
    assert other.run(case, "atlas-a2").status == 0 and backend.run(case, "atlas-a2").status == 0


@needs_cc
def test_each_xdist_worker_drives_its_own_device(fake_paths, tmp_path):
    """``pytest -n 2`` on a two-device machine: worker gw0 takes device 0 and gw1 device 1 (the
    worker index modulo the devices the runtime reports), each in its own process."""
    log = tmp_path / "devices.log"
    env = {k: v for k, v in os.environ.items() if k not in FAKE_ENV + CANN_ENV}
    env.update(ACLNN_LIBRARIES=":".join(fake_paths), FAKE_CANN_SOC=A2_SOC, FAKE_CANN_DEVICE_COUNT="2",
               FAKE_CANN_DEVICE_LOG=str(log))
    out = subprocess.run(
        [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_rules.py", "--backend", "aclnn", "--product",
         "atlas-a2", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "load",
         "-k", "one_fault", "--op", "apply_adam_w_quant", "--report-dir", str(tmp_path / "report")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode in (0, 1), out.stdout[-3000:] + out.stderr[-3000:]
    taken = {}
    for line in log.read_text().split("\n"):
        if line:
            pid, device = map(int, line.split())
            taken.setdefault(pid, set()).add(device)
    assert sorted(map(sorted, taken.values())) == [[0], [1]], taken


# ------------------------------------------------- a signature of every kind, generated from rows

FAKE_KINDS = ("aclnnFakeKinds", (("self", "tensor"), ("alpha", "scalar"), ("dims", "int_array"),
                                 ("mask", "bool_array"), ("weights", "float_array"), ("scale", "double"),
                                 ("bias", "float"), ("axis", "int64"), ("keepdim", "bool"),
                                 ("mode", "string"), ("dtype", "dtype"), ("out", "tensor")))


def _kinds_case(**attrs) -> Case:
    desc = TensorDesc.contiguous((2, 3), DT.FLOAT)
    x = TensorArg(desc, np.arange(6, dtype=np.float32))
    y = TensorArg(desc, np.zeros(6, dtype=np.float32))
    values = {"alpha": {"dtype": "FLOAT16", "value": 1.5}, "dims": [0, -1], "mask": [True, False, True],
              "weights": [0.25, -2.0], "scale": 0.1, "bias": 0.1, "axis": -2, "keepdim": True,
              "mode": "tanh", "dtype": "BF16"} | attrs
    return Case("fake_kinds", "every-kind", {"self": x, "out": y}, values)


@pytest.fixture
def kinds_signature(monkeypatch):
    """The signature a spec's parameter rows of every C kind give (as for an extracted API)."""
    from aclnn_conformance.backends import call_layer
    from aclnn_conformance.backends.aclnn import backend as backend_module
    fake_signature = lambda op: FAKE_KINDS   # noqa: E731 - one API, whatever the key
    monkeypatch.setattr(call_layer, "signature", fake_signature)
    monkeypatch.setattr(backend_module, "signature", fake_signature)


@needs_cc
def test_every_argument_kind_crosses_as_its_c_type(backend, fake, kinds_signature):
    """aclScalar* from {"dtype", "value"} (the value's bytes in that dtype), aclIntArray*,
    aclBoolArray*, aclFloatArray* from lists, double, C float (rounded), int64_t, bool, char*,
    aclDataType by value; every object the backend made is destroyed after the call."""
    result = backend.run(_kinds_case(), "atlas-a2")
    assert (result.status, result.phase) == (0, "Execute")
    call = fake.one("aclnnFakeKindsGetWorkspaceSize")
    assert call["alpha"] == {"dtype": int(DT.FLOAT16), "bytes": "003e"}    # 1.5 in binary16, little-endian
    assert call["dims"] == [0, -1] and call["mask"] == [True, False, True]
    assert call["weights"] == [0.25, -2.0]
    assert call["scale"] == 0.1 and call["bias"] == float(np.float32(0.1))
    assert (call["axis"], call["keepdim"], call["mode"], call["dtype"]) == (-2, True, "tanh", int(DT.BF16))
    assert list(call["tensors"]) == ["self", "out"]
    assert fake.live() == (0, 0)


@needs_cc
def test_null_and_empty_object_arguments(backend, fake, kinds_signature):
    """A NULL aclScalar*/array (None) crosses as NULL; an empty list is an array of size 0."""
    result = backend.run(_kinds_case(alpha=None, dims=[], mask=None, weights=None, mode=None), "atlas-a2")
    assert result.status == 0
    call = fake.one("aclnnFakeKindsGetWorkspaceSize")
    assert (call["alpha"], call["dims"], call["mask"], call["weights"], call["mode"]) == (None, [], None, None, None)
    assert fake.live() == (0, 0)


# ------------------------------------------- aclScalars given as bare numbers, computed operators

SCALAR_OPS = ("add", "pow_tensor_scalar", "lt_scalar")


@needs_cc
@pytest.mark.parametrize("op,name,value_bytes", [
    ("add", "alpha", "0000c03f"),                 # 1.5 in binary32, little-endian
    ("pow_tensor_scalar", "exponent", "00002040"),  # 2.5
    ("lt_scalar", "other", "0000003f")])          # 0.5
def test_a_bare_number_scalar_crosses_as_a_float_acl_scalar(backend, fake, clean_env, op, name,
                                                            value_bytes):
    """A value table's aclScalar is a bare number (aclnnAdd's alpha 1.5): the backend makes it an
    aclScalar of FLOAT, the dtype the documents' example code gives a float (aclCreateScalar(&v,
    ACL_FLOAT)) and one the parameter's row documents; it is destroyed after the call."""
    from aclnn_conformance.spec.single_calls import table_cases
    case = next(c for c in table_cases(op) if c.case_id == "values")
    assert not isinstance(case.attrs[name], dict)
    result = backend.run(case, "atlas-a2")
    assert (result.status, result.phase) == (0, "Execute")
    call = fake.one(f"{operator(op).spec.api}GetWorkspaceSize")
    assert call[name] == {"dtype": int(DT.FLOAT), "bytes": value_bytes}
    assert fake.live() == (0, 0)


@needs_cc
@pytest.mark.parametrize("soc,product", [(A2_SOC, "atlas-a2"), (A950_SOC, "ascend950")])
def test_value_tables_of_the_scalar_operators_pass_on_the_stand_in(fake_paths, fake, clean_env,
                                                                   soc, product):
    """aclnnAdd, aclnnPowTensorScalar and aclnnLtScalar: their table cases (the ci tier's, as the
    main job runs them: base, layouts, empty and the value cases with bare-number scalars) through
    the aclnn backend over the stand-in, which computes the documented results; no harness error,
    and every call whose values the spec judges is judged on them and passes."""
    from aclnn_conformance.judging.run_case import run_case
    from aclnn_conformance.spec.outcome import Outcome
    from aclnn_conformance.spec.single_calls import table_cases
    clean_env.setenv("FAKE_CANN_SOC", soc)
    backend = AclnnBackend(libraries=fake_paths)
    judged = []
    for op in SCALAR_OPS:
        for case in table_cases(op):
            ran = run_case(backend, case, product, "cann")
            assert ran.outcome in (Outcome.PASS, Outcome.NOT_JUDGED), (op, case.case_id, ran.detail)
            if ran.expected.judge_values:
                assert (ran.outcome, ran.judged_by) == (Outcome.PASS, "values"), (op, case.case_id)
                judged.append((op, case.case_id))
    # pow's value call is not judged on Ascend 950 (a check the extraction could not read)
    assert {c for _, c in judged} >= {"values", "values-empty", "base", "noncontiguous"}
    assert {op for op, c in judged if c == "values"} == (
        set(SCALAR_OPS) - ({"pow_tensor_scalar"} if product == "ascend950" else set()))
    assert fake.live() == (0, 0)


def test_a_bare_number_takes_a_dtype_its_row_documents():
    """bool -> BOOL, integer -> INT64, floating -> FLOAT (the vendor harness's ScalarDesc(v)); where
    the row does not document that dtype, its first documented dtype of the same category; a dict
    and NULL as given; no documented dtype of the category is a one-line error naming the row."""
    from aclnn_conformance.spec.params import Param

    def row(*dtypes):
        return Param("alpha", "input", tuple(DT[d] for d in dtypes), (), (), "-", "", c_kind="scalar")
    assert row().scalar_argument(1.5) == {"dtype": "FLOAT", "value": 1.5}
    assert row("FLOAT", "INT64", "BOOL").scalar_argument(True) == {"dtype": "BOOL", "value": True}
    assert row("FLOAT", "INT64").scalar_argument(3) == {"dtype": "INT64", "value": 3}
    assert row("DOUBLE", "FLOAT16").scalar_argument(0.5) == {"dtype": "DOUBLE", "value": 0.5}
    assert row("INT32", "FLOAT").scalar_argument(7) == {"dtype": "INT32", "value": 7}
    given = {"dtype": "FLOAT16", "value": 1.5}
    assert row("FLOAT").scalar_argument(given) is given and row("FLOAT").scalar_argument(None) is None
    with pytest.raises(ValueError, match="aclScalar alpha: no documented dtype"):
        row("INT32", "INT64").scalar_argument(0.25)


def test_the_dtype_given_a_bare_number_is_one_the_spec_accepts_where_it_accepts_the_call():
    """Over every value table's cases with a bare-number aclScalar, on every product: the call with
    the aclScalar the backend makes is expected to be rejected only where the call with the bare
    number is (a typed call may be judged where the bare one is not: a check on the scalar's dtype
    that the extraction could not read leaves the bare one unjudged)."""
    from aclnn_conformance.spec.rules import expected_outcome
    from aclnn_conformance.spec.surface_cases import value_cases
    from aclnn_conformance.spec.surface_values import value_entries
    checked = 0
    for entry in value_entries().values():
        spec = operator(entry.key).spec
        rows = {p.name: p for p in spec.params if p.c_kind == "scalar"}
        bare = [n for n in entry.sample.get("attrs", {}) if n in rows]
        if not bare:
            continue
        for case in value_cases(entry.key, count=64):
            typed = case.with_(attrs={**case.attrs, **{n: rows[n].scalar_argument(case.attrs[n])
                                                        for n in bare}})
            for product in sorted(spec.supported["cann"]):
                before = expected_outcome(spec, case, product, "cann")
                after = expected_outcome(spec, typed, product, "cann")
                if before.kind == "success":
                    assert (after.kind, after.rule_id) == ("success", None), (entry.api, case.case_id, product)
                checked += 1
    assert checked > 1000
