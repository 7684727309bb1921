"""Shapes, broadcasting and formats: shape locals (braced, split, built from dims, ``SetDim``,
``AppendDim``), a view shape the walk holds, ``BroadcastInferShape`` (checked or dropped),
``OP_CHECK_SHAPE_NOT_EQUAL``, ``OP_CHECK_BROADCAST*``, ``CHECK_SHAPE_ALL_EQUAL``, shape and storage
format comparisons, ``CheckShapeAndScalarSame``, a shape expression's rank."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, match_close, split_args
from aclnn_conformance.extract.syntax import tokens
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.extract.host_code.model import (Event, FORMAT_OF, Opaque, T, Unreadable, Walk, _args,
                                                       _block_open, _check, _cite, _enclosing_function, _fail_status,
                                                       _is_int, _lin, _macro, _split_top, _strip, _tensor)
from aclnn_conformance.extract.host_code.integers import _iexpr_of, _int_constant, _wrapped_iexpr
from aclnn_conformance.extract.host_code.ranks import _dim_value, _expr_min_rank, _set_dim_index
from aclnn_conformance.extract.host_code.set_dim_index import computed_index, dim_size
from aclnn_conformance.extract.host_code.rank_shapes import rank_built_shape
import aclnn_conformance.extract.host_code.reenter as reenter


def _brace_shape(w: Walk, text: str, rhs: str, env: dict) -> tuple | None:
    """``op::Shape s = {a, b};`` (or ``auto s = op::Shape{a, b};``) with each dim a constant or a dim
    of an API tensor: ("built-shape", dims), each dim an int or (tensor, scale, offset) as
    ``shape_is`` takes them; None otherwise."""
    typed = re.fullmatch(r"(?:op|gert)::Shape\s*(\{.*\})", rhs, re.S)   # ``auto s = op::Shape{0};``
    rhs = typed.group(1) if typed else rhs
    if not (typed or re.match(r"(?:const\s+)?(?:op|gert)::Shape\s", text)) or \
            not (rhs.startswith("{") and rhs.endswith("}")) or \
            [t.type for t in tokens(rhs) if t.type in ("{", "}")] != ["{", "}"]:   # one flat brace list
        return None
    dims = []
    for a in split_args(rhs[1:-1]):
        d = _int_constant(w, a) if _int_constant(w, a) is not None else _dim_value(w, _strip(a), env)
        held = env.get(_strip(a))
        if d is None and isinstance(held, tuple) and held[:1] == ("dim",):   # a local holding a dim
            d = held
        if d is None:
            return _integer_dims_shape(w, rhs, env)
        dims.append(d if _is_int(d) else tuple(d[1:]))
    return ("built-shape", tuple(dims)) if dims else None


def _integer_dims_shape(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``{a, b}`` with each dim a local holding a choice between integers (ops-nn matmul/gemm/op_host/
    op_api/aclnn_gemm.cpp:117-119: ``mDim = transA ? A[1] : A[0]``), its value when the shape is made:
    ("shape-expr", ("dims", those)); None otherwise."""
    dims = []
    for a in split_args(rhs[1:-1]):
        held = env.get(_strip(a))
        if not (re.fullmatch(r"[A-Za-z_]\w*", _strip(a)) and isinstance(held, tuple) and held[:1] == ("iexpr",)
                and isinstance(held[1], tuple) and held[1][:1] == ("?",)):
            return None
        dims.append(held[1])
    return ("shape-expr", ("dims", tuple(dims))) if dims else None


def _split_shape(w: Walk, src: SourceFile, stmt: Stmt, env: dict, name: str) -> bool:
    """``op::Shape s = t->GetViewShape();`` followed by ``int64_t v = s.GetDim(d) / N; s.SetDim(d, v);``
    with d an integer argument's dim of t, wrapped, and no other change of s: ``s`` holds t's shape
    with that dim divided by N (``("split-shape", t, attr, N)``)."""
    value = env.get(name)
    fn = _enclosing_function(src, stmt.offset)
    if not (isinstance(value, tuple) and value[:1] == ("shape-of",)) or fn is None:
        return False
    rest = fn.body[stmt.offset - fn.body_offset + len(stmt.text):]
    n, idx = re.escape(name), r"(?:static_cast<\s*size_t\s*>\(\s*)?(\w+)\s*\)?"
    m = re.match(rf";?\s*(?:int64_t|auto)\s+(\w+)\s*=\s*{n}\s*\.\s*GetDim\(\s*{idx}\)\s*/\s*(\w+)\s*;"
                 rf"\s*{n}\s*\.\s*SetDim\(\s*{idx}\s*,\s*\1\s*\)\s*;", rest)
    if not m or m.group(2) != m.group(4):
        return False
    after = rest[m.end():]
    if re.search(rf"\b{n}\s*(?:\.\s*(?:Set\w*|Append\w*)\s*\(|=(?!=)|\[)|&\s*{n}\b", after):
        return False
    held = env.get(m.group(2))
    by = int(m.group(3)) if m.group(3).isdigit() else w.index.constant(m.group(3))
    if not (isinstance(held, tuple) and held[:1] == ("wrapped-dim",) and held[2] == value[1] and by):
        return False
    env[name] = ("split-shape", value[1], held[1], by)
    return True


