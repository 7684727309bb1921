"""How to break each check rule of weight_quant_preprocess alone, by rule id.

Each transformation breaks its rule and nothing checked before it; ``FAULTS`` maps the rule ids to
them (``aclnn_conformance.suites.faults`` turns them into one-fault and fault-pair cases).
"""
from __future__ import annotations

import math

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.tensor import TensorArg, contiguous_strides
from aclnn_conformance.spec.mx_a8w4_layout import (
    C0, scale_rows, scale_storage_shape, scale_strides, scale_view_shape, weight_storage_shape,
    weight_strides, weight_view_shape)
from aclnn_conformance.spec.weight_quant_preprocess import MANDATORY, dims, _bias, _desc, _out_bias
from aclnn_conformance.suites.calls.weight_quant_preprocess import recast
from aclnn_conformance.spec.faults import Fault


def _null(name: str):
    return lambda case: case.with_tensor(name, None)


def _null_out(name: str):
    return lambda case: case.with_(null_outputs=case.null_outputs | {name})




def _retype(name: str, dtype: DT):
    return lambda case: case.with_tensor(name, recast(case.tensor(name), dtype))


def _redesc(name: str, **changes):
    return lambda case: case.with_tensor(name, case.tensor(name).with_desc(**changes))


def _reformat(name: str, fmt: F):
    return _redesc(name, format=fmt)


def _set_attr(**attrs):
    return lambda case: case.with_attrs(**attrs)


def _empty(name: str):
    """Give ``name`` a view with a zero leading dimension (strides and storage shape kept)."""
    def fault(case: Case) -> Case:
        d = _desc(case, name)
        return case.with_tensor(name, case.tensor(name).with_desc(shape=(0,) + d.shape[1:]))
    return fault


def _new_bias(shape, dtype: DT = DT.FLOAT16, fmt: F = F.ND) -> TensorArg:
    values = (np.arange(math.prod(shape)) % 7 - 3).reshape(shape)
    return TensorArg.from_array(values, dtype, fmt)


def _default_bias_shape(case: Case) -> tuple[int, ...]:
    g, k, n = dims(case)
    return (n,) if g is None else (g, n)


def ensure_bias(case: Case) -> Case:
    """A valid bias and outBias (added when the call has none)."""
    if case.tensor("biasOptional") is None:
        case = case.with_tensor("biasOptional", _new_bias(_default_bias_shape(case)))
    if case.tensor("outBiasOptional") is None:
        bias = case.tensor("biasOptional")
        case = case.with_tensor("outBiasOptional", TensorArg(bias.desc, np.zeros_like(bias.storage)))
    return case


def _with_bias(fault):
    return lambda case: fault(ensure_bias(case))


def _replace_bias(shape_of, also_out: bool = True):
    """Bias (and outBias) of another shape, contiguous, same dtype."""
    def fault(case: Case) -> Case:
        case = ensure_bias(case)
        shape = tuple(shape_of(case))
        arg = _new_bias(shape, _bias(case).dtype)
        case = case.with_tensor("biasOptional", arg)
        if also_out:
            case = case.with_tensor("outBiasOptional", TensorArg(arg.desc, np.zeros_like(arg.storage)))
        return case
    return fault


def _spread(name: str):
    """Every stride doubled: the view skips every other storage element. A view of more than one
    element is then not contiguous."""
    def fault(case: Case) -> Case:
        d = _desc(case, name)
        if d.numel <= 1:
            raise ValueError(f"{name} {d.shape} has one element: every layout of it is contiguous")
        strides = tuple(2 * s for s in contiguous_strides(d.shape))
        return case.with_tensor(name, case.tensor(name).with_desc(strides=strides))
    return fault


def _weight_rank4(case: Case) -> Case:
    g, k, n = dims(case)
    shape = (1, 1, k, n) if g is None else (1, g, k, n)
    strides = (k * n * (g or 1), k * n, 1, k)
    return _redesc("weight", shape=shape, strides=strides,
                   storage_shape=shape[:-2] + (n, k))(case)




