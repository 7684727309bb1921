"""The NumPy oracle of aclnnApplyAdamW: the vendor golden's float32 arithmetic, and the per-element
bound the arithmetic model allows around it.

``cann`` (notes apply_adam_w.md section 6.1, the golden ``optim/apply_adam_w/tests/assets/golden.py``):
every tensor, the seven one-element hyper-parameter tensors included, is up-cast to float32 (exact:
a float16/bfloat16 hyper-parameter keeps its 16-bit value); every operation below is one float32
rounding, no fused multiply-add, in this order::

    g     = -grad if maximize else grad
    m1    = m*b1 - (b1 - 1)*g
    v1    = v*b2 - ((b2 - 1)*g)*g
    var_t = var*(1 - lr*wd)                    # decay before the step, for every sign of wd
    b1t   = beta1Power*b1 ;  b2t = beta2Power*b2   # the caller passes beta^(t-1)
    vv    = max(maxGradNorm, v1) if amsgrad else v1    # NaN propagates
    denom = sqrt(vv/(1 - b2t)) + eps           # correctly rounded sqrt
    var'  = var_t + (lr*(m1/(b1t - 1)))/denom
    var', m1, v1 rounded once to var's dtype (RNE); maxGradNorm is never written

``doc``: the document's formula in float64 (beta^t = beta^(t-1)*beta, m_hat = m/(1-beta1^t),
v_hat = v/(1-beta2^t), theta - eta*m_hat/(sqrt(v_hat)+eps) - eta*lambda*theta), with amsgrad's
maximum stored into v as the document reads; each output rounded once to var's dtype.

The bound (``cann``): the arithmetic model lets a correct device evaluate the same real expression
in another order (the Ascend 950 kernel writes ``((lr/(b1t-1))*m1)/denom`` and
``(-v1)/(b2t-1)``), with faithfully rounded operations (an error below one ulp each), fused or
unfused multiply-adds, and one final cast to the output dtype. Running error analysis over the
golden's operations gives, per element, E >= |any model evaluation - the exact value| (the exact
value estimated in float64); the bound is the largest distance from the oracle's output to the
output dtype's rounding of any value within E of the exact one. Cancellation widens it (1 - b2t
near 0, m*b1 against (b1-1)*g), nothing else does.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.oracle.adamw_arithmetic import (F32, VAR_DTYPES, decay_factor_spread, evaluation_labels,
                                                      round_to_dtype)
from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case

__all__ = ["apply_adam_w", "apply_adam_w_golden", "apply_adam_w_doc", "model_bounds", "OPERATION_ERROR",
           "from_case"]

# The faithful operations of the update (two sqrt, up to four divisions or reciprocals across the
# vendor's orders), each one float32 ulp (2^-23 relative) at most when it leans, with room.
FAITHFUL_LEAN = 2.0 ** -20

# One operation of the golden: up to two faithfully rounded float32 steps (a division done as a
# reciprocal and a product, a multiply-add left unfused), each with a relative error below 2^-23,
# plus the float64 estimate's own rounding; below 2^-149 absolute per step in the subnormal range.
OPERATION_ERROR = 2.0 ** -22 + 2.0 ** -52
SUBNORMAL_ERROR = 2.0 ** -148


def _scalar32(x) -> np.float32:
    """The one element of a hyper-parameter tensor, up-cast to float32 (exact from fp16/bf16)."""
    flat = np.asarray(x).reshape(-1)
    if flat.size != 1:
        raise ValueError(f"a hyper-parameter tensor holds one element, got {flat.size}")
    return F32(flat[0])


def apply_adam_w_golden(var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps,
                        grad, max_grad_norm=None, *, amsgrad: bool = False,
                        maximize: bool = False) -> dict[str, np.ndarray]:
    """The golden's float32 results before the final cast: ``var``, ``m``, ``v`` (float32).

    In-place NumPy operations keep the temporaries few; each still rounds once, in the golden's
    order (an operand swap of a commutative operation changes no bit)."""
    shape = np.shape(var)
    f = lambda a: np.atleast_1d(np.asarray(a, dtype=F32))   # noqa: E731  (exact; float32 not copied)
    b1p, b2p, lr32, wd, b1, b2, eps32 = (_scalar32(s) for s in (
        beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps))
    one = F32(1)
    with np.errstate(all="ignore"):
        g = -f(grad) if maximize else f(grad)
        m1 = f(m) * b1
        m1 -= (b1 - one) * g                        # m*b1 - (b1-1)*g
        t = g * (b2 - one)
        t *= g                                      # ((b2-1)*g)*g
        v1 = f(v) * b2
        v1 -= t
        b1t, b2t = b1p * b1, b2p * b2
        if amsgrad:
            vv = np.maximum(f(max_grad_norm), v1, out=t)
        else:
            vv = t
            np.copyto(vv, v1)
        vv /= one - b2t
        denom = np.sqrt(vv, out=vv)
        denom += eps32                              # sqrt(vv/(1-b2t)) + eps
        var_new = np.divide(m1, b1t - one)
        var_new *= lr32
        var_new /= denom                            # (lr*(m1/(b1t-1)))/denom
        var_t = np.multiply(f(var), one - lr32 * wd, out=t)
        var_new += var_t                            # var_t + the step
    return {"var": var_new.reshape(shape), "m": m1.reshape(shape), "v": v1.reshape(shape)}


def apply_adam_w_doc(var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps, grad,
                     max_grad_norm=None, *, amsgrad: bool = False,
                     maximize: bool = False) -> dict[str, np.ndarray]:
    """The document's formula in float64: ``var``, ``m``, ``v`` (float64, v holding the amsgrad
    maximum)."""
    d = lambda a: np.asarray(a).astype(np.float64)     # noqa: E731
    b1p, b2p, lr64, wd, b1, b2, eps64 = (np.float64(_scalar32(s)) for s in (
        beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps))
    theta = d(var)
    with np.errstate(all="ignore"):
        g = -d(grad) if maximize else d(grad)
        m1 = b1 * d(m) + (1 - b1) * g
        v1 = b2 * d(v) + (1 - b2) * g * g
        if amsgrad:
            v1 = np.maximum(d(max_grad_norm), v1)
        m_hat = m1 / (1 - b1p * b1)
        v_hat = v1 / (1 - b2p * b2)
        theta = theta - lr64 * m_hat / (np.sqrt(v_hat) + eps64) - lr64 * wd * theta
    return {"var": theta, "m": m1, "v": v1}


# ---- the model's bound ----

class _Tracked:
    """A value estimated in float64 and a bound on how far any model evaluation of it lies from it
    (``e`` is the scalar 0.0 for an exact value, so that exact operands cost no array work)."""

    __slots__ = ("x", "e")

    def __init__(self, x, e=0.0):
        self.x = np.asarray(x, dtype=np.float64)
        self.e = e

    @staticmethod
    def _rounded(x, e) -> "_Tracked":
        bound = np.abs(x)
        if not np.isscalar(e) or e:
            bound += e
        bound *= OPERATION_ERROR
        bound += SUBNORMAL_ERROR
        if not np.isscalar(e) or e:
            bound += e
        return _Tracked(x, bound)

    def _exact(self) -> bool:
        return np.isscalar(self.e) and self.e == 0

    def __add__(self, o: "_Tracked") -> "_Tracked":
        return self._rounded(self.x + o.x, _sum(self.e, o.e))

    def __sub__(self, o: "_Tracked") -> "_Tracked":
        return self._rounded(self.x - o.x, _sum(self.e, o.e))

    def __mul__(self, o: "_Tracked") -> "_Tracked":
        terms = []
        if not o._exact():
            terms.append(np.abs(self.x) * o.e)
        if not self._exact():
            terms.append(np.abs(o.x) * self.e)
        if terms and not (self._exact() or o._exact()):
            terms.append(self.e * o.e)
        return self._rounded(self.x * o.x, _sum(*terms))

    def __truediv__(self, o: "_Tracked") -> "_Tracked":
        x = self.x / o.x
        if o._exact():
            return self._rounded(x, np.abs(self.e / o.x) if not self._exact() else 0.0)
        room = np.abs(o.x) - o.e
        num = np.abs(x) * o.e
        if not self._exact():
            num += self.e
        e = np.where(room > 0, num / np.where(room > 0, room, 1.0), np.inf)
        return self._rounded(x, e)

    def sqrt(self) -> "_Tracked":
        x = np.sqrt(self.x)
        if self._exact():
            return self._rounded(x, 0.0)
        low = self.x - self.e
        down = np.where(low >= 0, self.e / (x + np.sqrt(np.maximum(low, 0.0))), x)
        return self._rounded(x, np.where(self.e > 0, down, 0.0))

    def maximum(self, o: "_Tracked") -> "_Tracked":
        return _Tracked(np.maximum(self.x, o.x), np.maximum(self.e, o.e))

    def neg(self) -> "_Tracked":
        return _Tracked(-self.x, self.e)


def _sum(*terms):
    """The sum of error terms, skipping exact (scalar zero) ones."""
    live = [t for t in terms if not (np.isscalar(t) and t == 0)]
    if not live:
        return 0.0
    total = live[0] + live[1] if len(live) > 1 else live[0]
    for t in live[2:]:
        total += t
    return total


def model_bounds(var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps, grad,
                 max_grad_norm=None, *, amsgrad: bool = False,
                 maximize: bool = False) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per output, (the exact value estimated in float64, E): every evaluation the arithmetic model
    allows lies within E of the exact value before the final cast."""
    t = lambda a: _Tracked(np.asarray(a).astype(np.float64))     # noqa: E731  (exact inputs)
    b1p, b2p, lr_, wd, b1, b2, eps_ = (_Tracked(np.float64(_scalar32(s))) for s in (
        beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps))
    one = _Tracked(1.0)
    with np.errstate(all="ignore"):
        g = t(grad).neg() if maximize else t(grad)
        m1 = t(m) * b1 - (b1 - one) * g
        v1 = t(v) * b2 - ((b2 - one) * g) * g
        var_t = t(var) * (one - lr_ * wd)
        vv = t(max_grad_norm).maximum(v1) if amsgrad else v1
        denom = (vv / (one - b2p * b2)).sqrt() + eps_
        step = (lr_ * (m1 / (b1p * b1 - one))) / denom
        var_new = var_t + step
    return {"var": (var_new.x, var_new.e), "m": (m1.x, m1.e), "v": (v1.x, v1.e), "step": step.x}