def _scalar_same_check(w: Walk, src: SourceFile, stmt: Stmt, cond: str, env: dict, code: int) -> bool:
    """``CheckShapeAndScalarSame(r, out)`` (or another function of that body: true when the view
    shapes are equal or both hold one element) with ``r`` a reduction kernel's result, or a tensor
    whose shape the walk knows, and ``out`` the API's tensor: the reduced-shape rule or the shape
    rule, with the one-element exemption."""
    call = _macro(cond)
    if not call or len(call[1]) != 2:
        return False
    fn = w.index.function(call[0])
    if fn is None or not _shape_or_scalar_body(fn):
        return False
    chosen = [h for h in (env.get(_strip(a)) for a in call[1]) if isinstance(h, tuple) and h[:1] == ("shape-choice",)]
    if len(chosen) == 1:   # each side's kernel checked for the calls taking that side
        _, g, then, orelse, _ = chosen[0]
        for guard, value in ((g, then), (("not", g), orelse)):
            w.guards.append(guard)
            try:
                _scalar_same_check(w, src, stmt, cond, {**env, **{_strip(a): value for a in call[1]
                                                                   if env.get(_strip(a)) is chosen[0]}}, code)
            finally:
                w.guards.pop()
        return True
    held = [_known_side(w, src, stmt, env.get(_strip(a))) for a in call[1]]
    shapes = [h[2] if isinstance(h, tuple) and h[:1] == ("tensor-dtype",) and len(h) == 3
              and isinstance(h[2], tuple) and h[2][:1] == ("rshape",) else None for h in held]
    if all(isinstance(h, T) for h in held):   # two of the API's tensors: their shapes, or one element each
        _check(w, src, stmt.offset, "shapes_equal_or_single", _args(param=held[0].name, other=held[1].name),
               code, stmt.text)
        return True
    for mine, other in ((0, 1), (1, 0)):
        if shapes[mine] is not None and isinstance(held[other], T):
            _, tensor, dims, keepdim, noop = shapes[mine][:5]   # one-element only: the check exempts it
            _check(w, src, stmt.offset, "reduced_shape",
                   _args(param=held[other].name, of=tensor, dims=dims, keepdim=keepdim, scalar_same=True,
                         **({"noop": noop} if noop is not False else {})), code, stmt.text,
                   w.read_elsewhere.get(shapes[mine], ()))
            return True
    for mine, other in ((0, 1), (1, 0)):
        expr = None if isinstance(held[mine], T) else reenter.tensor_shape_expr(held[mine])
        if expr is not None and isinstance(held[other], T):
            _shape_or_one_element(w, src, stmt, held[other].name, expr, code)
            return True
    raise Unreadable(f"the shape of a kernel's result the reader does not know: {cond}")


def _shape_or_one_element(w: Walk, src: SourceFile, stmt: Stmt, param: str, shape: tuple, code: int) -> None:
    """``param``'s view shape equals the shape expression ``shape``, unless both hold one element
    (opbase Shape::GetShapeSize: the product of the dims, 1 at rank 0): ``shape_is`` with
    ``scalar_same``, the same exemption as the copy into an output."""
    target = {"shape": ()} if shape == ("dims", ()) else {"shape_expr": shape}
    _check(w, src, stmt.offset, "shape_is", _args(param=param, scalar_same=True, **target), code, stmt.text)


def _known_side(w: Walk, src: SourceFile, stmt: Stmt, held: Any) -> Any:
    """A kernel's result whose shape a branch left known on one side only (``("shape-unless", g,
    known, cond)``): the check reading it is unread for the calls taking the other side (guard g),
    and reads the known side's result for the rest. Anything else as it is."""
    if not (isinstance(held, tuple) and held[:1] == ("shape-unless",)):
        return held
    path, line = _cite(src, stmt.offset)
    w.events.append(Event("unread", "", reenter.guarded_args(w, "unread", (("when", held[1]),)), None, path, line,
                          f"the shape of a kernel's result on the side of a branch on {held[3]!r} "
                          f"that reshapes it: {stmt.text.strip()}"[:160]))
    return held[2]


def _shape_or_scalar_body(fn: Function) -> bool:
    """``fn(t0, t1)``: true when the view shapes are equal, or when both have one element; else false."""
    if len(fn.params) != 2:
        return False
    b = re.sub(r"\s+", " ", re.sub(r"\bOP_LOG\w*\s*\([^;]*\)\s*;", "", fn.body)).strip()
    t0, t1 = (re.escape(p) for p in fn.params)
    shapes = rf"auto const& (\w+) = {t0}->GetViewShape\(\); auto const& (\w+) = {t1}->GetViewShape\(\); "
    one_each = r"\1\.GetShapeSize\(\) == 1 && \2\.GetShapeSize\(\) == 1"
    return bool(re.fullmatch(
        shapes + rf"if \(\1 == \2\) {{ return true; }} if \({one_each}\) {{ return true; }} return false;", b)
        # ops-math common/inc/external/aclnn_kernels/common/op_error_check.h:58-71 CheckReduceOutShape
        or re.fullmatch(shapes + rf"if \(\1 != \2\) {{ if \(!\({one_each}\)\) {{ return false; }} }} return true;", b))


def _m_shape_equal(w, src, stmt, env, fail, args):
    held = [env.get(_strip(a)) for a in args[:2]]
    if sum(isinstance(h, T) for h in held) == 1:   # an API tensor against a tensor of a shape the walk holds
        param = next(h.name for h in held if isinstance(h, T))
        shape = reenter.tensor_shape_expr(next(h for h in held if not isinstance(h, T)))
        if shape is not None:
            template, targs = _shape_compare(param, ("shape-of", shape[1]) if shape[0] == "of" else
                                             ("shape-expr", shape))
            _check(w, src, stmt.offset, template, targs, _fail_status(args[2], fail), stmt.text)
            return
    _check(w, src, stmt.offset, "shapes_equal", _args(param=_tensor(env, args[0]), other=_tensor(env, args[1])),
           _fail_status(args[2], fail), stmt.text)


def _m_broadcast(w, src, stmt, env, fail, args):
    _check(w, src, stmt.offset, "broadcastable", _args(param=_tensor(env, args[0]), other=_tensor(env, args[1])),
           _fail_status(args[2], fail), stmt.text)


