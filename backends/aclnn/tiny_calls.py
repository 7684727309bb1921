"""One tiny valid call per operator, for the device check (doctor.py).

Each is the smallest call the operator's document shows as valid; the doctor runs it and compares
the status with what the spec expects on the device's product. Values are judged by the suites,
not here. An operator gets its entry in ``TINY_CALLS``, keyed like backends.call_layer.SIGNATURES.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.mx_a8w4_layout import (nz_storage_shape, scale_storage_shape,
                                                   scale_strides, scale_view_shape,
                                                   weight_storage_shape, weight_strides,
                                                   weight_view_shape)
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc, contiguous_strides


def apply_adam_w_quant() -> Case:
    """One block of 256 float32 elements, linear qmaps, step 1."""
    rng = np.random.default_rng(0)
    n = 256
    tensors = {
        "varRef": TensorArg.from_array(rng.standard_normal(n) * 0.1, DT.FLOAT),
        "grad": TensorArg.from_array(rng.standard_normal(n) * 0.01, DT.FLOAT),
        "mRef": TensorArg.from_array(rng.integers(0, 256, n), DT.UINT8),
        "vRef": TensorArg.from_array(rng.integers(0, 256, n), DT.UINT8),
        "qmapM": TensorArg.from_array(np.linspace(-1.0, 1.0, 256), DT.FLOAT),
        "qmapV": TensorArg.from_array(np.linspace(0.0, 1.0, 256), DT.FLOAT),
        "absmaxMRef": TensorArg.from_array(np.array([0.05]), DT.FLOAT),
        "absmaxVRef": TensorArg.from_array(np.array([1e-4]), DT.FLOAT),
        "step": TensorArg.from_array(np.array([1]), DT.INT64),
    }
    attrs = {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "weightDecay": 0.01, "eps": 1e-8,
             "gnormScale": 1.0, "quantModeOptional": "BLOCKWISE", "blockSize": 256}
    return Case(op="apply_adam_w_quant", case_id="doctor-tiny", tensors=tensors, attrs=attrs,
                origin="doctor")


def _codes(dtype: DT, shape, strides, storage_shape, fmt: F, codes: np.ndarray) -> TensorArg:
    """A one-byte-element tensor whose storage holds ``codes`` in storage order."""
    desc = TensorDesc(dtype, tuple(shape), tuple(strides), 0, fmt, tuple(storage_shape))
    size = max(desc.extent(), desc.storage_numel)
    raw = np.zeros(size, np.uint8)
    raw[:codes.size] = codes
    return TensorArg(desc, raw.view(numpy_dtype(dtype)))


def weight_quant_preprocess() -> Case:
    """The document's MM_MX_A8W4 example: K=64, N=128, no offset, no bias."""
    k, n = 64, 128
    rng = np.random.default_rng(0)
    scale_codes = np.full(int(np.prod(scale_storage_shape(k, n))), 127, np.uint8)   # 2**0
    nz = nz_storage_shape(k, n)
    tensors = {
        "weight": _codes(DT.FLOAT4_E2M1, weight_view_shape(k, n), weight_strides(k, n),
                         weight_storage_shape(k, n), F.ND, rng.integers(0, 16, k * n, np.uint8)),
        "weightScale": _codes(DT.FLOAT8_E8M0, scale_view_shape(k, n), scale_strides(k, n),
                              scale_storage_shape(k, n), F.ND, scale_codes),
        "weightOffsetOptional": None,
        "biasOptional": None,
        "outWeight": _codes(DT.FLOAT4_E2M1, weight_view_shape(k, n),
                            contiguous_strides(weight_view_shape(k, n)), nz, F.FRACTAL_NZ_C0_32,
                            np.zeros(0, np.uint8)),
        "outWeightScale": _codes(DT.FLOAT8_E8M0, scale_view_shape(k, n), scale_strides(k, n),
                                 scale_storage_shape(k, n), F.ND, np.zeros(0, np.uint8)),
        "outWeightOffsetOptional": None,
        "outBiasOptional": None,
    }
    attrs = {"xDtype": DT.FLOAT8_E4M3FN, "xScaleDtype": DT.FLOAT8_E8M0, "kGroupSize": 32}
    return Case(op="weight_quant_preprocess", case_id="doctor-tiny", tensors=tensors, attrs=attrs,
                origin="doctor")