def lean_bound(var, step, lr, weight_decay) -> np.ndarray:
    """What may lean one way on every var element: the two values of 1 - lr*wd, and every faithful
    operation of the update choosing one neighbour (the moments and the sums lean no way)."""
    spread = decay_factor_spread(_scalar32(lr), _scalar32(weight_decay))
    with np.errstate(all="ignore"):
        return np.abs(np.asarray(var, np.float64)) * spread + np.abs(step) * FAITHFUL_LEAN


def output_bound(result: np.ndarray, exact: np.ndarray, error: np.ndarray, dtype) -> np.ndarray:
    """The largest |y - result| over y = the dtype's rounding (RNE) of any value within ``error``
    of ``exact`` (float64; inf where the window reaches an overflow, NaN where exact is NaN)."""
    with np.errstate(all="ignore"):
        lo = round_to_dtype(exact - error, dtype).astype(np.float64)
        hi = round_to_dtype(exact + error, dtype).astype(np.float64)
        r = np.asarray(result).astype(np.float64)
        return np.maximum(r - lo, hi - r)


def apply_adam_w(var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps, grad,
                 max_grad_norm=None, *, amsgrad: bool = False, maximize: bool = False,
                 profile: str = "cann", bounds: bool = False) -> dict[str, np.ndarray]:
    """The expected ``var``, ``m``, ``v`` in var's dtype; with ``bounds`` (cann) also ``bound_var``,
    ``bound_m``, ``bound_v``: the model's per-element bound around each (float64)."""
    dtype = np.asarray(var).dtype
    if dtype not in VAR_DTYPES:
        raise TypeError(f"varRef dtype {dtype} is not FLOAT32, FLOAT16 or BFLOAT16")
    if amsgrad and max_grad_norm is None:
        raise ValueError("amsgrad needs maxGradNorm")
    args = (var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps, grad,
            max_grad_norm)
    kw = dict(amsgrad=amsgrad, maximize=maximize)
    if profile == "doc":
        return {k: round_to_dtype(x, dtype) for k, x in apply_adam_w_doc(*args, **kw).items()}
    if profile != "cann":
        raise ValueError(f"unknown profile {profile!r}")
    raw = apply_adam_w_golden(*args, **kw)
    out = {k: x if dtype == np.dtype(F32) else round_to_dtype(x, dtype) for k, x in raw.items()}
    if bounds:
        out.update(_chunked_bounds(out, raw, args, kw, dtype))
        out.update({f"unrounded_{k}": x for k, x in raw.items()})
    return out