def _shape_guard(cond: str, env: dict) -> tuple | None:
    """An API tensor empty (``x->IsEmpty()``) or of rank 0 (``x->GetViewShape().GetDimNum() == 0``, or
    ``!= 0`` negated) as a guard; None for anything else."""
    m = re.fullmatch(r"(\w+)\s*->\s*IsEmpty\(\)", cond)
    if m and isinstance(env.get(m.group(1)), T):
        return ("empty", (env[m.group(1)].name,), True)
    m = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*([!=]=)\s*0", cond)
    if m and isinstance(env.get(m.group(1)), T):
        g = ("rank-zero", env[m.group(1)].name)
        return g if m.group(2) == "==" else ("not", g)
    return None


_FORMAT_LITERAL = re.compile(r"(?:op::|ge::)?(?:Format::)?FORMAT_([A-Z0-9_]+)|"
                             r"static_cast<\s*(?:op::|ge::)?Format\s*>\s*\(\s*ACL_FORMAT_([A-Z0-9_]+)\s*\)")


def _format_guard(cond: str, env: dict) -> tuple | None:
    """An API tensor's storage format compared with a format constant (``self->GetStorageFormat() !=
    static_cast<op::Format>(ACL_FORMAT_ND)``, ops-math conversion/pad_v3/op_api/aclnn_constant_pad_nd.cpp:156)
    as a guard ``("format-in", t, (F,))``, negated for ``!=``; None for anything else."""
    op, two = next(((op, p) for op, p in ((op, _split_top(cond, op)) for op in ("==", "!=")) if len(p) == 2),
                   (None, None))
    left = _strip(two[0]) if two else ""
    held = env.get(left)
    if isinstance(held, Opaque) and re.fullmatch(FORMAT_OF, held.text.strip()):
        # a local holding the tensor's format (``auto inputFormat = input->GetStorageFormat();``,
        # ops-nn norm/batch_norm_v3/op_host/op_api/aclnn_batch_norm.cpp:158)
        left = held.text.strip()
    fx = re.fullmatch(r"(\w+)\s*->\s*GetStorageFormat\(\)", left) if two else None
    lit = _FORMAT_LITERAL.fullmatch(_strip(two[1])) if two else None
    if not (fx and lit and isinstance(env.get(fx.group(1)), T)):
        return None
    g = ("format-in", env[fx.group(1)].name, (lit.group(1) or lit.group(2),))
    return g if op == "==" else ("not", g)


def _view_shape_held(holder: str, env: dict) -> Any:
    """What ``t->GetViewShape()`` holds (("shape-of", t) for an API tensor or a tensor with one's view
    shape: a contiguous copy, a cast; ("shape-expr", S) for a tensor whose shape the walk built), or
    a shape local."""
    holder = _strip(holder)
    mv = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetViewShape\(\)", holder)
    if not mv:
        return env.get(holder)
    held = env.get(mv.group(1))
    computed = reenter.tensor_shape_expr(held)
    if computed is not None and computed[0] != "of":
        return ("shape-expr", computed)
    like = reenter.shape_like(held)
    return None if like is None else ("shape-of", like)


def _shape_value(w: Walk, expr: str, env: dict) -> Any:
    dim = _dim_value(w, expr, env)
    if dim is not None:
        return dim
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetViewShape\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):
        return ("shape-of", env[m.group(1)].name)
    held = _view_shape_held(expr, env) if m else None
    if isinstance(held, tuple) and held[:1] == ("shape-expr",):   # a tensor whose shape the walk computed
        return held
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*(?:GetViewShape\(\)\s*\.\s*GetShapeSize|Numel)\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):   # opbase Shape::GetShapeSize, aclTensor::Numel: the element count
        return ("numel", env[m.group(1)].name)
    held = _view_shape_held(f"{m.group(1)}->GetViewShape()", env) if m else None
    if isinstance(held, tuple) and held[:1] == ("shape-of",):   # of a copy or cast of an API tensor
        return ("numel", held[1])
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*Size\(\)", expr)
    held = env.get(m.group(1)) if m else None
    if isinstance(held, T) and re.search(r"\baclTensor\s*\*", w.ptypes.get(held.name, "")):   # not a list's
        # opbase common_types.cpp aclTensor::Size(): GetStorageShape().GetShapeSize() (ops-math
        # conversion/triu/op_api/aclnn_triu.cpp:95 ``if (self->Size() > 0)``)
        return ("snumel", held.name)
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*GetShapeSize\(\)", expr)
    held = env.get(m.group(1)) if m else None
    if isinstance(held, tuple) and held[:1] == ("shape-of",):
        return ("numel", held[1])
    if isinstance(held, tuple) and held[:1] == ("bshape",):   # the element count of a broadcast shape
        return ("bnumel", tuple(held[1]))
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:->\s*GetViewShape\(\)\s*\.|->)\s*GetDimNum\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):
        return ("lin", env[m.group(1)].name, 1, 0, 0)
    held = _view_shape_held(f"{m.group(1)}->GetViewShape()", env) if m else None
    if isinstance(held, tuple) and held[:1] == ("shape-of",):   # a copy or cast of an API tensor
        return ("lin", held[1], 1, 0, 0)
    if isinstance(held, tuple) and held[:1] == ("shape-expr",):
        return ("iexpr", ("srank", held[1]))
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*GetDimNum\(\)", expr)
    if m and isinstance(env.get(m.group(1)), tuple) and env[m.group(1)][0] == "shape-of":
        return ("lin", env[m.group(1)][1], 1, 0, 0)
    if m and isinstance(env.get(m.group(1)), tuple) and env[m.group(1)][0] == "shape-expr":
        return ("iexpr", ("srank", env[m.group(1)][1]))
    return None


