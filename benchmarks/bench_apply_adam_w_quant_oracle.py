"""Speed of the ApplyAdamWQuant oracle against two references, on 2^24 float32 elements.

    python benchmarks/bench_apply_adam_w_quant_oracle.py [--log2-n 24] [--repeats 3]

(a) the oracle (``oracle.apply_adam_w_quant``);
(b) a straightforward golden: the same float32 formula on whole arrays, and every code taken as the
    argmin over all 256 qmap entries per element (vectorized per chunk of 4096 x 256 distances,
    memory bounded; this chunk size is about twice as fast here as 65536 x 256);
(c) a floor: NumPy only reads the same inputs and writes the same output bytes (plain copies).

Goals: the oracle at least 15x faster than (b), and within 40x of (c). The golden is timed on a
2^20-element subset and scaled linearly to the full size (its cost is linear in n); the script says
so in its output, and also checks that the golden and the oracle agree bit for bit on that subset.
Exits 0 whether or not the goals are met.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aclnn_conformance.oracle.apply_adam_w_quant import apply_adam_w_quant  # noqa: E402

F32 = np.float32
GOAL_VS_ARGMIN = 15.0
GOAL_VS_FLOOR = 40.0
ATTRS = dict(lr=1e-3, beta1=0.9, beta2=0.999, weight_decay=0.01, eps=1e-8, gnorm_scale=1.0)
STEP = 41


def linspace_f32(start: float, end: float, steps: int) -> np.ndarray:
    a, b = F32(start), F32(end)
    step = (b - a) / F32(steps - 1)
    i = np.arange(steps)
    return np.where(i < steps // 2, a + i.astype(F32) * step,
                    b - (steps - 1 - i).astype(F32) * step).astype(F32)


def dynamic_map(signed: bool) -> np.ndarray:
    """8-bit dynamic quantization map (the 8-bit optimizers' default state maps)."""
    values = [F32(0), F32(1)]
    for i in range(7):
        points = linspace_f32(0.1, 1.0, (2 ** i if signed else 2 ** (i + 1)) + 1)
        scaled = F32(10.0 ** (i - 6)) * ((points[:-1] + points[1:]) / F32(2))
        values.extend(scaled)
        if signed:
            values.extend(-scaled)
    return np.sort(np.array(values, dtype=F32))


def make_inputs(n: int, seed: int = 0):
    """A random optimizer state: weights, small gradients, random codes and block scales."""
    rng = np.random.default_rng(seed)
    blocks = n // 256
    return dict(
        var=rng.standard_normal(n, dtype=F32),
        grad=rng.standard_normal(n, dtype=F32) * F32(0.01),
        m=rng.integers(0, 256, n, dtype=np.uint8),
        v=rng.integers(0, 256, n, dtype=np.uint8),
        qmap_m=dynamic_map(True),
        qmap_v=dynamic_map(False),
        absmax_m=rng.uniform(1e-3, 1e-2, blocks).astype(F32),
        absmax_v=rng.uniform(1e-6, 1e-5, blocks).astype(F32),
        step=np.array([STEP], np.int64),
    )


def subset(inp: dict, n: int) -> dict:
    out = dict(inp)
    for key in ("var", "grad", "m", "v"):
        out[key] = inp[key][:n].copy()
    for key in ("absmax_m", "absmax_v"):
        out[key] = inp[key][: n // 256].copy()
    return out


def run_oracle(inp: dict) -> dict:
    return apply_adam_w_quant(inp["var"], inp["grad"], inp["m"], inp["v"], inp["qmap_m"],
                              inp["qmap_v"], inp["absmax_m"], inp["absmax_v"], inp["step"], **ATTRS)


def _argmin_codes(x: np.ndarray, q: np.ndarray, chunk: int = 1 << 12) -> np.ndarray:
    out = np.empty(x.size, np.uint8)
    for s in range(0, x.size, chunk):
        out[s:s + chunk] = np.argmin(np.abs(x[s:s + chunk, None] - q[None, :]), axis=1)
    out[np.isnan(x)] = 0
    if (q < 0).any():                                   # sign fix
        flip = x * q[out] < 0
        out = np.where(flip, np.clip(out.astype(np.int16) + np.where(x > 0, 1, -1), 0, 255),
                       out).astype(np.uint8)
    return out


def run_argmin_golden(inp: dict) -> dict:
    """The float32 formula on whole arrays, codes by a 256-wide argmin per element."""
    lr, b1, b2, wd, eps, gs = (F32(ATTRS[k]) for k in
                               ("lr", "beta1", "beta2", "weight_decay", "eps", "gnorm_scale"))
    one = F32(1)
    t = F32(int(inp["step"][0])) + one
    c1 = one - F32(math.pow(float(b1), float(t)))
    c2 = np.sqrt(one - F32(math.pow(float(b2), float(t))))
    step_size = (-lr * c2) / c1
    qm, qv = inp["qmap_m"], inp["qmap_v"]
    shape = (-1, 256)
    g = inp["grad"].reshape(shape) * gs
    m = (qm[inp["m"]].reshape(shape) * inp["absmax_m"][:, None]) * b1 + g * (one - b1)
    v = (qv[inp["v"]].reshape(shape) * inp["absmax_v"][:, None]) * b2 + (g * g) * (one - b2)
    p = inp["var"].reshape(shape) + (m * step_size) / (np.sqrt(v) + eps * c2)
    if wd > 0:
        p = p * (one - lr * wd)
    am = np.abs(m).max(axis=1)
    av = v.max(axis=1)
    xm = (m / np.where(am == 0, one, am)[:, None]).reshape(-1)
    xv = (v / np.where(av == 0, one, av)[:, None]).reshape(-1)
    return {"var": p.reshape(-1), "m": _argmin_codes(xm, qm), "v": _argmin_codes(xv, qv),
            "absmax_m": am, "absmax_v": av}


def run_floor(inp: dict) -> dict:
    """Read every input once and write output arrays of the same sizes (grad into a scratch copy)."""
    return {"var": inp["var"].copy(), "grad": inp["grad"].copy(), "m": inp["m"].copy(),
            "v": inp["v"].copy(), "absmax_m": inp["absmax_m"].copy(),
            "absmax_v": inp["absmax_v"].copy()}


def best_time(fn, arg, repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(arg)
        best = min(best, time.perf_counter() - t0)
    return best


def same_bits(a: dict, b: dict) -> bool:
    return all(np.array_equal(np.asarray(a[k]).reshape(-1).view(np.uint8),
                              np.asarray(b[k]).reshape(-1).view(np.uint8))
               for k in ("var", "m", "v", "absmax_m", "absmax_v"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2-n", type=int, default=24, help="elements = 2^N (default 24)")
    ap.add_argument("--log2-subset", type=int, default=20,
                    help="elements the argmin golden is timed on, 2^N (default 20)")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many runs (default 3)")
    args = ap.parse_args(argv)

    n = 1 << args.log2_n
    n_sub = min(n, 1 << args.log2_subset)
    scale = n / n_sub
    inp = make_inputs(n)
    sub = subset(inp, n_sub)

    run_oracle(sub)                                     # builds the cached search tables
    t_oracle = best_time(run_oracle, inp, args.repeats)
    t_floor = best_time(run_floor, inp, max(args.repeats, 5))
    t_oracle_sub = best_time(run_oracle, sub, args.repeats)
    t_golden_sub = best_time(run_argmin_golden, sub, min(args.repeats, 2))
    t_golden = t_golden_sub * scale
    agree = same_bits(run_oracle(sub), run_argmin_golden(sub))

    vs_argmin = t_golden / t_oracle
    vs_floor = t_oracle / t_floor
    print(f"ApplyAdamWQuant oracle benchmark: n = 2^{args.log2_n} = {n} float32 elements, "
          f"8-bit dynamic maps, best of {args.repeats}")
    print(f"  (a) oracle                  {t_oracle:9.3f} s   ({t_oracle / n * 1e9:6.1f} ns/element)")
    print(f"  (b) argmin golden           {t_golden:9.3f} s   (measured {t_golden_sub:.3f} s on "
          f"2^{int(math.log2(n_sub))} = {n_sub} elements, scaled linearly x{scale:g}; "
          f"argmin over 4096 x 256 per chunk)")
    print(f"  (c) read/write floor        {t_floor:9.3f} s")
    print(f"  oracle on the subset        {t_oracle_sub:9.3f} s   (argmin/oracle on the subset: "
          f"{t_golden_sub / t_oracle_sub:.1f}x)")
    print(f"  golden and oracle agree bit for bit on the subset: {'yes' if agree else 'NO'}")
    print(f"  ratio argmin/oracle = {vs_argmin:6.1f}x   goal >= {GOAL_VS_ARGMIN:g}x: "
          f"{'MET' if vs_argmin >= GOAL_VS_ARGMIN else 'NOT MET'}")
    print(f"  ratio oracle/floor  = {vs_floor:6.1f}x   goal <= {GOAL_VS_FLOOR:g}x: "
          f"{'MET' if vs_floor <= GOAL_VS_FLOOR else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