# Elements per slice of the bound computation: its float64 temporaries then stay in the cache.
BOUND_CHUNK = 1 << 15


def _chunked_bounds(out: dict, raw: dict, args: tuple, kw: dict, dtype) -> dict[str, np.ndarray]:
    """``bound_var``, ``bound_m``, ``bound_v`` (after the cast), ``bound32_*`` (of the float32 result
    before it) and ``lean_var``, computed slice by slice of the flattened tensors."""
    shape = np.shape(args[0])
    tensor_at = [i for i, a in enumerate(args) if a is not None and np.shape(a) == shape]
    flat = [np.asarray(a).reshape(-1) if i in tensor_at else a for i, a in enumerate(args)]
    n = int(np.prod(shape))
    result = {f"{kind}_{k}": np.empty(n, np.float64) for k in ("var", "m", "v") for kind in ("bound", "bound32")}
    result["lean_var"] = np.empty(n, np.float64)
    for lo in range(0, n, BOUND_CHUNK):
        hi = min(lo + BOUND_CHUNK, n)
        part = list(flat)
        for i in tensor_at:
            part[i] = flat[i][lo:hi]
        tracked = model_bounds(*part, **kw)
        result["lean_var"][lo:hi] = lean_bound(part[0], tracked.pop("step"), args[5], args[6])
        for k, (exact, error) in tracked.items():
            result[f"bound_{k}"][lo:hi] = output_bound(out[k].reshape(-1)[lo:hi], exact, error, dtype)
            result[f"bound32_{k}"][lo:hi] = output_bound(raw[k].reshape(-1)[lo:hi], exact, error, F32)
    return {k: b.reshape(shape) for k, b in result.items()}


