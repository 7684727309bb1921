"""The emulator backend: its chip generations differ exactly where the rules say they do, and its
kernel pieces (the bisection, the zero-absmax codes, the sign fix, the NZ byte formula) do what the
vendor's kernels do."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.backends.call_layer import to_raw_call
from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.backends.emulator import apply_adam_w_quant as emu_aawq
from aclnn_conformance.backends.emulator.apply_adam_w_quant import adam_w_quant_update, bisect_codes, sign_fix
from aclnn_conformance.backends.emulator.apply_adam_w_quant import KERNEL_ARCHS
from aclnn_conformance.backends.emulator.products import GENERATIONS, chip
from aclnn_conformance.backends.emulator.models import call_first_phase
from aclnn_conformance.backends.emulator.protocol import execute
from aclnn_conformance.backends.emulator.weight_quant_preprocess import nz_c0_32_bytes
from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.rules import ByProduct, expected_outcome
from aclnn_conformance.spec.tensor import TensorArg
from aclnn_conformance.spec.registry import is_data_operator, operator
from aclnn_conformance.suites.calls import apply_adam_w_quant as aawq_calls
from aclnn_conformance.spec.faults import fault_cases, fault_pair_cases

A2, A950 = "atlas-a2", "ascend950"
BACKEND = EmulatorBackend()


# ---- a2 against 950: the differences are the rules' ----

def _hand_written_cases():
    """The table and fault cases of the hand-written, value-judged operators (a data operator's
    emulator is its spec by construction: building its cases would test nothing)."""
    cases = []
    for spec in OPS.values():
        if not spec.values_judged or is_data_operator(spec.key):
            continue
        cases += list(fault_cases(spec)) + list(fault_pair_cases(spec))
        cases += list(operator(spec.key).piece("table_cases")("ci"))
    return cases


def _expected_key(spec, case, product):
    e = expected_outcome(spec, case, product, "cann")
    if e.kind == "success":
        return 0
    if e.kind in ("not_judged", "not_covered"):
        return e.kind
    return e.status if e.status is not None else "any error"


def _by_product_rules(a: str, b: str) -> set[str]:
    """Rules whose cann expectation differs between products ``a`` and ``b``."""
    out = set()
    for spec in OPS.values():
        for rule in spec.rules:
            exp = rule.expect.get("cann")
            if isinstance(exp, ByProduct) and exp.for_product(a) != exp.for_product(b):
                out.add(rule.id)
    return out


@pytest.fixture(scope="module")
def a2_vs_950():
    rows = []
    for case in _hand_written_cases():
        spec = OPS[case.op]
        got = (BACKEND.run(case, A2).status, BACKEND.run(case, A950).status)
        want = (_expected_key(spec, case, A2), _expected_key(spec, case, A950))
        deciding = {expected_outcome(spec, case, p, "cann").rule_id for p in (A2, A950)} - {None}
        rows.append((case, got, want, deciding))
    return rows


def test_a2_and_950_differ_exactly_where_the_rules_do(a2_vs_950):
    assert len(a2_vs_950) > 100
    status_differs = {(c.op, c.case_id) for c, got, _, _ in a2_vs_950 if got[0] != got[1]}
    expectation_differs = {(c.op, c.case_id) for c, _, want, _ in a2_vs_950 if want[0] != want[1]}
    assert status_differs == expectation_differs, (
        f"emulator only: {sorted(status_differs - expectation_differs)}; "
        f"rules only: {sorted(expectation_differs - status_differs)}")
    # every operator with a rule that differs between the two contributes (the absmax counts of
    # ApplyAdamWQuant, the product of WQP); one whose rules agree on both (ApplyAdamWV2) does not
    # (of the operators the rows compare: a status-only spec's emulator is left out above)
    judged = {spec.rule_prefix for key, spec in OPS.items()
              if spec.values_judged and not operator(key).modules[0].startswith("data:")}
    differing_ops = {r.split("-")[0] for r in _by_product_rules(A2, A950)} & judged
    assert {OPS[op].rule_prefix for op, _ in status_differs} == differing_ops
    assert {"AAWQ", "WQP"} <= differing_ops


def test_the_differences_are_decided_by_product_dependent_rules(a2_vs_950):
    product_rules = _by_product_rules(A2, A950)
    assert {"AAWQ-SHAPE-008", "AAWQ-SHAPE-009", "WQP-PRODUCT-001"} <= product_rules
    seen = set()
    for case, got, want, deciding in a2_vs_950:
        if got[0] == got[1]:
            continue
        assert deciding & product_rules, (case.case_id, deciding)
        seen |= deciding & product_rules
    assert {"AAWQ-SHAPE-008", "AAWQ-SHAPE-009", "WQP-PRODUCT-001"} <= seen


def test_absmax_count_is_checked_on_950_only():
    case = aawq_calls.make_call("absmax-long", (2, 256), seed=3, absmax_m=[0.05, 0.05, 7.0])
    a2, a950 = BACKEND.run(case, A2), BACKEND.run(case, A950)
    assert a950.status == Status.ERR_INNER_TILING_ERROR and a2.status == Status.SUCCESS
    # arch22 leaves the entry past ceil(n/256) alone
    assert a2.storages["absmaxMRef"][2] == np.float32(7.0)


@pytest.mark.parametrize("product", PRODUCT_IDS)
def test_every_generation_is_modelled(product):
    gen = chip(product)
    assert gen.product == product and product in GENERATIONS
    base = aawq_calls.base_call()
    status = BACKEND.run(base, product).status
    assert (status == Status.SUCCESS) == (gen.arch in KERNEL_ARCHS)


# ---- the protocol ----

def test_two_phase_protocol_and_single_use_executor():
    raw = to_raw_call(aawq_calls.base_call())
    first = call_first_phase(raw, chip(A2))
    assert first.status == 0 and first.workspace_size == 0 and first.executor is not None
    before = bytes(raw.tensors()["varRef"].buffer)
    assert execute(bytearray(0), 0, first.executor) == (0, "")
    assert bytes(raw.tensors()["varRef"].buffer) != before
    status, _ = execute(bytearray(0), 0, first.executor)
    assert status != 0, "an executor runs once"
    assert execute(None, 0, None)[0] == Status.ERR_PARAM_NULLPTR


def test_null_pointers_and_empty_outputs():
    base = aawq_calls.base_call()
    # the runtime's NULL check in NnopbaseRunForWorkspace (notes section 10, G4)
    assert BACKEND.run(base.with_(null_outputs=frozenset({"workspaceSize"})), A2).status \
        == Status.ERR_PARAM_NULLPTR
    assert BACKEND.run(base.with_(null_outputs=frozenset({"executor"})), A2).status \
        == Status.ERR_PARAM_NULLPTR
    # the null tensor comes first, in parameter order
    both = base.with_tensor("qmapV", None).with_tensor("grad", None).with_(
        null_outputs=frozenset({"executor"}))
    res = BACKEND.run(both, A950)
    assert res.status == Status.ERR_PARAM_NULLPTR and "grad" in res.message
    empty = aawq_calls.make_call("empty", (0, 256), seed=1)
    res = BACKEND.run(empty, A2)
    assert res.status == 0 and res.workspace_size == 0
    for name, arg in empty.tensors.items():
        assert res.storages[name].tobytes() == arg.storage.tobytes()
    partly = empty.with_tensor("absmaxMRef", TensorArg.from_array(np.ones(1), DT.FLOAT))
    assert BACKEND.run(partly, A2).status == Status.ERR_INNER_TILING_ERROR


# ---- the runtime between the API and the tiling (notes apply_adam_w_quant.md section 10) ----

def _reformatted(case, name, fmt):
    return case.with_tensor(name, case.tensor(name).with_desc(format=fmt))


@pytest.mark.parametrize("fmt", [F.NCL, F.NCDHW, F.NHWC, F.NCHW])
def test_nd_like_formats_run_as_nd(fmt):
    """N1: rewritten to ND before the (dtype, format) match, on every tensor at once."""
    base = aawq_calls.base_call()
    nd = BACKEND.run(base, A950)
    case = base
    for name in base.tensors:
        case = _reformatted(case, name, fmt)
    for product in (A2, "atlas-a3", A950):
        got = BACKEND.run(case, product)
        assert got.status == Status.SUCCESS, got.message
        for name in base.tensors:
            assert got.storages[name].tobytes() == nd.storages[name].tobytes(), name


@pytest.mark.parametrize("fmt", [F.HWCN, F.NDHWC, F.NC1HWC0, F.FRACTAL_NZ])
def test_other_formats_are_161002(fmt):
    case = _reformatted(aawq_calls.base_call(), "absmaxVRef", fmt)
    assert BACKEND.run(case, A2).status == Status.ERR_PARAM_INVALID


def test_empty_absmax_beside_a_non_empty_var():
    """A2/A3 never look at it (the call goes through); Ascend 950 compares the count (T35-6)."""
    case = aawq_calls.base_call().with_tensor("absmaxMRef", TensorArg.from_array(np.zeros(0), DT.FLOAT))
    assert BACKEND.run(case, A2).status == Status.SUCCESS
    assert BACKEND.run(case, "atlas-a3").status == Status.SUCCESS
    rejected = BACKEND.run(case, A950)
    assert rejected.status == Status.ERR_INNER_TILING_ERROR and "absmaxMRef" in rejected.message


def test_empty_var_fails_after_the_other_tiling_checks():
    """T-7: an empty var beside a non-empty output is 561002, decided after T-2..T-6."""
    partly = aawq_calls.make_call("empty", (0, 256), seed=1).with_tensor(
        "absmaxMRef", TensorArg.from_array(np.ones(1), DT.FLOAT))
    alone = BACKEND.run(partly, A2)
    assert alone.status == Status.ERR_INNER_TILING_ERROR and "var is empty" in alone.message
    step_1x1 = partly.with_tensor("step", TensorArg.from_array(np.array([[0]]), DT.INT64))
    got = BACKEND.run(step_1x1, A2)
    assert got.status == Status.ERR_INNER_TILING_ERROR and "step" in got.message


def test_absmax_counts_before_step_on_950():
    case = aawq_calls.base_call().with_tensor(
        "absmaxVRef", TensorArg.from_array(np.ones(5), DT.FLOAT)).with_tensor(
        "step", TensorArg.from_array(np.array([[0]]), DT.INT64))
    assert "absmaxVRef" in BACKEND.run(case, A950).message
    assert "step" in BACKEND.run(case, A2).message


# ---- the bisection ----

def _argmin_codes(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    d = np.abs(x.astype(np.float32)[:, None] - q.astype(np.float32)[None, :])
    return d.argmin(axis=1)  # the first index on a tie


QMAPS = {"dynamic-signed": aawq_calls.dynamic_qmap(True),
         "dynamic-unsigned": aawq_calls.dynamic_qmap(False),
         "linspace-signed": aawq_calls.linspace_qmap(True),
         "linspace-unsigned": aawq_calls.linspace_qmap(False),
         "dyadic-signed": aawq_calls.dyadic_qmap(True),
         "dyadic-unsigned": aawq_calls.dyadic_qmap(False),
         "asymmetric": aawq_calls.asymmetric_qmap()}


@pytest.mark.parametrize("name", sorted(QMAPS))
def test_bisection_is_argmin_on_strictly_ascending_maps(name):
    q = QMAPS[name]
    assert np.all(np.diff(q.astype(np.float64)) > 0)
    rng = np.random.default_rng(0)
    q64 = q.astype(np.float64)
    mids = ((q64[:-1] + q64[1:]) / 2).astype(np.float32)          # exact for the dyadic maps
    x = np.concatenate([
        rng.uniform(-1.2, 1.2, 20000).astype(np.float32), q, mids,
        np.nextafter(mids, np.float32(np.inf)), np.nextafter(mids, np.float32(-np.inf)),
        np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 1e-30, -1e-30], np.float32)])
    assert np.array_equal(bisect_codes(x, q), _argmin_codes(x, q))


def test_exact_midpoints_go_to_the_lower_index():
    q = aawq_calls.dyadic_qmap(True)
    mids = ((q[:-1].astype(np.float64) + q[1:]) / 2).astype(np.float32)
    assert np.all(mids.astype(np.float64) * 2 == q[:-1].astype(np.float64) + q[1:])
    assert np.array_equal(bisect_codes(mids, q), np.arange(255))


def test_bisection_of_nan_is_code_0():
    q = aawq_calls.dynamic_qmap(True)
    assert bisect_codes(np.array([np.nan, -np.nan], np.float32), q).tolist() == [0, 0]


def test_bisection_is_the_kernel_not_argmin_on_an_unsorted_map():
    q = aawq_calls.dynamic_qmap(True)[::-1].copy()               # descending: breaks the precondition
    x = np.float32([0.5])
    # 0.5 > q[127] (about 0) moves lo up and every later pivot is negative: the search ends
    # between 254 and 255 and takes the nearer, 254 (-0.98), far from the entry nearest 0.5
    assert bisect_codes(x, q)[0] == 254
    assert abs(q[_argmin_codes(x, q)[0]] - 0.5) < 0.05


# ---- zero absmax and the sign fix ----

def test_zero_absmax_block_gets_code_0():
    q_m, q_v = aawq_calls.dynamic_qmap(True), aawq_calls.dynamic_qmap(False)
    n = 512
    grad = np.concatenate([np.zeros(256), np.full(256, 0.01)]).astype(np.float32)
    attrs = {k: np.float32(v) for k, v in
             dict(lr=1e-3, beta1=0.9, beta2=0.999, weightDecay=0.01, eps=1e-8, gnormScale=1).items()}
    var, m_codes, v_codes, am, av = adam_w_quant_update(
        np.zeros(n, np.float32), grad, np.full(n, 127, np.uint8), np.zeros(n, np.uint8), q_m, q_v,
        np.array([0.0, 0.05], np.float32), np.array([0.0, 1e-4], np.float32), 0, attrs)
    assert am[0] == 0 and av[0] == 0
    # 0/0 -> NaN -> code 0, although the signed map's 0.0 sits at index 127
    assert np.all(m_codes[:256] == 0) and np.all(v_codes[:256] == 0)
    assert q_m[127] == 0 and np.all(m_codes[256:] != 0)


def test_sign_fix_moves_toward_the_sign_of_x():
    q = np.concatenate([-np.geomspace(1.0, 1e-3, 100), np.linspace(2e-3, 1.0, 156)]).astype(np.float32)
    x = np.float32([1e-4, -1e-3, 2e-3, -1.0, 1.0, 0.0])
    codes = bisect_codes(x, q)
    assert codes[0] == 99 and q[99] < 0                          # 1e-4 is nearest -1e-3
    fixed = sign_fix(x, codes, q)
    assert fixed.tolist() == [100, codes[1], codes[2], 0, 255, codes[5]]
    # the end of the map clamps: x < 0 on a positive entry at index 0 cannot go below 0
    q_pos = np.linspace(0.1, 1.0, 256).astype(np.float32)
    assert sign_fix(np.float32([-0.5]), np.uint8([0]), q_pos).tolist() == [0]


# ---- the NZ byte formula ----

def test_nz_bytes_hand_example():
    # K = 4, N = 2: two bytes a row of the {N, K} storage; c1 = 1, padN = 16, c0 = 16 bytes
    src = np.array([0x21, 0x43, 0x65, 0x87], np.uint8)           # rows n=0: 21 43, n=1: 65 87
    dst = nz_c0_32_bytes(src, h=1, n=2, k=4)
    assert dst.size == 1 * 1 * 16 * 16
    want = np.zeros(256, np.uint8)
    want[[0, 1, 16, 17]] = [0x21, 0x43, 0x65, 0x87]
    assert np.array_equal(dst, want)


def test_nz_bytes_second_k_block_and_groups():
    # K = 40: 20 bytes a row, c1 = 2 blocks of 16 bytes; N = 17: padN = 32; two groups
    h, n, k = 2, 17, 40
    c = k // 2
    src = (np.arange(h * n * c) % 251 + 1).astype(np.uint8)      # no zero source byte
    dst = nz_c0_32_bytes(src, h, n, k).reshape(h, 2, 32, 16)     # [h][c1][padN][c0]
    s = src.reshape(h, n, c)
    assert np.array_equal(dst[:, 0, :n, :], s[:, :, :16])
    assert np.array_equal(dst[:, 1, :n, :4], s[:, :, 16:20])     # bytes 16..19 of each row
    assert not dst[:, 1, :, 4:].any() and not dst[:, :, n:, :].any()   # padding is 0


def test_nz_bytes_match_the_element_definition():
    rng = np.random.default_rng(5)
    for g, k, n in ((1, 64, 20), (3, 96, 33), (2, 2, 3), (1, 32, 1)):
        w = rng.integers(0, 16, (g, k, n), dtype=np.uint8)       # logical {G, K, N}
        storage = w.transpose(0, 2, 1)                            # {G, N, K}, K contiguous
        src = (storage[..., 0::2] | (storage[..., 1::2] << 4)).astype(np.uint8).reshape(-1)
        dst = nz_c0_32_bytes(src, g, n, k)
        k1, n1 = -(-k // 32), -(-n // 16)
        codes = np.empty(dst.size * 2, np.uint8)
        codes[0::2], codes[1::2] = dst & 0x0F, dst >> 4
        nz = codes.reshape(g, k1, n1, 16, 32)
        for gi in range(g):
            for kk in range(k1 * 32):
                for nn in range(n1 * 16):
                    want = w[gi, kk, nn] if kk < k and nn < n else 0
                    assert nz[gi, kk // 32, nn // 16, nn % 16, kk % 32] == want


def test_wqp_writes_nothing_but_the_nz_storage_and_the_copies():
    from aclnn_conformance.suites.calls import weight_quant_preprocess as wqp
    case = wqp.make_call("guard", k=64, n=20, seed=9, bias="n")
    res = BACKEND.run(case, A950)
    assert res.status == 0
    out = res.storages["outWeight"].view(np.uint8)
    nz_elems = 2 * 2 * 16 * 32                                   # ceil(64/32), ceil(20/16), 16, 32
    guard = case.tensor("outWeight").storage.view(np.uint8)[nz_elems:]
    assert np.array_equal(out[nz_elems:], guard)
    for name in ("weight", "weightScale", "biasOptional"):
        assert res.storages[name].tobytes() == case.tensor(name).storage.tobytes()
    assert np.array_equal(case.tensor("outWeightScale").view_of(res.storages["outWeightScale"]),
                          case.tensor("weightScale").values())
    assert np.array_equal(res.storages["outBiasOptional"], case.tensor("biasOptional").values())
    for product in PRODUCT_IDS:
        if product != A950:
            assert BACKEND.run(case, product).status == Status.ERR_RUNTIME_ERROR


def test_the_emulator_does_not_use_the_spec_predicates_or_the_oracles():
    import ast
    import pathlib
    root = pathlib.Path(emu_aawq.__file__).parent
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                    [a.name for a in node.names]
                for mod in names:
                    assert not mod.startswith("aclnn_conformance.oracle"), (path.name, mod)
                    assert mod not in ("aclnn_conformance.spec.rules",
                                       "aclnn_conformance.spec.apply_adam_w_quant",
                                       "aclnn_conformance.spec.weight_quant_preprocess"), (path.name, mod)