def quant_matmul_weight_nz() -> Case:
    """The document's MM_MX_A8W4 example as the matmul sees it: m 5, k 64, n 128, x1 = 1.0, w = 1.0
    (FP4 code 2 in FRACTAL_NZ_C0_32, view (k, n) strides (1, k)), scales 2**0 and 2**6, bf16 out."""
    m, k, n = 5, 64, 128
    nz = nz_storage_shape(k, n)
    kb = scale_storage_shape(k, n)[1]
    nz_codes = np.zeros(nz, np.uint8)
    nz_codes[..., :, :] = 2                                   # K = 64 and N = 128 fill every fractal
    tensors = {
        "x1": _codes(DT.FLOAT8_E4M3FN, (m, k), contiguous_strides((m, k)), (m, k), F.ND,
                     np.full(m * k, 0x38, np.uint8)),
        "x2": _codes(DT.FLOAT4_E2M1, weight_view_shape(k, n), weight_strides(k, n), nz,
                     F.FRACTAL_NZ_C0_32, nz_codes.reshape(-1)),
        "x1Scale": _codes(DT.FLOAT8_E8M0, (m, kb, 2), contiguous_strides((m, kb, 2)), (m, kb, 2), F.ND,
                          np.full(m * kb * 2, 0x7F, np.uint8)),
        "x2Scale": _codes(DT.FLOAT8_E8M0, scale_view_shape(k, n), scale_strides(k, n),
                          scale_storage_shape(k, n), F.ND, np.full(n * kb * 2, 0x85, np.uint8)),
        "yScale": None, "x1Offset": None, "x2Offset": None, "yOffset": None, "bias": None,
        "out": TensorArg.from_array(np.zeros((m, n)), DT.BF16),
    }
    attrs = {"transposeX1": False, "transposeX2": False, "groupSize": 32}
    return Case(op="quant_matmul_weight_nz", case_id="doctor-tiny", tensors=tensors, attrs=attrs,
                origin="doctor")


def apply_adam_w_v2() -> Case:
    """The document's example: 2x2 float32, inputs 0, 1, 2, 3, step 1.0, amsgrad and maximize."""
    x = np.arange(4.0).reshape(2, 2)
    tensors = {name: TensorArg.from_array(x, DT.FLOAT)
               for name in ("varRef", "mRef", "vRef", "maxGradNormOptionalRef", "grad")}
    tensors["step"] = TensorArg.from_array(np.array([1.0]), DT.FLOAT)
    attrs = {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "weightDecay": 1e-2, "eps": 1e-8,
             "amsgrad": True, "maximize": True}
    return Case(op="apply_adam_w_v2", case_id="doctor-tiny", tensors=tensors, attrs=attrs, origin="doctor")


def apply_adam_w() -> Case:
    """The document's example: [2,2] float32, inputs 0..3, amsgrad and maximize true."""
    x = np.arange(4.0).reshape(2, 2)
    one = {"beta1Power": 0.431, "beta2Power": 0.992, "lr": 1e-3, "weightDecay": 0.01, "beta1": 0.9,
           "beta2": 0.999, "eps": 1e-8}
    tensors = {"varRef": TensorArg.from_array(x, DT.FLOAT), "mRef": TensorArg.from_array(x, DT.FLOAT),
               "vRef": TensorArg.from_array(x, DT.FLOAT),
               **{k: TensorArg.from_array(np.array([v]), DT.FLOAT) for k, v in one.items()},
               "grad": TensorArg.from_array(x, DT.FLOAT),
               "maxGradNormOptional": TensorArg.from_array(x, DT.FLOAT)}
    return Case(op="apply_adam_w", case_id="doctor-tiny", tensors=tensors,
                attrs={"amsgrad": True, "maximize": True}, origin="doctor")


TINY_CALLS: dict[str, Callable[[], Case]] = {
    "apply_adam_w": apply_adam_w,
    "apply_adam_w_quant": apply_adam_w_quant,
    "weight_quant_preprocess": weight_quant_preprocess,
    "quant_matmul_weight_nz": quant_matmul_weight_nz,
    "apply_adam_w_v2": apply_adam_w_v2,
}
