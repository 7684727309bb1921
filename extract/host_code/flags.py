"""A check guarded by a bool argument in the same condition: ``if (mask && !CheckType(d, L)) { fail }``
(CheckDtypeInSupportList, aclnn_batch_norm_backward_reduce.cpp:118) reads as ``if (mask) { if
(!CheckType(d, L)) { fail } }``: the check under the guard of the flag. A bool local holding a guard
leads the same way (``processOut1 && processOut2 && y1Type != y2Type``, ops-nn
norm/add_rms_norm_dynamic_quant/op_host/op_api/aclnn_add_rms_norm_dynamic_quant_v2.cpp:166)."""
from __future__ import annotations

from dataclasses import replace

from aclnn_conformance.extract.cpp import Stmt
from aclnn_conformance.extract.host_code.model import Walk, _split_top, _strip
from aclnn_conformance.extract.host_code.scalars import _value_test


def _flags_only(test: tuple | None) -> bool:
    if test is None:
        return False
    if test[0] == "flag":
        return True
    return test[0] in ("not", "and", "or") and all(_flags_only(t) for t in test[1:])


def _guard_local(part: str, env: dict) -> bool:
    held = env.get(_strip(part))
    return isinstance(held, tuple) and held[:1] == ("guard",)


def flag_nested(w: Walk, stmt: Stmt, env: dict) -> Stmt | None:
    """``if (F && C) {...}`` without else, F tests of the call's bool arguments only and C something
    else: ``if (F) { if (C) {...} }``; None for another statement."""
    if stmt.kind != "if" or stmt.orelse or _value_test(w, stmt.cond, env) is not None:
        return None   # a test of values throughout is read whole
    parts = _split_top(_strip(stmt.cond), "&&")
    lead = 0
    while lead < len(parts) - 1 and (_flags_only(_value_test(w, parts[lead], env)) or _guard_local(parts[lead], env)):
        lead += 1
    if lead == 0:
        return None
    flag, rest = " && ".join(parts[:lead]), " && ".join(parts[lead:])
    inner = replace(stmt, text=f"if ({rest})", cond=rest)
    return replace(stmt, text=f"if ({flag})", cond=flag, then=(inner,))