def _shape_of(w: Walk, expr: str, env: dict) -> Any:
    try:
        v = reenter.value(w, expr, env)
    except Unreadable:   # the view shape of a tensor the compute path made
        v = _view_shape_held(expr, env)
    return v if isinstance(v, tuple) and v and v[0] in ("shape-of", "bshape", "rshape", "split-shape",
                                                        "built-shape", "bshape-built", "shape-expr") else None


def _infer_broadcast(w: Walk, src: SourceFile, stmt: Stmt, env: dict, cond: str, code: int) -> bool:
    """``if (!BroadcastInferShape(a, b, out)) return <code>``: the broadcast check, and ``out`` held
    as the broadcast shape of the tensors."""
    m = re.fullmatch(r"!\s*(?:op::)?BroadcastInferShape\((.*)\)", _strip(cond), re.S)
    if not m:
        return False
    args = split_args(m.group(1))
    if len(args) != 3 or not re.fullmatch(r"[A-Za-z_]\w*", args[2].strip()):
        raise Unreadable(f"the broadcast {cond!r}")
    _broadcast_check(w, src, stmt, env, args[0], args[1], args[2].strip(), code)
    return True


def _broadcast_check(w, src, stmt, env, a: str, b: str, out: str | None, code: int) -> None:
    values = [_shape_of(w, x, env) for x in (a, b)]
    for x, v in zip((a, b), values):
        if v is None or v[0] in ("bshape-built", "rshape", "split-shape"):
            raise Unreadable(f"the broadcast of {x.strip()!r}")
    kinds = sorted(v[0] for v in values)
    if kinds == ["shape-expr", "shape-of"]:   # a tensor with a shape computed from tensors' shapes
        tensor, held = sorted(values, key=lambda v: v[0] != "shape-of")
        _check(w, src, stmt.offset, "broadcastable_shape", _args(param=tensor[1], shape_expr=held[1]), code,
               stmt.text)
        if out is not None:
            env[out] = ("shape-expr", ("broadcast", *(_shape_expr_of(v) for v in values)))
            reenter.forget_if_mutated(src, stmt, env, out)
        return
    if kinds == ["shape-expr", "shape-expr"]:   # two computed shapes, one broadcasting as a tensor's does
        exprs = [v[1] for v in values]
        side = next((i for i, e in enumerate(exprs) if _broadcasts_as(e) is not None), None)
        if side is None:
            raise Unreadable(f"the broadcast of {a.strip()!r} and {b.strip()!r}")
        _check(w, src, stmt.offset, "broadcastable_shape",
               _args(param=_broadcasts_as(exprs[side]), shape_expr=exprs[1 - side]), code, stmt.text)
        if out is not None:
            env[out] = ("shape-expr", ("broadcast", *exprs))
            reenter.forget_if_mutated(src, stmt, env, out)
        return
    if "shape-expr" in kinds:
        raise Unreadable(f"the broadcast of {a.strip()!r} and {b.strip()!r}")
    if kinds == ["built-shape", "shape-of"]:   # a tensor with a shape built of dims (aclnnAddr's outer shape)
        tensor, built = sorted(values, key=lambda v: v[0] != "shape-of")
        _check(w, src, stmt.offset, "broadcastable_shape", _args(param=tensor[1], shape=built[1]), code, stmt.text)
        if out is not None:
            env[out] = ("bshape-built", tensor[1], built[1])
            reenter.forget_if_mutated(src, stmt, env, out)
        return
    if "built-shape" in kinds:
        raise Unreadable(f"the broadcast of {a.strip()!r} and {b.strip()!r}")
    names = []
    for v in values:
        names += [v[1]] if v[0] == "shape-of" else list(v[1])
    if len(names) == 2:
        _check(w, src, stmt.offset, "broadcastable", _args(param=names[0], other=names[1]), code, stmt.text)
    else:
        _check(w, src, stmt.offset, "broadcastable_all", _args(of=names), code, stmt.text)
    if out is not None:
        env[out] = ("bshape", tuple(names))
        reenter.forget_if_mutated(src, stmt, env, out)


def _broadcasts_as(expr: tuple) -> str | None:
    """The API tensor a shape expression broadcasts with every shape as: its view shape, or that shape
    made all ones of some rank when the tensor is of rank 0 (a rank-0 shape and a shape of ones both
    broadcast with any shape); None otherwise."""
    if expr[0] == "of":
        return expr[1]
    if expr[0] == "?" and expr[1][:1] == ("guard",) and expr[1][1][:1] == ("rank-zero",) and \
            expr[3] == ("of", expr[1][1][1]) and expr[2][0] == "dims" and all(d == 1 for d in expr[2][1]):
        return expr[1][1][1]
    return None


def _dropped_broadcast(w: Walk, src: SourceFile, stmt: Stmt, env: dict, args: list[str]) -> bool:
    """``BroadcastInferShape(a, b, out);`` with its result dropped: ``out`` is the broadcast shape only
    for calls whose tensors broadcast, so it is held when an earlier check of this walk, under no
    branch, refused every other call (broadcastable over the same tensors); else it is unknown."""
    if len(args) != 3 or not re.fullmatch(r"[A-Za-z_]\w*", args[2].strip()):
        return False
    out, names = args[2].strip(), []
    for x in args[:2]:
        v = _shape_of(w, x, env)
        if v is None or v[0] not in ("shape-of", "bshape"):
            env[out] = Opaque(f"{out}, the broadcast of {x.strip()}")
            return True
        names += [v[1]] if v[0] == "shape-of" else list(v[1])
    for e in w.events:
        a = e.args_dict()
        if e.kind != "check" or "when" in a or e.template not in ("broadcastable", "broadcastable_all"):
            continue
        if sorted([a["param"], a["other"]] if e.template == "broadcastable" else a["of"]) == sorted(names):
            env[out] = ("bshape", tuple(names))
            reenter.forget_if_mutated(src, stmt, env, out)
            return True
    env[out] = Opaque(f"{out}, the broadcast of tensors no earlier check showed broadcastable")
    return True


