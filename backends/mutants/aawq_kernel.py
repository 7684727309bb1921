"""The emulator's ApplyAdamWQuant kernel, one overridable method per step, for value mutants.

``AawqKernel`` computes exactly what ``backends.emulator.apply_adam_w_quant.adam_w_quant_update``
computes (the same float32 operations in the same order, the emulator's own ``pow_f32``,
``bisect_codes`` and ``sign_fix``); a mutant subclasses it and swaps one step. That the unmodified
variant agrees with the emulator bit for bit on every case of the tier is a test of its own
(tests/test_mutants.py), so a mutant differs from the emulator by its one defect only.

``recompute`` replaces the outputs of a successful emulator call with a kernel's: the inputs are
read through their views, the outputs written back through them, as the emulator does.
"""
from __future__ import annotations

import numpy as np

from backends.base import RunResult
from backends.emulator import apply_adam_w_quant as emu
from backends.mutants.base import copied, replace_result, write_view_flat
from spec.case import Case

F32 = np.float32
BLOCK = emu.BLOCK
HYPER = ("lr", "beta1", "beta2", "weightDecay", "eps", "gnormScale")


class AawqKernel:
    """The kernel's steps; every method is what the emulator does."""

    # ---- scalars (once per call) ----

    def hyper_parameters(self, attrs) -> dict:
        """Every double attribute rounded to float32."""
        return {k: F32(float(attrs[k])) for k in HYPER}

    def time_step(self, step: int):
        """t = step + 1."""
        return F32(step) + F32(1)

    def power(self, base, exponent):
        return emu.pow_f32(base, exponent)

    def corrections(self, b1, b2, t):
        """(1 - beta1^t, sqrt(1 - beta2^t))."""
        one = F32(1)
        return one - self.power(b1, t), np.sqrt(one - self.power(b2, t))

    def eps_term(self, eps, c2):
        return eps * c2

    def scalars(self, hp: dict, step: int) -> dict:
        one = F32(1)
        lr, b1, b2 = hp["lr"], hp["beta1"], hp["beta2"]
        wd, eps, gs = hp["weightDecay"], hp["eps"], hp["gnormScale"]
        with np.errstate(all="ignore"):
            t = self.time_step(step)
            c1, c2 = self.corrections(b1, b2, t)
            step_size = (-lr * c2) / c1
            eps_c2 = self.eps_term(eps, c2)
            wd_factor = one - lr * wd
        return dict(b1=b1, b2=b2, one_b1=one - b1, one_b2=one - b2, gs=gs, step_size=step_size,
                    eps_c2=eps_c2, wd=wd, wd_factor=wd_factor)

    # ---- per element ----

    def qmaps(self, qm: np.ndarray, qv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return qm, qv

    def scale_grad(self, g: np.ndarray, s: dict) -> np.ndarray:
        return g * s["gs"]

    def moments(self, m0, v0, g, s):
        m1 = m0 * s["b1"] + g * s["one_b1"]
        v1 = v0 * s["b2"] + (g * g) * s["one_b2"]
        return m1, v1

    def mask_tail(self, m1, v1, valid):
        """The tail of a partial block is zero-filled before the reductions."""
        return np.where(valid, m1, F32(0)), np.where(valid, v1, F32(0))

    def adam_step(self, var32, m1, v1, s):
        den = np.sqrt(v1) + s["eps_c2"]
        return var32 + (m1 * s["step_size"]) / den

    def decay(self, p, s):
        return p * s["wd_factor"] if s["wd"] > 0 else p

    def cast(self, p, dtype):
        with np.errstate(over="ignore", invalid="ignore"):
            return p.astype(dtype)

    def parameter(self, var32, m1, v1, s, dtype):
        """The new parameter in the var dtype: the Adam step, then the decay, one rounding."""
        return self.cast(self.decay(self.adam_step(var32, m1, v1, s), s), dtype)

    def block_absmax(self, m1, v1, old_am, old_av):
        return np.max(np.abs(m1), axis=1), np.max(np.abs(v1), axis=1)

    def codes(self, x, qmap):
        return emu.bisect_codes(x, qmap)

    def sign_fix(self, x, code, qmap):
        return emu.sign_fix(x, code, qmap)

    # ---- the whole update ----

    def update(self, var, grad, m, v, qmap_m, qmap_v, absmax_m, absmax_v, step: int, hp: dict):
        """The kernel on contiguous flat arrays (``absmax_*``: exactly ceil(n/256) entries).
        Returns (var_out in var's dtype, m codes, v codes, absmax_m, absmax_v)."""
        n = var.size
        blocks = -(-n // BLOCK)
        padded = blocks * BLOCK
        s = self.scalars(hp, step)
        qm, qv = self.qmaps(np.asarray(qmap_m, dtype=F32).reshape(-1),
                            np.asarray(qmap_v, dtype=F32).reshape(-1))

        def pad(a, dtype):
            out = np.zeros(padded, dtype=dtype)
            out[:n] = a.reshape(-1)
            return out.reshape(blocks, BLOCK)

        valid = np.zeros(padded, dtype=bool)
        valid[:n] = True
        valid = valid.reshape(blocks, BLOCK)
        var32 = pad(var.astype(F32), F32)
        g = pad(grad.astype(F32), F32)
        mc, vc = pad(m, np.uint8), pad(v, np.uint8)
        am = np.asarray(absmax_m, dtype=F32).reshape(blocks, 1)
        av = np.asarray(absmax_v, dtype=F32).reshape(blocks, 1)
        with np.errstate(all="ignore"):
            g = self.scale_grad(g, s)
            m1, v1 = self.moments(qm[mc] * am, qv[vc] * av, g, s)
            m1, v1 = self.mask_tail(m1, v1, valid)
            p = self.parameter(var32, m1, v1, s, var.dtype)
            new_am, new_av = self.block_absmax(m1, v1, am, av)
            xm = m1 / new_am[:, None]
            xv = v1 / new_av[:, None]
        m_codes = self.codes(xm, qm)
        if (qm < 0).any():
            m_codes = self.sign_fix(xm, m_codes, qm)
        v_codes = self.codes(xv, qv)
        return (p.reshape(-1)[:n], m_codes.reshape(-1)[:n], v_codes.reshape(-1)[:n],
                np.asarray(new_am, dtype=F32).reshape(-1), np.asarray(new_av, dtype=F32).reshape(-1))


def recompute(case: Case, result: RunResult, kernel: AawqKernel) -> RunResult:
    """``result`` (a successful emulator call of ``case``) with the outputs ``kernel`` computes."""
    if result.status != 0:
        return result
    var_arg = case.tensor("varRef")
    var = var_arg.values()
    n = var.size
    if n == 0:
        return result
    blocks = -(-n // BLOCK)

    def absmax_in(name: str) -> np.ndarray:
        vals = case.tensor(name).values().astype(F32).reshape(-1)[:blocks]
        return np.concatenate([vals, np.zeros(blocks - vals.size, F32)])

    step = int(case.tensor("step").values().reshape(-1)[0])
    var_out, m_out, v_out, am_out, av_out = kernel.update(
        var, case.tensor("grad").values(), case.tensor("mRef").values(),
        case.tensor("vRef").values(), case.tensor("qmapM").values(), case.tensor("qmapV").values(),
        absmax_in("absmaxMRef"), absmax_in("absmaxVRef"), step, kernel.hyper_parameters(case.attrs))
    storages = copied(result)
    write_view_flat(var_arg, storages["varRef"], var_out)
    write_view_flat(case.tensor("mRef"), storages["mRef"], m_out)
    write_view_flat(case.tensor("vRef"), storages["vRef"], v_out)
    write_view_flat(case.tensor("absmaxMRef"), storages["absmaxMRef"], am_out, blocks)
    write_view_flat(case.tensor("absmaxVRef"), storages["absmaxVRef"], av_out, blocks)
    return replace_result(result, storages=storages)