def _weight_not_transposed(case: Case) -> Case:
    """Row-major strides over the documented {[G,] N, K} storage (the vendor test's {128, 1})."""
    d = _desc(case, "weight")
    strides = contiguous_strides(d.shape)
    if d.shape[-2] == 1 and strides[-2:] == (d.shape[-1], 1):
        strides = strides[:-2] + (d.shape[-1], 2)   # K == 1 would make row-major look transposed
    return _redesc("weight", strides=strides)(case)


def _k_not_multiple_of_32(case: Case) -> Case:
    """K - 2: even, not a multiple of 32, same ceil(K/32) and ceil(K/64), so every other shape holds."""
    g, k, n = dims(case)
    if k % C0:
        return case
    k2 = k - 2
    w, ow = _desc(case, "weight"), _desc(case, "outWeight")
    view = weight_view_shape(k2, n, g)
    w_strides = weight_strides(k2, n, g) if w.strides == weight_strides(k, n, g) else w.strides
    w_storage = (weight_storage_shape(k2, n, g) if w.storage_shape == weight_storage_shape(k, n, g)
                 else w.storage_shape)
    case = _redesc("weight", shape=view, strides=w_strides, storage_shape=w_storage)(case)
    if ow.strides == contiguous_strides(ow.shape):
        ow_strides = contiguous_strides(view)
    elif ow.strides == weight_strides(k, n, g):
        ow_strides = weight_strides(k2, n, g)
    else:
        ow_strides = ow.strides
    return _redesc("outWeight", shape=view, strides=ow_strides)(case)


def _weight_storage_as_view(case: Case) -> Case:
    """Declare the weight's storage shape flat (same element count, not the documented shape)."""
    return _redesc("weight", storage_shape=(_desc(case, "weight").numel,))(case)


def _gmm_weight_group_gap(case: Case) -> Case:
    """GMM weight stride[0] = K*N + 32: the groups lie apart in memory."""
    g, k, n = dims(case)
    d = _desc(case, "weight")
    return _redesc("weight", strides=(k * n + 32,) + d.strides[1:])(case)


def _scale_rank(case: Case) -> Case:
    """One more leading dimension of 1 (MM rank 4, GMM rank 5)."""
    d = _desc(case, "weightScale")
    return _redesc("weightScale", shape=(1,) + d.shape, strides=(d.numel,) + d.strides,
                   storage_shape=(1,) + d.storage_shape)(case)


def _scale_rows_plus_one(case: Case) -> Case:
    """ceil(K/64) + 1 scale rows (the vendor test's {2, 128, 2} for K = 64), transposed strides."""
    g, k, n = dims(case)
    kb = scale_rows(k) + 1
    view = (kb, n, 2) if g is None else (g, kb, n, 2)
    strides = (2, 2 * kb, 1) if g is None else (2 * kb * n, 2, 2 * kb, 1)
    storage = (n, kb, 2) if g is None else (g, n, kb, 2)
    return _redesc("weightScale", shape=view, strides=strides, storage_shape=storage)(case)


def _scale_not_transposed(case: Case) -> Case:
    """The row-swapped stride no longer equals stride*rows: (2, 2*kb + 2, 1) for MM."""
    d = _desc(case, "weightScale")
    i = 1 if d.ndim == 4 else 0
    strides = list(d.strides)
    strides[i + 1] = strides[i] * d.shape[i] + 2
    return _redesc("weightScale", strides=tuple(strides))(case)


def _scale_strides_doubled(case: Case) -> Case:
    """Each documented stride doubled: still 'transposed' as the code checks it, not the doc's list."""
    g, k, n = dims(case)
    strides = tuple(2 * s for s in scale_strides(k, n, g))
    return _redesc("weightScale", strides=strides)(case)


def _scale_storage_flat(case: Case) -> Case:
    """weightScale and outWeightScale both declare a flat storage shape (same element count)."""
    flat = (_desc(case, "weightScale").storage_numel,)
    case = _redesc("weightScale", storage_shape=flat)(case)
    return _redesc("outWeightScale", storage_shape=flat)(case)