def _m_broadcast_infer(w, src, stmt, env, fail, args):
    converted = [a for a in args[:2] if reenter.converted(env, a)]
    if len(converted) == 1:   # a rank-0 tensor broadcasts with any shape: the other's shape
        other = next(a for a in args[:2] if a not in converted)
        env[args[2].strip()] = ("shape-of", _tensor(env, other))
        reenter.forget_if_mutated(src, stmt, env, args[2].strip())
        return
    for arg in args[:2]:   # the API's tensors, or tensors whose view shape the walk knows (else unread)
        if not isinstance(env.get(_strip(arg)), T) and _view_shape_held(f"{arg}->GetViewShape()", env) is None:
            _tensor(env, arg)
    _broadcast_check(w, src, stmt, env, f"{args[0]}->GetViewShape()", f"{args[1]}->GetViewShape()",
                     args[2].strip(), _fail_status(args[3], fail))


def _shape_compare(param: str, other: Any) -> tuple[str, tuple]:
    if other[0] == "built-shape":
        return "shape_is", _args(param=param, shape=other[1])
    if other[0] == "shape-expr":
        return "shape_is", _args(param=param, shape_expr=other[1])
    if other[0] == "rshape":
        _, tensor, dims, keepdim, noop = other
        return "reduced_shape", _args(param=param, of=tensor, dims=dims, keepdim=keepdim,
                                      **({"noop": noop} if noop is not False else {}))
    if other[0] == "shape-of":
        return "shapes_equal", _args(param=param, other=other[1])
    if other[0] == "split-shape":
        return "split_shape", _args(param=param, of=other[1], attr=other[2], by=other[3])
    if other[0] == "shape-expr":
        return "shape_expr_is", _args(param=param, shape=other[1])
    return "broadcast_equals", _args(param=param, of=list(other[1]))


def _built_shape(w: Walk, src: SourceFile, stmt: Stmt, name: str, env: dict) -> tuple[list, Any] | None:
    """A shape local built in the function before ``stmt`` from its dims (``op::Shape s = {a, b};``) or
    from nothing (``op::Shape s;``) by ``s.SetDimNum(n)``, ``s.SetDim(i, v)``, ``s.AppendDim(v)`` alone,
    each dim an integer the walk knows, and at most a last loop ``for (i = k; i < t.GetDimNum(); i++) { s.AppendDim(c); }``
    once s holds k dims: (its dims, each an int, [tensor, scale, offset] or an integer expression
    ("iexpr", E); the fill [c, tensor] or None); None otherwise."""
    fn = _enclosing_function(src, stmt.offset)
    if fn is None or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    whole = fn.body[:max(stmt.offset - fn.body_offset, 0)]
    n = re.escape(name)
    decls = list(re.finditer(rf"(?:op|gert)::Shape\s+{n}\s*[;=]", whole))
    if not decls or not _block_open(whole[decls[-1].start():]):
        return None
    before = whole[decls[-1].start():]   # the local compared: the last declared, in a block still open
    init = re.findall(rf"(?:op|gert)::Shape\s+{n}\s*=\s*\{{([^;{{}}]*)\}}\s*;", before)
    compared = re.sub(rf"OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE\(\s*\w+\s*,\s*{n}\s*,|ToString\(\s*{n}\s*\)",
                      "", before)
    if len(init) == 1 and len(re.findall(rf"\b{n}\b", compared)) == 1:   # ``op::Shape s = {a, b};``, only compared after
        dims = [_built_dim(w, a, env, whole) for a in split_args(init[0])]
        return None if None in dims else (dims, None)
    if len(re.findall(rf"(?:op|gert)::Shape\s+{n}\s*;", before)) != 1:
        return None
    fill, fills = None, list(re.finditer(
        rf"for\s*\(\s*(?:size_t|u?int(?:64|32)_t|int)\s+(\w+)\s*=\s*(\d+)\s*;\s*\1\s*<\s*([^;]+?)\s*;\s*\1\s*\+\+\s*\)"
        rf"\s*\{{\s*{n}\s*\.\s*AppendDim\(\s*([^;()]+?)\s*\)\s*;\s*\}}", before))
    if len(fills) > 1:
        return None
    if fills:   # the fill loop: last, starting where the dims built before it end
        f = fills[0]
        rank = _shape_value(w, f.group(3), env)
        value = _int_constant(w, f.group(4))
        if not (_lin(rank) and rank[2:] == (1, 0, 0) and value is not None) or \
                re.search(rf"\b{n}\b", before[f.end():]):
            return None
        fill, start = [value, rank[1]], int(f.group(2))
        before = before[:f.start()]
    dims: list = []
    for use in re.finditer(rf"\b{n}\b(?!\s*;)", before):
        m = re.match(rf"{n}\s*\.\s*(SetDimNum|SetDim|AppendDim)\s*\(([^;]*)\)\s*;", before[use.start():])
        args = [_built_dim(w, a, env, whole) for a in split_args(m.group(2))] if m else [None]
        if None in args:
            return None
        if m.group(1) == "SetDimNum" and len(args) == 1 and _is_int(args[0]):
            dims = (dims + [0] * args[0])[:args[0]]
        elif m.group(1) == "SetDim" and len(args) == 2 and _is_int(args[0]) and 0 <= args[0] < len(dims):
            dims[args[0]] = args[1]
        elif m.group(1) == "AppendDim" and len(args) == 1:
            dims.append(args[0])
        else:
            return None
    if fill is not None and (len(dims) != start or any(isinstance(d, tuple) for d in dims)):
        return None
    return dims, fill