# ---- from a Case ----

def from_case(case: Case, profile: str, product: str) -> OracleResult:
    """The expected var, m, v of one ApplyAdamW call on ``product``, and for the cann profile the
    inputs of the model-derived standards (``bound`` for model-bound@1; ``envelope`` for
    model-bound@3)."""
    from aclnn_conformance.spec.apply_adam_w import ARITHMETIC, TENSORS
    from aclnn_conformance.spec.precision import cast_ties, dtype_name
    vals = [None if case.tensor(n) is None else case.tensor(n).values() for n in TENSORS]
    out = apply_adam_w(*vals, amsgrad=bool(case.attrs.get("amsgrad", False)),
                       maximize=bool(case.attrs.get("maximize", False)), profile=profile,
                       bounds=profile == "cann")
    names = {"varRef": "var", "mRef": "m", "vRef": "v"}
    views = {name: out[key] for name, key in names.items()}
    aux: dict = {}
    if "bound_var" not in out:
        return OracleResult(views=views, aux=aux)
    dtype = np.asarray(views["varRef"]).dtype
    # a product without a kernel computes nothing: no cast of its own (round to even, unused)
    ties = (cast_ties(ARITHMETIC, product, dtype_name(dtype))
            if product in ARITHMETIC.final_cast else "even")
    evaluation = evaluation_labels(vals[0], vals[1], vals[2], vals[10], vals[11])
    for name, key in names.items():
        lean = out["lean_var"] if key == "var" else np.zeros(out[f"bound32_{key}"].shape)
        aux[name] = {"bound": out[f"bound_{key}"],
                     "envelope": {"bound": out[f"bound32_{key}"], "unrounded": out[f"unrounded_{key}"],
                                  "scalar_share": lean.reshape(-1), "evaluation": evaluation,
                                  "ties": ties}}
    return OracleResult(views=views, aux=aux)