def _gmm_scale_groups_plus_one(case: Case) -> Case:
    """GMM weightScale (and outWeightScale) with G + 1 groups."""
    g, k, n = dims(case)
    view, strides = scale_view_shape(k, n, g + 1), scale_strides(k, n, g + 1)
    storage = scale_storage_shape(k, n, g + 1)
    for name in ("weightScale", "outWeightScale"):
        case = _redesc(name, shape=view, strides=strides, storage_shape=storage)(case)
    return case


def _out_weight_view_wider(case: Case) -> Case:
    d = _desc(case, "outWeight")
    shape = d.shape[:-1] + (d.shape[-1] + 1,)
    return _redesc("outWeight", shape=shape, strides=contiguous_strides(shape))(case)


def _out_weight_storage_rank(case: Case) -> Case:
    d = _desc(case, "outWeight")
    s = d.storage_shape
    return _redesc("outWeight", storage_shape=s[:-4] + (s[-4] * s[-3], s[-2], s[-1]))(case)


def _out_weight_nz_dims(case: Case) -> Case:
    s = _desc(case, "outWeight").storage_shape
    return _redesc("outWeight", storage_shape=s[:-3] + (s[-3] + 1,) + s[-2:])(case)


def _gmm_out_weight_groups_plus_one(case: Case) -> Case:
    s = _desc(case, "outWeight").storage_shape
    return _redesc("outWeight", storage_shape=(s[0] + 1,) + s[1:])(case)


def _out_scale_view_rows_plus_one(case: Case) -> Case:
    d = _desc(case, "outWeightScale")
    i = d.ndim - 3
    shape = list(d.shape)
    shape[i] += 1
    return _redesc("outWeightScale", shape=tuple(shape))(case)


def _out_scale_storage_flat(case: Case) -> Case:
    d = _desc(case, "outWeightScale")
    return _redesc("outWeightScale", storage_shape=(d.storage_numel,))(case)


def _out_bias_rank_plus_one(case: Case) -> Case:
    case = ensure_bias(case)
    d = _out_bias(case)
    shape = (1,) + d.shape
    return _redesc("outBiasOptional", shape=shape, strides=contiguous_strides(shape),
                   storage_shape=shape)(case)


def _out_bias_storage_plus_dim(case: Case) -> Case:
    case = ensure_bias(case)
    d = _out_bias(case)
    return _redesc("outBiasOptional", storage_shape=d.storage_shape + (1,))(case)


def _other_bias_dtype(case: Case) -> Case:
    case = ensure_bias(case)
    other = DT.BF16 if _bias(case).dtype != DT.BF16 else DT.FLOAT16
    return _retype("outBiasOptional", other)(case)


def _offset_tensor(name: str):
    return lambda case: case.with_tensor(name, TensorArg.from_array(np.zeros(dims(case)[2]),
                                                                    DT.FLOAT16))


def _bad_bias_shape(case: Case) -> tuple[int, ...]:
    """A bias shape the code rejects: (2, N) for MM (the vendor test's (2, 128)), (N) for GMM."""
    g, k, n = dims(case)
    return (2, n) if g is None else (n,)