def _built_dim(w: Walk, text: str, env: dict, before: str) -> Any:
    """A dim given to a built shape: an int, a dim of an API tensor [tensor, scale, offset], another
    integer the walk knows as ("iexpr", E); None for anything else. The walk's values are those at
    the comparison, so a name ``before`` (the function's text up to it) assigns twice is refused."""
    constant = _int_constant(w, text)
    if constant is not None:
        return constant
    dim = _dim_value(w, text.strip(), env)
    if dim is not None and dim[0] == "dim":
        return list(dim[1:])
    if any(len(re.findall(rf"\b{name}\s*(?:[-+*/%|&^]?=(?!=)|\+\+|--)|(?:\+\+|--)\s*{name}\b", before)) > 1
           for name in set(re.findall(r"(?<![\w.>:])[A-Za-z_]\w*\b(?!\s*\()", text))):
        return None
    try:
        held = _iexpr_of(w, dim if dim is not None else reenter.value(w, text, env))
    except Unreadable:
        return None
    return None if held is None else ("iexpr", held)


def _m_shape_expected(w, src, stmt, env, fail, args):
    name = _tensor(env, args[0])
    other = _shape_of(w, args[1], env)
    built = _built_shape(w, src, stmt, args[1].strip(), env) if other is None else None
    if built is not None and any(isinstance(d, tuple) for d in built[0]):   # a dim computed: a shape expression
        dims = tuple(d[1] if isinstance(d, tuple) else d if _is_int(d) else ("dim", *d) for d in built[0])
        _check(w, src, stmt.offset, "shape_is", _args(param=name, shape_expr=("dims", dims)),
               _fail_status(args[2], fail), stmt.text)
        return
    if built is not None:
        shape = tuple(d if _is_int(d) else tuple(d) for d in built[0])
        _check(w, src, stmt.offset, "shape_is", _args(param=name, shape=shape,
                                                      **({"fill": tuple(built[1])} if built[1] else {})),
               _fail_status(args[2], fail), stmt.text)
        return
    ranked = rank_built_shape(w, src, stmt, args[1].strip(), env) if other is None and built is None else None
    if ranked is not None:   # built over a tensor's rank, its last dims set
        _check(w, src, stmt.offset, "shape_is", _args(param=name, shape_expr=ranked), _fail_status(args[2], fail),
               stmt.text)
        return
    if other is None:
        raise Unreadable(f"the expected shape {args[1].strip()!r}")
    template, targs = _shape_compare(name, other)
    _check(w, src, stmt.offset, template, targs, _fail_status(args[2], fail), stmt.text, w.read_elsewhere.get(other, ()))


def _m_broadcast_with_shape(w, src, stmt, env, fail, args):
    _broadcast_check(w, src, stmt, env, f"{args[0]}->GetViewShape()", args[1], None, _fail_status(args[2], fail))


def _m_shape_scalar_equal(w, src, stmt, env, fail, args):
    _check(w, src, stmt.offset, "shapes_equal_or_single",
           _args(param=_tensor(env, args[0]), other=_tensor(env, args[1])), _fail_status(args[2], fail), stmt.text)


def _m_check_shape_all_equal(w, src, stmt, env, fail, args):
    """aclnn_check.h CHECK_SHAPE_ALL_EQUAL(p1..pn): shapes (p1,p2)..(pn-1,pn), then p(n-1) at most
    MAX_SUPPORT_DIMS_NUMS dimensions."""
    names = [_tensor(env, a) for a in args]
    code = int(Status.ERR_PARAM_INVALID)
    if len(names) < 2:
        raise Unreadable("CHECK_SHAPE_ALL_EQUAL of one tensor")
    for x, y in zip(names, names[1:]):
        _check(w, src, stmt.offset, "shapes_equal", _args(param=x, other=y), code, stmt.text)
    n = w.index.constant("MAX_SUPPORT_DIMS_NUMS")
    if n is None:
        raise Unreadable("MAX_SUPPORT_DIMS_NUMS is not defined in the checkout's headers")
    _check(w, src, stmt.offset, "rank_range", _args(param=names[-2], max=n), code, stmt.text)


def _format_local(expr: str, env: dict) -> str:
    """``selfFormat`` declared as ``auto selfFormat = self->GetStorageFormat();``: that expression."""
    held = env.get(_strip(expr))
    if isinstance(held, Opaque) and re.fullmatch(FORMAT_OF, held.text.strip()):
        return held.text.strip()
    return _strip(expr)


def _shape_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """A shape comparison: view shapes and broadcast shapes (!=); storage formats (!=)."""
    if neg:
        return None
    parts = _split_top(body, "!=")
    fm = [re.fullmatch(FORMAT_OF, _format_local(p, env)) for p in parts] if len(parts) == 2 else []
    if fm and all(fm):
        return "formats_equal", _args(param=_tensor(env, fm[0].group(1)), other=_tensor(env, fm[1].group(1)))
    for op in ("!=", "=="):
        two = _split_top(body, op)
        lit = re.fullmatch(r"(?:op::|ge::)?(?:Format::)?FORMAT_([A-Z0-9_]+)", two[1]) if len(two) == 2 else None
        fx = re.fullmatch(FORMAT_OF, _format_local(two[0], env)) if len(two) == 2 else None
        if lit and fx:
            return ("format_in" if op == "!=" else "format_not_in",
                    _args(param=_tensor(env, fx.group(1)), formats=[lit.group(1)]))
    if len(parts) == 2:
        a, b = _shape_of(w, parts[0], env), _shape_of(w, parts[1], env)
        if a is not None and b is not None and sorted((a[0], b[0])) == ["bshape-built", "built-shape"]:
            expanded, built = (a, b) if a[0] == "bshape-built" else (b, a)
            # the broadcast of t with a built shape differs from that shape: t does not expand to it
            return ("expands_to_shape", _args(param=expanded[1], shape=expanded[2])) \
                if expanded[2] == built[1] else None
        if a is not None and b is not None:
            if a[0] == "bshape" and b[0] == "bshape":
                return None
            if a[0] != "shape-of" and b[0] == "shape-of":   # the tensor's own shape first
                a, b = b, a
            if a[0] != "shape-of":
                return None
            return _shape_compare(a[1], b)
    return None


