"""Guards on ranks and integers as rules: a helper's ``if (rank > 8) { ...; return false; }`` runs as a
data-dependent branch (the caller decides the status), and every call taking it fails with that
status: the rule violated exactly when the guard holds. A guard on one tensor's rank against a
constant is a rank range; a guard made only of comparisons of integers, ranks and dims (``and``,
``or``, ``not`` of them) is the integer test of those comparisons; a tensor not contiguous, the
integer test of that guard. Anything else is not read here."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.host_code.model import T, Walk, _args, _is_int
from aclnn_conformance.extract.host_code.integers import _COMPARE_INT
import aclnn_conformance.extract.host_code.reenter as reenter

# the rank bounds a rank failing ``rank op n`` leaves: rank_range's min and max
_RANK_BOUNDS = {">": lambda n: dict(max=n), ">=": lambda n: dict(max=n - 1), "<": lambda n: dict(min=n),
                "<=": lambda n: dict(min=n + 1), "!=": lambda n: dict(min=n, max=n)}


def _int_form(g: Any) -> Any:
    """Guard ``g`` as an integer test (spec/templates.py int_holds), when it compares only integers,
    ranks and dims; None otherwise."""
    if not isinstance(g, tuple) or not g:
        return None
    if g[0] == "int":
        return g[1]
    if g[0] == "rank":   # ("rank", tensor, op, n)
        return (g[2], ("rank", g[1]), g[3])
    if g[0] == "rank-zero":
        return ("==", ("rank", g[1]), 0)
    if g[0] in ("not", "and", "or"):
        parts = [_int_form(x) for x in g[1:]]
        return None if None in parts else (g[0], *parts)
    return None


def rank_int_rule(g: Any) -> tuple[str, tuple] | None:
    """The rule violated exactly when guard ``g`` (on ranks and integers only) holds; None when ``g``
    reads anything else (dtypes, values, emptiness: the other readers' guards)."""
    if not isinstance(g, tuple) or not g:
        return None
    if g[0] == "rank" and g[2] in _RANK_BOUNDS:
        return "rank_range", _args(param=g[1], **_RANK_BOUNDS[g[2]](g[3]))
    if g[0] == "rank-zero":   # fails at rank 0: at least one dim
        return "rank_range", _args(param=g[1], min=1)
    if g[:1] == ("not",) and g[1][:1] == ("rank-zero",):   # fails at any dim: rank 0 only
        return "rank_range", _args(param=g[1][1], max=0)
    test = _int_form(g)
    if test is not None:
        return "int_test", _args(test=test)
    if g[0] == "and":   # the first part read here the rule, the others (any guard) its when
        for i, part in enumerate(g[1:]):
            rule = rank_int_rule(part)
            if rule is not None and not any(k == "when" for k, _ in rule[1]):
                rest = g[1:i + 1] + g[i + 2:]
                return rule[0], tuple(sorted(rule[1] + (("when", rest[0] if len(rest) == 1 else ("and", *rest)),)))
    return None


def contiguity_rule(body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """``!IsContiguous(t)`` of an API tensor failing (``OP_CHECK(op::IsContiguous(out), ...)``, ops-nn
    index/gather_elements/op_api/aclnn_max_unpool3d_backward.cpp:59): the integer test of the guard
    ``not contiguous`` (opbase tensor_view_utils.h IsContiguous; a null tensor counts as contiguous)."""
    m = re.fullmatch(r"(?:op::)?IsContiguous\(\s*(\w+)\s*\)", body.strip())
    if not (m and neg and isinstance(env.get(m.group(1)), T)):
        return None
    return "int_test", _args(test=("guard", ("not", ("contiguous", (env[m.group(1)].name,)))))



def selects_decided(guards: list, env: dict) -> dict:
    """``env`` with each local chosen by a rank test (``("select", g, a, b)``: ``int64_t c = rank == 3 ?
    dim0 : dim1``) made the side a guard in force decides: a inside ``if (rank == 3)``, b in its else
    (ops-nn index/gather_elements/op_api/aclnn_max_unpool2d_backward.cpp:83-101); ``env`` itself when
    none is decided."""
    decided = {}
    for k, v in env.items():
        if isinstance(v, tuple) and v[:1] == ("select",):
            if v[1] in guards:
                decided[k] = v[2]
            elif ("not", v[1]) in guards:
                decided[k] = v[3]
    return {**env, **decided} if decided else env



def passed_length_checks(w: Walk) -> list:
    """The guards every call reaching the statement being walked holds because it passed an earlier
    check failing on an integer array's length (``OP_CHECK(outputSize->Size() == 2, ...)``, ops-nn
    index/gather_elements/op_api/aclnn_max_unpool2d_backward.cpp:106-109): ``("not", g)`` of each
    such check made for every call (no ``when``), or under guards the walk is still under (a check after
    the empty-tensor return: ops-nn norm/batch_norm_grad_v3/op_host/op_api/aclnn_batch_norm_backward.cpp:80),
    so ``(*outputSize)[1]`` after it is inside the array."""
    passed = []
    for e in w.events:
        args = dict(e.args) if e.kind == "check" and e.template == "int_test" else {}
        test = args.get("test")
        when = args.pop("when", None)
        if when is not None and not all(g in w.guards for g in (when[1:] if when[:1] == ("and",) else (when,))):
            continue   # made for other calls than those reaching here
        if isinstance(test, tuple) and test[:1] == ("guard",) and test[1][:1] == ("attr-len",):
            passed.append(("not", test[1]))
        elif isinstance(test, tuple) and len(test) == 3 and \
                isinstance(test[1], tuple) and test[1][:1] == ("len",) and _is_int(test[2]):
            passed.append(("not", ("attr-len", test[1][1], test[0], test[2])))   # [op, ["len", a], n]
    return passed


def length_kept_above(w: Walk, attr: str, index: int) -> bool:
    """Every call reaching the statement being walked gives the integer or bool array ``attr`` more
    than ``index`` elements, by the guards it runs under and the checks on lengths and null-ness it
    passed however they are written (ops-nn norm/add_rms_norm_dynamic_quant/op_host/op_api/
    aclnn_add_rms_norm_dynamic_quant_v2.cpp:44-63: ``if (m != nullptr && m->Size() == 2) {...} else if
    (m != nullptr && m->Size() != 2) fail``, then ``m == nullptr ? ... : (*m)[1]``): each length from 0
    to ``index`` of a given array makes one of them false (a part the lengths do not decide is either)."""
    held = list(w.guards)
    for e in w.events:
        args = dict(e.args) if e.kind == "check" and e.template == "int_test" else {}
        test, when = args.get("test"), args.get("when")
        if not isinstance(test, tuple):
            continue
        failed = test[1] if test[:1] == ("guard",) else ("int", test)
        held.append(("not", failed) if when is None else ("or", ("not", when), ("not", failed)))
    return all(any(_on_length(g, attr, length) is False for g in held) for length in range(index + 1))


def _on_length(g: Any, attr: str, length: int) -> bool | None:
    """The guard ``g`` for a given array ``attr`` of ``length`` elements: True, False, or None where
    it reads something else (three-valued: ``and``/``or`` decided by a part that decides them)."""
    if not isinstance(g, tuple) or not g:
        return None
    if g[0] == "not":
        v = _on_length(g[1], attr, length)
        return None if v is None else not v
    if g[0] in ("and", "or"):
        vals = [_on_length(x, attr, length) for x in g[1:]]
        if (g[0] == "and" and False in vals) or (g[0] == "or" and True in vals):
            return g[0] == "or"
        return None if None in vals else g[0] == "and"
    if g[0] == "null" and g[1] == attr:
        return False
    if g[0] == "no-dims" and g[1] == attr:
        return length == 0
    if g[0] == "attr-len" and g[1] == attr and _is_int(g[3]):
        return _COMPARE_INT[g[2]](length, g[3])
    if g[0] == "int" and isinstance(g[1], tuple) and len(g[1]) == 3 and g[1][0] in _COMPARE_INT:
        op, a, b = g[1]
        a = length if a == ("len", attr) else a
        b = length if b == ("len", attr) else b
        return _COMPARE_INT[op](a, b) if _is_int(a) and _is_int(b) else None
    return None


reenter.rank_int_rule = rank_int_rule