FAULTS: dict[str, Fault] = {
    "WQP-NULL-001": Fault(_null_out("workspaceSize")),
    "WQP-NULL-002": Fault(_null_out("executor")),
    **{f"WQP-NULL-{i + 3:03d}": Fault(_null(name)) for i, name in enumerate(MANDATORY)},
    "WQP-FLOW-001": Fault(_retype("weight", DT.INT8)),
    "WQP-FLOW-002": Fault(_retype("weightScale", DT.INT8)),
    "WQP-FLOW-003": Fault(_set_attr(xDtype=DT.FLOAT16)),
    "WQP-FLOW-004": Fault(_set_attr(xScaleDtype=DT.FLOAT8_E4M3FN)),
    "WQP-FLOW-005": Fault(_weight_rank4),
    "WQP-EMPTY-001": Fault(_empty("weight")),
    "WQP-SHAPE-001": Fault(_k_not_multiple_of_32),
    "WQP-FORMAT-001": Fault(_reformat("weight", F.NCHW)),
    "WQP-FORMAT-002": Fault(_reformat("weight", F.NCL)),
    "WQP-SHAPE-002": Fault(_weight_storage_as_view),
    "WQP-STRIDE-001": Fault(_weight_not_transposed),
    "WQP-STRIDE-002": Fault(_gmm_weight_group_gap, base="gmm"),
    "WQP-EMPTY-002": Fault(_empty("weightScale")),
    "WQP-FORMAT-003": Fault(_reformat("weightScale", F.NHWC)),
    "WQP-FORMAT-004": Fault(_reformat("weightScale", F.NCHW)),
    "WQP-SHAPE-003": Fault(_scale_rank),
    "WQP-SHAPE-004": Fault(_scale_rows_plus_one),
    "WQP-SHAPE-005": Fault(_gmm_scale_groups_plus_one, base="gmm"),
    "WQP-SHAPE-006": Fault(_scale_storage_flat),
    "WQP-STRIDE-003": Fault(_scale_not_transposed),
    "WQP-STRIDE-004": Fault(_scale_strides_doubled),
    "WQP-OPT-001": Fault(_offset_tensor("weightOffsetOptional")),
    "WQP-OPT-002": Fault(_offset_tensor("outWeightOffsetOptional")),
    "WQP-EMPTY-003": Fault(_with_bias(_redesc("biasOptional", shape=(0,), strides=(1,), storage_shape=(0,)))),
    "WQP-FORMAT-005": Fault(_with_bias(_reformat("biasOptional", F.NCHW))),
    "WQP-DTYPE-001": Fault(_with_bias(_retype("biasOptional", DT.INT8))),
    "WQP-SHAPE-007": Fault(_replace_bias(lambda c: (1, 1, dims(c)[2]))),
    "WQP-SHAPE-008": Fault(_replace_bias(_bad_bias_shape)),
    "WQP-CONTIG-001": Fault(_with_bias(_spread("biasOptional"))),
    "WQP-ATTR-001": Fault(_set_attr(kGroupSize=64)),
    "WQP-EMPTY-004": Fault(_empty("outWeight")),
    "WQP-DTYPE-002": Fault(_retype("outWeight", DT.INT8)),
    "WQP-SHAPE-009": Fault(_out_weight_view_wider),
    "WQP-SHAPE-010": Fault(_out_weight_storage_rank),
    "WQP-FORMAT-006": Fault(_reformat("outWeight", F.ND)),
    "WQP-SHAPE-011": Fault(_out_weight_nz_dims),
    "WQP-SHAPE-012": Fault(_gmm_out_weight_groups_plus_one, base="gmm"),
    "WQP-EMPTY-005": Fault(_empty("outWeightScale")),
    "WQP-FORMAT-007": Fault(_reformat("outWeightScale", F.NHWC)),
    "WQP-FORMAT-008": Fault(_reformat("outWeightScale", F.NCL)),
    "WQP-DTYPE-003": Fault(_retype("outWeightScale", DT.INT8)),
    "WQP-SHAPE-013": Fault(_out_scale_view_rows_plus_one),
    "WQP-SHAPE-014": Fault(_out_scale_storage_flat),
    "WQP-NULL-007": Fault(_with_bias(_null("outBiasOptional"))),
    "WQP-EMPTY-006": Fault(_with_bias(_redesc("outBiasOptional", shape=(0,), strides=(1,)))),
    "WQP-FORMAT-009": Fault(_with_bias(_reformat("outBiasOptional", F.NCHW))),
    "WQP-CONTIG-002": Fault(_with_bias(_spread("outBiasOptional"))),
    "WQP-DTYPE-004": Fault(_other_bias_dtype),
    "WQP-SHAPE-015": Fault(_out_bias_rank_plus_one),
    "WQP-SHAPE-016": Fault(_out_bias_storage_plus_dim),
    "WQP-INNER-001": Fault(_reformat("weight", F.NCL)),

}