def _shape_expr_at(w: Walk, expr: str, env: dict) -> Any:
    """The shape expression ``expr`` holds: a shape local, or the view shape of an API tensor, of a
    copy of one or of a tensor whose shape the walk knows (``t->GetViewShape()``); None otherwise."""
    if re.fullmatch(r"[A-Za-z_]\w*(?:\s*->\s*GetViewShape\(\))?", _strip(expr)):
        return _shape_expr_of(_view_shape_held(expr, env))
    return None


def constructed_shape(w: Walk, expr: str, env: dict) -> tuple | None:
    """``op::Shape({a, b, ...})`` (or ``op::Shape{...}``) with each dim an integer the walk knows:
    ("shape-expr", ("dims", E...)) (ops-math conversion/im2col/op_api/aclnn_im2col.cpp:129-134); None
    for anything else; Unreadable when a dim is not such an integer."""
    m = re.fullmatch(r"(?:op|gert)::Shape\s*(?:\(\s*\{(.*)\}\s*\)|\{(.*)\})", _strip(expr), re.S)
    if m is None:
        return None
    dims = []
    for text in split_args(m.group(1) if m.group(1) is not None else m.group(2)):
        dim = _iexpr_of(w, reenter.value(w, text, env))
        if dim is None:
            raise Unreadable(f"the dim {text.strip()!r} of a constructed shape")
        dims.append(dim)
    return ("shape-expr", ("dims", tuple(dims)))


def shape_choice(w: Walk, cond: str, branches: list[str], env: dict) -> tuple | None:
    """``test ? S1 : S2`` with two shapes the walk knows and a test it reads as a guard (a bool local
    holding one, aclnn_im2col.cpp:127): ("shape-expr", ("?", ("guard", g), S1, S2)); None otherwise."""
    held = env.get(_strip(cond))
    g = held[1] if isinstance(held, tuple) and held[:1] == ("guard",) else reenter.guard(w, cond, env)
    if g is None:
        return None
    try:
        shapes = [_shape_expr_of(reenter.value(w, b, env)) for b in branches]
    except Unreadable:
        return None
    return None if None in shapes else ("shape-expr", ("?", ("guard", g), *shapes))


def _shape_expr_of(v: Any) -> Any:
    """A held shape as a spec.templates shape expression: an API tensor's view shape, a shape built
    of constants and dims, an expression; None for anything else."""
    if not isinstance(v, tuple) or not v:
        return None
    if v[0] == "shape-of":
        return ("of", v[1])
    if v[0] == "built-shape":
        return ("dims", tuple(d if _is_int(d) else ("dim", *d) for d in v[1]))
    if v[0] == "bshape" and len(v[1]) == 2:   # two API tensors' broadcast shape (opbase BroadcastInferShape)
        return ("broadcast", ("of", v[1][0]), ("of", v[1][1]))
    return v[1] if v[0] == "shape-expr" else None


def _int_or_shape_choice(w: Walk, guard: Any, new: Any, old: Any) -> tuple | None:
    """A shape or an integer a guarded branch set: the choice of its new value and the one from
    before on the branch's guard; None when either is no shape or integer the walk knows."""
    s_new, s_old = _shape_expr_of(new), _shape_expr_of(old)
    if s_new is not None and s_old is not None:
        return ("shape-expr", ("?", ("guard", guard), s_new, s_old))
    i_new, i_old = _iexpr_of(w, new), _iexpr_of(w, old)
    if i_new is not None and i_old is not None:
        return ("iexpr", ("?", ("guard", guard), i_new, i_old))
    return None


def _set_dim(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``s.SetDim(i, v);`` on a shape local the walk holds, i a constant, ``s.GetDimNum() - k`` or
    ``rank - k`` of the tensor whose rank s has, inside the rank earlier checks leave s, and v an
    integer the walk knows: s becomes that shape with dim i made v; unknown otherwise. ``s[i] = v;``
    (op::Shape's operator[], ops-nn norm/ada_layer_norm_grad/op_host/op_api/
    aclnn_ada_layer_norm_backward.cpp:318) is the same."""
    text = stmt.text.strip()
    element = re.fullmatch(r"([A-Za-z_]\w*)\s*\[([^\[\]]+)\]\s*=(?!=)\s*(.+?)\s*;?", text, re.S)
    if element and _shape_expr_of(env.get(element.group(1))) is not None:
        text = f"{element.group(1)}.SetDim({element.group(2)}, {element.group(3)})"
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*SetDim\s*\((.*)\)\s*;?", text, re.S)
    shape = _shape_expr_of(env.get(m.group(1))) if m else None
    if shape is None:
        return False
    two, index, size = split_args(m.group(2)), None, None
    if len(two) == 2:
        index = _set_dim_index(w, two[0], m.group(1), shape, env)
        try:
            size = _iexpr_of(w, reenter.value(w, two[1], env))
        except Unreadable:
            size = None
    if len(two) == 2 and size is None:
        size = dim_size(w, two[1], env)   # set_dim_index.py: ``index->IsScalar() ? 1 : index->GetDim(0)``
    if index is None and size is not None:
        index = _rank_less_index(w, two[0], shape, env) or computed_index(w, two[0], env) or \
            _wrapped_index(w, two[0], shape, env)
        if index is not None:
            env[m.group(1)] = ("shape-expr", ("set-dim", shape, index, size))
            return True
    if index is None or size is None or _expr_min_rank(w, shape) < (-index if index < 0 else index + 1):
        env[m.group(1)] = Opaque(text)
    else:
        env[m.group(1)] = ("shape-expr", ("set-dim", shape, index, size))
    return True


def _wrapped_index(w: Walk, text: str, shape: tuple, env: dict) -> tuple | None:
    """A SetDim index that is an integer argument's dim of the tensor, wrapped by its rank, the argument
    kept inside [-rank, rank - 1] by checks before (ops-math conversion/slice/op_api/aclnn_slice.cpp:112-127
    ``sliceShape.SetDim(dim, sliceNum)``): that wrapped dim as an integer expression; None otherwise."""
    try:
        index = _wrapped_iexpr(w, reenter.value(w, text, env))
    except Unreadable:
        return None
    return index if index is not None and reenter.dims_decided(w, ("sdim", shape, index)) else None


def _rank_less_index(w: Walk, text: str, shape: tuple, env: dict) -> tuple | None:
    """A SetDim index ``n - k`` (k >= 1) with n the rank of a shape X that ``shape`` starts with (X itself,
    or X with dims appended or set) and X of rank k or more on every call: inside ``shape``, as the
    integer expression ("-", ("srank", X), k); None otherwise."""
    try:
        index = _iexpr_of(w, reenter.value(w, text, env))
    except Unreadable:
        return None
    if not (isinstance(index, tuple) and len(index) == 3 and index[0] == "-" and _is_int(index[2])
            and index[2] >= 1 and isinstance(index[1], tuple) and index[1][:1] == ("srank",)):
        return None
    x, y = _rank_form(index[1][1]), _rank_form(shape)
    inside = x is not None and y is not None and x[0] == y[0] and y[1] >= x[1]   # rank(shape) >= rank(X)
    return index if inside and _expr_min_rank(w, index[1][1]) >= index[2] else None


def _rank_form(shape: tuple) -> tuple | None:
    """A shape expression's rank as (the parts of unknown rank, a constant added): dims and slices of a
    constant length count as constants, a concat adds, a set-dim keeps; None for any other part than
    a tensor's shape or a broadcast (kept whole)."""
    head = shape[0] if isinstance(shape, tuple) and shape else None
    if head in ("of", "broadcast"):
        return ((shape,), 0)
    if head == "dims":
        return ((), len(shape[1]))
    if head == "slice" and _is_int(shape[3]) and shape[3] >= 0:
        return ((), shape[3])
    if head == "set-dim":
        return _rank_form(shape[1])
    if head == "concat":
        a, b = _rank_form(shape[1]), _rank_form(shape[2])
        return None if a is None or b is None else (a[0] + b[0], a[1] + b[1])
    return None


def _append_dim(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``s.AppendDim(v);`` on a shape local the walk holds, v an integer it knows: s becomes
    ("concat", s, ("dims", (v,))); a chain ``s.AppendDim(1).AppendDim(h);`` appends each in order;
    unknown otherwise."""
    text = stmt.text.strip().rstrip(";").rstrip()
    m = re.match(r"([A-Za-z_]\w*)\s*(?=\.\s*AppendDim\s*\()", text)
    shape = _shape_expr_of(env.get(m.group(1))) if m else None
    if shape is None:
        return False
    sizes, at = [], m.end()
    while at < len(text):
        call = re.compile(r"\s*\.\s*AppendDim\s*\(").match(text, at)
        close = match_close(text, call.end() - 1) if call else -1
        if close < 0:
            return False
        sizes.append(text[call.end():close])
        at = close + 1
    try:
        dims = tuple(_iexpr_of(w, reenter.value(w, size, env)) for size in sizes)
    except Unreadable:
        dims = None
    env[m.group(1)] = Opaque(stmt.text.strip()) if dims is None or None in dims else \
        ("shape-expr", ("concat", shape, ("dims", dims)))
    return True


def vector_pop_back(stmt: Stmt, env: dict) -> bool:
    """``v.pop_back();`` on a vector holding a shape's dims (``ToShapeVector``): the dims but the last
    (a ``slice``, none for a rank-0 shape, where pop_back is undefined); another vector held is not
    known after it (ops-math math/logdet/op_api/aclnn_logdet.cpp:72-74)."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*pop_back\s*\(\s*\)\s*;?", stmt.text.strip())
    held = env.get(m.group(1)) if m else None
    if not (isinstance(held, tuple) and held[:1] == ("dims-vector",)):
        return False
    shape = _shape_expr_of(held[1])
    env[m.group(1)] = Opaque(stmt.text.strip()) if shape is None else \
        ("dims-vector", ("shape-expr", ("slice", shape, 0, ("-", ("srank", shape), 1))))
    return True


def to_shape(stmt: Stmt, env: dict) -> bool:
    """``ToShape(v, s);`` of a vector holding a shape's dims: s holds that shape (opbase
    src/nnopbase/common/utils/shape_utils.cpp:57-68, SetDimNum then SetDim of each element)."""
    m = re.fullmatch(r"(?:op::)?ToShape\s*\(\s*([A-Za-z_]\w*)\s*,\s*([A-Za-z_]\w*)\s*\)\s*;?", stmt.text.strip())
    held = env.get(m.group(1)) if m else None
    shape = _shape_expr_of(held[1]) if isinstance(held, tuple) and held[:1] == ("dims-vector",) else None
    if shape is None or isinstance(env.get(m.group(2)), T):
        return False
    env[m.group(2)] = ("shape-expr", shape)
    return True


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.shape_expr_at = _shape_expr_at
reenter.shape_expr_of = _shape_expr_of
reenter.view_shape_held = _view_shape_held
