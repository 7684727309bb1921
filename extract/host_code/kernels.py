"""Kernel results: what ``l0op::K(...)`` returns (its dtype expression, its shape: broadcast,
chosen on a branch, allocated, unsqueezed, tiled, a helper's shape), a helper that calls a kernel and
checks nothing, a kernel chosen on a condition, lambdas and choices between tensors of the compute path,
``ViewCopy`` into an API tensor and its null check, a null kernel result."""
from __future__ import annotations

import re
from typing import Any, Callable

from aclnn_conformance.extract.shape_helpers import leading_ones_to, normalised, one_dim_at_rank0
from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, match_close, split_args, statements
from aclnn_conformance.extract.host_code.model import (Opaque, T, Unreadable, Walk, _End, _Stop, _args, _check,
                                                       _flatten, _is_int, _macro, _split_colon, _split_top, _strip)
from aclnn_conformance.extract.host_code.promotion import _dexpr_of
from aclnn_conformance.extract.host_code.statements import _checks_params
from aclnn_conformance.extract.host_code.casts import (_allocated_dtype, _argument_dtype, _chosen_alloc_dtype,
                                                       _returned_names, _tensor_dtype, _tuple_dtypes)
from aclnn_conformance.extract.host_code.shapes import _shape_expr_at, _shape_expr_of
from aclnn_conformance.extract.host_code.nulls import _nonnull_names
from aclnn_conformance.extract.host_code.reductions import _kernel_shape
from aclnn_conformance.extract.host_code.products import _product_flat, _product_path
from aclnn_conformance.extract.host_code.scalars import _converted_scalar, _scalar_tensor, _string_choice, _string_is
import aclnn_conformance.extract.host_code.reenter as reenter


def _kernel_result(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``l0op::K(args...)``: ("tensor-dtype", dtype expression) when K allocates the one tensor it
    returns with an argument's dtype or a constant (``executor->AllocTensor(..., self->GetDataType(),
    ...)``); ``l0op::Cast(x, D, executor)``: ("cast-of", x's dtype or None, D). None otherwise."""
    converted = _converted_scalar(w, rhs, env) or _scalar_tensor(w, rhs, env)
    if converted is not None:
        return converted
    call = _macro(rhs)
    if not call or not call[0].startswith("l0op::") or match_close(rhs, rhs.index("(")) != len(rhs) - 1:
        return None
    args = call[1]
    if call[0] == "l0op::Reshape" and len(args) == 3:   # a new shape, the same dtype (reshape.h:18-34)
        d, shape = _tensor_dtype(w, args[0], env), env.get(_strip(args[1]))
        if isinstance(shape, tuple) and shape[:1] == ("dims-vector",):
            return ("tensor-dtype", d, shape[1])   # reshaped to the dims a helper computed
        if _shape_expr_of(shape) is not None and shape[0] == "shape-expr":
            return ("tensor-dtype", d, shape)   # reshaped to a shape local the walk holds
        return None if d is None else ("tensor-dtype", d)
    if call[0] == "l0op::BroadcastTo" and len(args) == 3:
        broadcast = _broadcast_to_shape(w, args, env)
        if broadcast is not None:
            return broadcast
    if call[0] == "l0op::Fill" and len(args) == 4:
        # a tensor of the dims the int array holds, of the value's dtype (fill.cpp:85-93)
        shape = env.get(_strip(args[2]))
        if isinstance(shape, tuple) and shape[:1] == ("dims-vector",):
            return ("tensor-dtype", _tensor_dtype(w, args[1], env), shape[1])
        return None
    if call[0] == "l0op::UnsqueezeNd" and len(args) == 3:
        # x itself or a view of it (unsqueeze.cpp:55-74): x's dtype, its shape read for rank 0 only
        d = _tensor_dtype(w, args[0], env)
        return _unsqueezed_rank0(w, args, env) or _unsqueezed_at(w, args, env) or \
            (None if d is None else ("tensor-dtype", d))
    if call[0] == "l0op::Tile" and len(args) == 3:
        return _tiled(w, args, env)
    if call[0] == "l0op::Contiguous" and len(args) == 2 and isinstance(env.get(_strip(args[0])), T):
        return ("copy-of", env[_strip(args[0])].name)   # the argument's dtype and view shape (contiguous.cpp)
    if call[0] == "l0op::Cast" and len(args) == 3:
        like = _shape_like(env.get(_strip(args[0])))
        if like is None and _tensor_shape_expr(env.get(_strip(args[0]))) is not None:
            like = ("shape-expr", _tensor_shape_expr(env.get(_strip(args[0]))))   # a cast keeps the shape
        try:
            dst = _dexpr_of(w, args[1], env)
        except Unreadable:   # a dtype not read: the cast still keeps its source's shape
            return None if like is None else ("cast-of", _tensor_dtype(w, args[0], env), None, like)
        return ("cast-of", _tensor_dtype(w, args[0], env), dst, like)
    fn = w.index.kernels.function(call[0], len(args)) if w.index.kernels is not None else None
    if fn is None or len(fn.params) < len(args):
        return None
    result = _allocated_dtype(fn, w.index.kernels.source_of(call[0]))
    shape = _kernel_shape(w, fn, args, env) or _kernel_chosen_shape(w, fn, args, env) or \
        _kernel_alloc_shape(w, fn, args, env) or _kernel_broadcast_shape(w, fn, args, env)
    elements = _tuple_dtypes(fn, w.index.kernels.source_of(call[0])) if result is None else None
    if elements is not None:   # a tuple of tensors: each element's dtype from the arguments
        return ("tensor-tuple", tuple(_argument_dtype(w, fn, args, env, e) for e in elements), shape)
    if result is None:   # a dtype chosen on the arguments' dtypes (Mul's mixed float types), or not read
        chosen = _chosen_alloc_dtype(w, fn, args, env)
        return ("tensor-dtype", chosen, shape) if chosen is not None else \
            None if shape is None else ("tensor-dtype", None, shape)
    if result[0] == "dtype":
        return ("tensor-dtype", result, shape)
    param = fn.params.index(result[1])
    if param >= len(args):   # a defaulted parameter decides it: not read
        return None
    if result[0] == "of":
        d = _tensor_dtype(w, args[param], env)
    else:   # a DataType argument
        try:
            d = _dexpr_of(w, args[param], env)
        except Unreadable:
            d = None
    if d is None:   # its dtype unknown: its shape may still be
        return None if shape is None else ("tensor-dtype", None, shape)
    return ("tensor-dtype", d, shape)


def _broadcast_to_shape(w: Walk, args: list[str], env: dict) -> tuple | None:
    """``l0op::BroadcastTo(x, a, executor)`` with ``a`` an int array of dims the walk holds as a shape
    expression: a tensor of x's dtype and those dims (ops-math conversion/broadcast_to/op_api/
    broadcast_to.cpp:94-104 infers it; op_host/broadcast_to_infershape.cpp:55-100 gives the array's
    dims where x broadcasts to them, and else the kernel fails: a kernel's failure, not read); None
    otherwise."""
    held = env.get(_strip(args[1]))
    shape = held[1][1] if isinstance(held, tuple) and held[:1] == ("dims-vector",) and \
        isinstance(held[1], tuple) and held[1][:1] == ("shape-expr",) else None
    return None if shape is None else ("tensor-dtype", _tensor_dtype(w, args[0], env), ("shape-expr", shape))


_BROADCAST_INTO = (r"OP_CHECK_BROADCAST_AND_INFER_SHAPE\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*return\s+nullptr\s*\)\s*;?"
                   r"|if\s*\(\s*!\s*(?:op::)?BroadcastInferShape\(\s*(\w+)\s*->\s*GetViewShape\(\)\s*,\s*(\w+)\s*->\s*"
                   r"GetViewShape\(\)\s*,\s*(\w+)\s*\)\s*\)")


def _kernel_broadcast_shape(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """("shape-expr", ["broadcast", A, B]) when kernel ``fn`` returns one tensor, allocated once with
    the shape its first statements infer by broadcasting two tensor parameters' view shapes (``Shape
    s; OP_CHECK_BROADCAST_AND_INFER_SHAPE(a, b, s, return nullptr);`` or ``if (!BroadcastInferShape(
    a->GetViewShape(), b->GetViewShape(), s)) { ...; return nullptr; }``, ops-math math/mul/op_api/
    mul.cpp:136-146, add.cpp:101-117), A and B the arguments' held shapes, and nothing sets that shape
    or tensor anew (where they do not broadcast the kernel returns null: its failure). None otherwise."""
    names = _returned_names(fn, w.index.kernels.source_of(fn.name))
    local = next(iter(names)) if names and len(names) == 1 else None
    stmts = statements(fn.body, fn.body_offset)
    m = re.fullmatch(_BROADCAST_INTO, stmts[1].text.strip() if stmts[1].kind != "if" else
                     "if (" + stmts[1].cond.strip() + ")", re.S) if len(stmts) > 2 else None
    if local is None or local in fn.params or m is None or re.search(
            rf"\bINFER_SHAPE\b|\b{local}\s*->\s*Set\w*Shape|&\s*{local}\b", fn.body):
        return None
    a, b, shape = [g for g in m.groups() if g is not None]
    if not re.fullmatch(rf"(?:op::|gert::)?Shape\s+{shape}\s*;?", stmts[0].text.strip()) or \
            stmts[1].kind == "if" and (stmts[1].orelse or [x.text.strip().rstrip(";") for x in stmts[1].then
                                                            if x.kind == "return"] != ["return nullptr"]):
        return None
    allocs = re.findall(r"AllocTensor\(\s*([^,()]*)", fn.body)
    sets = re.findall(rf"\b{local}\s*=(?!=)", fn.body)
    if not allocs or any(x.strip() != shape for x in allocs) or len(sets) != 1 or \
            len(re.findall(rf"\b{shape}\b", fn.body)) != 2 + len(allocs) or \
            any(p not in fn.params or fn.params.index(p) >= len(args) or re.search(rf"\b{p}\s*=(?!=)", fn.body)
                for p in (a, b)):
        return None
    held = [_tensor_shape_expr(env.get(_strip(args[fn.params.index(p)]))) for p in (a, b)]
    return None if None in held else ("shape-expr", ("broadcast", *held))


def _kernel_chosen_shape(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """The shape of the tensor kernel ``fn`` returns when it is allocated on each side of one branch on
    a string parameter (``if (mode == "none") { r = executor->AllocTensor(self->GetViewShape(), ..); }
    else { r = executor->AllocTensor({}, ..); }``), each shape a tensor parameter's view shape or
    ``{}`` (rank 0), and nothing reshapes it after: ("shape-expr", ["?", the call's integer test for
    that word, one shape, the other]); None otherwise."""
    names = _returned_names(fn, w.index.kernels.source_of(fn.name))
    local = next(iter(names)) if names and len(names) == 1 else None
    if local is None or local in fn.params or re.search(
            rf"INFER_SHAPE|\b{local}\s*->\s*Set\w*Shape|&\s*{local}\b", fn.body):
        return None
    branches = [s for s in statements(fn.body, fn.body_offset) if s.kind == "if" and any(
        re.search(rf"\b{local}\s*=(?!=)", x.text) for x in _flatten(s.then + s.orelse))]
    sets = re.findall(rf"\b{local}\s*=(?!=)\s*([^;]+);", fn.body)
    if len(branches) != 1 or len(sets) != 2 + ("nullptr" in [x.strip() for x in sets]) or \
            any(x.strip() != "nullptr" and "AllocTensor" not in x for x in sets):
        return None
    branch = branches[0]
    shapes = []
    for side in (branch.then, branch.orelse):
        m = re.fullmatch(rf"{local}\s*=\s*executor\s*->\s*AllocTensor\((.*)\)", side[0].text.strip(), re.S) \
            if len(side) == 1 and side[0].kind == "decl" else None
        first = _strip(split_args(m.group(1))[0]) if m and len(split_args(m.group(1))) in (2, 3) else None
        view = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)", first or "")
        if first == "{}":
            shapes.append(("dims", ()))
        elif view and view.group(1) in fn.params and fn.params.index(view.group(1)) < len(args) and \
                not re.search(rf"\b{view.group(1)}\s*=(?!=)", fn.body):   # the argument as given
            shapes.append(_tensor_shape_expr(env.get(_strip(args[fn.params.index(view.group(1))]))))
        else:
            return None
    two = next((_split_top(_strip(branch.cond), op) + [op] for op in ("==", "!=")
                if len(_split_top(_strip(branch.cond), op)) == 2), None)
    if None in shapes or two is None:
        return None
    word = [x for x in two[:2] if re.fullmatch(r'"\w*"', _strip(x))]
    param = [_strip(x) for x in two[:2] if x not in word]
    if len(word) != 1 or param[0] not in fn.params or fn.params.index(param[0]) >= len(args) or \
            not re.fullmatch(r"const\s+(?:std::)?string\s*&|(?:const\s+)?(?:std::)?string",
                             fn.param_types[fn.params.index(param[0])].strip()):
        return None
    chosen = _string_choice(w, args[fn.params.index(param[0])], env)
    test = None if chosen is None else _string_is(chosen, _strip(word[0])[1:-1])
    if test is None:
        return None
    then, orelse = shapes if two[2] == "==" else shapes[::-1]
    return ("shape-expr", ("?", test, then, orelse))


def _unsqueezed_rank0(w: Walk, args: list[str], env: dict) -> tuple | None:
    """``l0op::UnsqueezeNd(x, d, executor)`` with x of an API tensor's view shape, that tensor of rank 0
    on every call reaching here (a branch's guard) and d the integer 0 or -1: a tensor of x's dtype and
    shape [1] (ops-math conversion/unsqueeze/op_host/op_api/unsqueeze.cpp:19-53: one dim inserted into
    rank 0, -1 wrapped by the new rank 1); None otherwise."""
    like = _shape_like(env.get(_strip(args[0])))
    try:
        dim = reenter.value(w, args[1], env)
    except Unreadable:
        return None
    if like is None or ("rank-zero", like) not in w.guards or not _is_int(dim) or dim not in (0, -1):
        return None
    return ("tensor-dtype", _tensor_dtype(w, args[0], env), ("shape-expr", ("dims", (1,))))


def _unsqueezed_at(w: Walk, args: list[str], env: dict) -> tuple | None:
    """``l0op::UnsqueezeNd(x, a, executor)`` with x of a shape S the walk holds and a an int array of
    one constant d: a tensor of x's dtype and S with a dim of 1 inserted at d, wrapped by rank + 1
    (ops-math conversion/unsqueeze/op_host/op_api/unsqueeze.cpp:19-53), as ["concat", ["concat",
    ["slice", S, 0, d], [1]], ["slice", S, d, rank - d]]; a d outside [-rank - 1, rank] (the kernel's
    null result) makes a slice reach outside S, which no rule judges. None otherwise."""
    held, shape = env.get(_strip(args[1])), _tensor_shape_expr(env.get(_strip(args[0])))
    one = held[1][1] if isinstance(held, tuple) and held[:1] == ("dims-vector",) and \
        held[1][:1] == ("shape-expr",) and held[1][1][:1] == ("dims",) else None
    if shape is None or one is None or len(one[1]) != 1 or not _is_int(one[1][0]):
        return None
    d = one[1][0]
    at = d if d >= 0 else ("+", ("srank", shape), d + 1)
    unsqueezed = ("concat", ("concat", ("slice", shape, 0, at), ("dims", (1,))),
                  ("slice", shape, at, ("-", ("srank", shape), at)))
    return ("tensor-dtype", _tensor_dtype(w, args[0], env), ("shape-expr", unsqueezed))


def _tiled(w: Walk, args: list[str], env: dict) -> tuple | None:
    """``l0op::Tile(x, a, executor)`` with a the API's integer array and x of a shape the walk holds (or
    that shape with leading dims of 1 up to a's length, which tile the same): a tensor of x's dtype,
    of the shape ("tile", x's shape, a) (ops-math math/tile/op_api/tile.cpp:95-110: a's first
    len(a) - rank dims, then each of x's dims times a's element at its place; null for a shorter a)."""
    arr = env.get(_strip(args[1]))
    if not isinstance(arr, T) or "IntArray" not in w.ptypes.get(arr.name, ""):
        return None
    held = env.get(_strip(args[0]))
    if isinstance(held, tuple) and held[:1] == ("tensor-dtype",) and len(held) == 3 and \
            isinstance(held[2], tuple) and held[2][:1] == ("lead-ones",):
        shape = held[2][1] if held[2][2] == arr.name else None
    else:
        shape = _tensor_shape_expr(held)
    if shape is None:
        return None
    return ("tensor-dtype", _tensor_dtype(w, args[0], env), ("shape-expr", ("tile", shape, arr.name)))


def _one_dim_at_rank0_local(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``H(x, executor)`` with H a helper shape_helpers.one_dim_at_rank0 recognises and x of an API
    tensor's view shape: a tensor of x's dtype, of that shape, or [1] where the tensor has rank 0."""
    rhs = _strip(rhs)
    call = _macro(rhs)
    if not call or match_close(rhs, rhs.index("(")) != len(rhs) - 1 or len(call[1]) != 2:
        return None
    fn = w.index.function(call[0])
    tensor = _shape_like(env.get(_strip(call[1][0])))
    if fn is None or tensor is None or not one_dim_at_rank0(fn, w.index.function):
        return None
    shape = ("?", ("guard", ("rank-zero", tensor)), ("dims", (1,)), ("of", tensor))
    return ("tensor-dtype", _tensor_dtype(w, call[1][0], env), ("shape-expr", shape))


def _leading_ones_branch(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (x->GetViewShape().GetDimNum() < a->Size()) { y = H(x, a, executor); CHECK_RET(y !=
    nullptr, S); }`` with H a helper shape_helpers.leading_ones_to recognises, a the API's integer
    array, x of a shape the walk holds and y holding x before it: after it y has x's shape with
    leading dims of 1 up to a's length (x's own shape where it has as many dims: the branch not
    taken), held as ("lead-ones", shape, a), which only Tile reads (_tiled). A null view (x not
    contiguous) is the kernel's failure, as _kernel_made's, whatever status S names."""
    m = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*<\s*(\w+)\s*->\s*Size\(\)",
                     _strip(stmt.cond))
    if not m or stmt.orelse or not 1 <= len(stmt.then) <= 2:
        return False
    x, arr = m.group(1), env.get(m.group(2))
    d = re.fullmatch(r"(\w+)\s*=\s*(\w+)\s*\((.*)\)\s*;?", stmt.then[0].text.strip(), re.S)
    if not isinstance(arr, T) or "IntArray" not in w.ptypes.get(arr.name, "") or not d:
        return False
    y, fn = d.group(1), w.index.function(d.group(2))
    args = [_strip(a) for a in split_args(d.group(3))]
    if fn is None or not leading_ones_to(fn) or args[:2] != [x, m.group(2)] or len(args) != 3:
        return False
    if len(stmt.then) == 2 and not re.fullmatch(rf"CHECK_RET\(\s*{y}\s*!=\s*nullptr\s*,\s*\w+\s*\)\s*;?",
                                                 stmt.then[1].text.strip()):
        return False
    shape = _tensor_shape_expr(env.get(x))
    if shape is None or y not in env or env[y] != env.get(x):
        return False
    env[y] = ("tensor-dtype", _tensor_dtype(w, x, env), ("lead-ones", shape, arr.name))
    return True


def _kernel_alloc_shape(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """("shape-expr", S) when the kernel ``fn`` allocates the tensor it returns as ``executor->
    AllocTensor(s, ...)`` with ``Shape s = H(params...);``, or ``Shape s;`` set before only by ``s = H(params...);`` in the branch this
    product takes of an if/else-if on the product (cdist.cpp:82-90), H a helper of its file walked
    over the arguments' held shapes; and on this product's path after it no INFER_SHAPE (which would
    set the shape anew) and every return is nullptr, that tensor, or a helper of the file returning
    its parameter given it. None otherwise."""
    src = w.index.kernels.source_of(fn.name)
    if src is None or len(args) != len(fn.params):
        return None
    local: dict = {p: env.get(_strip(a)) for p, a in zip(fn.params, args)}
    stmts = list(statements(fn.body, fn.body_offset))
    alloc = [i for i, st in enumerate(stmts) if re.search(r"->\s*AllocTensor\(", st.text)]
    if len(alloc) != 1:
        return None
    m = re.fullmatch(r"(?:auto|aclTensor\s*\*)\s*(\w+)\s*=\s*\w+\s*->\s*AllocTensor\(\s*(\w+)\s*,[^;]*\)\s*;?",
                     stmts[alloc[0]].text.strip())
    if not m:
        return None
    out, shape_name, shape = m.group(1), m.group(2), None
    for st in stmts[:alloc[0]]:
        text = st.text.strip()
        made = re.fullmatch(rf"(?:op::|gert::)?Shape\s+{shape_name}\s*=\s*(\w+)\((.*)\)\s*;?", text, re.S)
        if st.kind == "call" and re.match(r"L0_DFX\s*\(", text):
            continue   # the kernel's trace
        if st.kind == "decl" and made and made.group(1) in src.functions:
            # ``Shape s = H(x, axis, n);`` (ops-nn index/repeat_interleave/op_api/repeat_interleave.cpp:30-44)
            shape = _helper_shape(w, src, src.functions[made.group(1)],
                                  [_strip(a) for a in split_args(made.group(2))], local)
            if shape is None:
                return None
        elif st.kind == "decl" and re.fullmatch(rf"(?:op::|gert::)?Shape\s+{shape_name}\s*;?", text):
            shape = ("dims", ())
        elif st.kind == "decl" and re.fullmatch(r"(?:op::)?SocVersion\s+\w+\s*=\s*GetCurrentPlatformInfo\(\)\s*\.\s*"
                                                r"GetSocVersion\(\)\s*;?", text):
            reenter.run_decl(w, src, st, local)
        elif st.kind == "if" and shape is not None:
            taken = _product_path(w, st, local)
            sets = [x for x in taken or () if not re.fullmatch(r"OP_LOG\w*\(.*\)\s*;?", x.text.strip(), re.S)]
            if taken is None or len(sets) > 1:
                return None
            if sets:
                call = re.fullmatch(rf"{shape_name}\s*=\s*(\w+)\((.*)\)\s*;?", sets[0].text.strip(), re.S)
                helper = src.functions.get(call.group(1)) if call else None
                if helper is None:
                    return None
                shape = _helper_shape(w, src, helper, [_strip(a) for a in split_args(call.group(2))], local)
                if shape is None:
                    return None
        else:
            return None
    if shape is None or shape == ("dims", ()):
        return None   # not set on this product (an empty shape: the kernel then returns null)
    after = _product_flat(w, stmts[alloc[0] + 1:], local)
    if after is None or any("INFER_SHAPE" in st.text or re.search(rf"\b{out}\s*->\s*Set\w*(?:Shape|Format)\b", st.text)
                            for st in after):
        return None   # its shape set anew
    for st in after:
        if st.kind == "return" and not _returns_tensor(src, st.text, out):
            return None
    return ("shape-expr", shape)


def _returns_tensor(src: SourceFile, text: str, name: str) -> bool:
    """``return nullptr;``, ``return name;`` or ``return F(..., name, ...);`` with F a function of the
    file whose every return is nullptr or the parameter given ``name``."""
    value = re.sub(r"^return\s*", "", text.strip()).rstrip(";").strip()
    if value in ("nullptr", name):
        return True
    call = _macro(value)
    fns = [f for f in src.overloads.get(call[0], ()) if len(f.params) == len(call[1])] if call else []
    fn = fns[0] if len(fns) == 1 else None
    if fn is None or not re.search(r"\)\s*$", value):
        return False
    given = [i for i, a in enumerate(call[1]) if _strip(a) == name]
    if len(given) != 1 or given[0] >= len(fn.params):
        return False
    returned = re.findall(r"\breturn\b\s*(\w*)", fn.body)   # also inside OP_CHECK(..., return nullptr)
    return bool(returned) and all(r in ("nullptr", fn.params[given[0]]) for r in returned)


def _helper_shape(w: Walk, src: SourceFile, helper: Function, args: list[str], env: dict) -> tuple | None:
    """The shape expression a kernel file's helper returns (``Shape H(const aclTensor* x) { ...;
    return outShape; }``), its statements walked over the arguments' held values; None when it checks
    anything, or its statements or result are not read."""
    if len(args) != len(helper.params):
        return None
    stmts = list(statements(helper.body, helper.body_offset))
    last = re.fullmatch(r"return\s+(\w+)\s*;?", stmts[-1].text.strip()) if stmts else None
    if not last or re.search(r"OP_CHECK|CHECK_RET|return\s+(?!\w+\s*;)", helper.body.replace(stmts[-1].text, "")):
        return None
    local = {p: env.get(a) for p, a in zip(helper.params, args)}
    mark, depth, guards, pending = len(w.events), w.depth, list(w.guards), list(w.pending)
    w.depth += 1
    try:
        reenter.run_block(w, src, tuple(stmts[:-1]), local, None, False)
    except (Unreadable, _End, _Stop):
        return None
    finally:   # nothing of the helper's walk stays in the caller's
        changed = len(w.events) != mark or w.guards != guards or w.pending != pending
        w.depth, w.guards[:], w.pending[:] = depth, guards, pending
        del w.events[mark:]
    if changed:
        return None
    return _shape_expr_of(local.get(last.group(1)))


def _shape_like(held: Any) -> str | None:
    """The API tensor whose view shape a tensor of the compute path has: the tensor itself, a
    contiguous copy, a cast of one."""
    if isinstance(held, T):
        return held.name
    if isinstance(held, tuple) and held[:1] in (("copy-of",), ("like",)):
        return held[1]
    if isinstance(held, tuple) and held[:1] == ("cast-of",) and len(held) == 4 and isinstance(held[3], str):
        return held[3]
    if isinstance(held, tuple) and held[:1] == ("tensor-dtype",) and len(held) == 3 \
            and isinstance(held[2], tuple) and held[2][:1] == ("like",):
        return held[2][1]
    return None


_KERNEL_CALL = r"l0op::(?!Cast\b)\w+\s*\("   # a kernel call (a Cast is read apart: _cast_cannot_fail)


def _kernel_on_every_path(stmts: tuple[Stmt, ...], name: str, w: Walk | None = None) -> bool:
    """``name`` is set from a kernel call (with the walk, or a compute helper's) on every path through
    ``stmts``: by one of them, or by both sides of an if/else among them (an else-if chain ending in an
    else)."""
    for st in stmts:
        if st.kind == "decl" and re.fullmatch(rf"{re.escape(name)}\s*=\s*{_KERNEL_CALL}.*", st.text.strip(), re.S):
            return True
        hm = re.fullmatch(rf"{re.escape(name)}\s*=\s*([A-Za-z_]\w*)\s*\(.*\)", st.text.strip(), re.S) \
            if st.kind == "decl" and w is not None else None
        if hm and _compute_helper(w, hm.group(1)):
            return True
        if st.kind == "if" and st.orelse and _kernel_on_every_path(st.then, name, w) and \
                _kernel_on_every_path(st.orelse, name, w):
            return True
    return False


def _compute_helper(w: Walk, name: str) -> bool:
    """``name`` is a function of the checkout that calls a kernel and checks no parameter (``AllMinMax``
    building a tuple of two kernels' results): what it returns fails only as its kernels do."""
    fn = w.index.function(name)
    if fn is None or not re.search(_KERNEL_CALL, fn.body) or "aclnnStatus" in fn.returns \
            or fn.returns.split()[-1] == "bool":
        return False
    # a null passed on (``CHECK_RET(r != nullptr, nullptr)``, aclnn_multinomial.cpp:335-339) checks nothing
    body = re.sub(r"CHECK_RET\s*\(\s*\w+\s*!=\s*nullptr\s*,\s*nullptr\s*\)", "", fn.body)
    return not _checks_params(w, _compute_only(body)) and not re.search(r"CHECK_RET|OP_CHECK", body)


def _broadcast_to_helper(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``H(shape, t, executor)``, H a helper of the file allocating a tensor of ``shape`` with t's dtype
    and returning ``l0op::BroadcastTo(t, that tensor, ...)`` (which returns its second argument, ops-math
    conversion/broadcast_to/op_api/broadcast_to.cpp:86-92): ("tensor-dtype", t's dtype, that shape)."""
    call = _macro(_strip(rhs))
    fn = w.index.function(call[0]) if call and match_close(_strip(rhs), _strip(rhs).index("(")) == \
        len(_strip(rhs)) - 1 else None
    if fn is None or len(call[1]) != len(fn.params):
        return None
    body = normalised(fn)
    alloc = re.search(r"\b(\w+)\s*=\s*\w+\s*->\s*AllocTensor\(\s*(\w+)\s*,\s*(\w+)\s*->\s*GetDataType\(\)\s*\)", body)
    if not alloc or alloc.group(2) not in fn.params or alloc.group(3) not in fn.params:
        return None
    dst, src = alloc.group(1), alloc.group(3)
    made = rf"l0op::BroadcastTo\(\s*{src}\s*,\s*{dst}\s*,[^;]*\)"
    returned = re.findall(r"\breturn\b([^;]*);", body)
    local = re.search(rf"\b(\w+)\s*=\s*{made}\s*;", body)
    if len(returned) != 1 or not re.fullmatch(
            rf"\s*(?:const_cast<[^>]*>\s*\(\s*)?(?:{local.group(1) if local else made}|{made})\s*\)?\s*",
            returned[0]):
        return None
    shape = _shape_expr_at(w, call[1][fn.params.index(alloc.group(2))], env)
    dtype = _tensor_dtype(w, call[1][fn.params.index(src)], env)
    if shape is None or dtype is None:
        return None
    return ("tensor-dtype", dtype, ("like", shape[1]) if shape[0] == "of" else ("shape-expr", shape))


def _tensor_shape_expr(held: Any) -> tuple | None:
    """The shape expression of a tensor of the compute path whose view shape the walk knows."""
    if isinstance(held, tuple) and held[:1] in (("tensor-dtype",), ("cast-of",)) and len(held) == len(held[:1]) + \
            (2 if held[0] == "tensor-dtype" else 3) and isinstance(held[-1], tuple) and held[-1][:1] == ("shape-expr",):
        return held[-1][1]
    if isinstance(held, tuple) and held[:1] in (("converted",), ("scalar-tensor",)):
        return ("dims", ())   # a scalar made a tensor: rank 0 (opbase common_types.cpp:284-285)
    like = _shape_like(held)
    return None if like is None else ("of", like)


def _helper_tensor(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``H(args)`` with H a function of the file returning a tensor, every return of it null or the one
    local its last statement returns (``return r;``), and no parameter check in it: what the walk of
    H's body over the arguments holds for that local, when that is a tensor of a known shape and the
    walk records nothing; None otherwise."""
    rhs = _strip(rhs)
    call = _macro(rhs)
    fn = w.index.function(call[0]) if call and match_close(rhs, rhs.index("(")) == len(rhs) - 1 else None
    if fn is None or not re.search(r"aclTensor\s*\*", fn.returns) or len(call[1]) != len(fn.params) or \
            re.search(r"ACLNN_ERR_PARAM|OP_CHECK_", fn.body):
        return None
    stmts = statements(fn.body, fn.body_offset)
    last = re.fullmatch(r"return\s+(\w+)\s*;?", stmts[-1].text.strip()) if stmts and stmts[-1].kind == "return" \
        else None
    if last is None or any(r not in ("nullptr", last.group(1)) for r in re.findall(r"\breturn\b\s*(\w*)", fn.body)):
        return None
    left: dict = {}
    read, _ = _checks_nothing(w, lambda: reenter.run_function(w, fn, reenter.bind(w, fn, call[1], env), fail=None, left=left))
    if not read:
        return None
    held = left.get(last.group(1))
    return held if isinstance(held, tuple) and held[:1] in (("tensor-dtype",), ("cast-of",)) and \
        _tensor_shape_expr(held) is not None else None


def _checks_nothing(w: Walk, run: Callable[[], Any]) -> tuple[bool, Any]:
    """(True, what ``run`` returns) where ``run`` (a walk of a helper's body) reads through and emits
    no event: a helper that computes without checking a parameter; (False, None), its events
    undone, otherwise."""
    mark = len(w.events)
    try:
        result = run()
    except (Unreadable, _Stop):
        del w.events[mark:]
        return False, None
    if len(w.events) != mark:
        del w.events[mark:]
        return False, None
    return True, result


def _made_local(w: Walk, rhs: str, env: dict, name: str) -> tuple | None:
    """``std::get<k>(r)`` of a kernel's result, or what a compute helper returns: a kernel result."""
    m = re.fullmatch(r"std::get<(\d+)>\(\s*(\w+)\s*\)", _strip(rhs))
    held = env.get(m.group(2)) if m else None
    if isinstance(held, tuple) and held[:1] == ("tensor-tuple",) and int(m.group(1)) < len(held[1]):
        return ("tensor-dtype", held[1][int(m.group(1))], held[2])   # its elements share the shape
    if isinstance(held, tuple) and held[:1] == ("tensor-dtype",) and len(held) == 3 and held[2] is not None:
        return ("tensor-dtype", None, held[2])   # an element of a tuple whose results share a shape
    if m and _kernel_made(held):
        return ("kernel-result", name)
    call = _macro(_strip(rhs))
    if call and match_close(_strip(rhs), _strip(rhs).index("(")) == len(_strip(rhs)) - 1 \
            and _compute_helper(w, call[0]):
        return ("kernel-result", name)
    return None


def _kernel_choice(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``G ? l0op::A(..) : l0op::B(..)`` with G a condition on dtypes and both kernels' result dtypes
    read: ("tensor-dtype", ("if", G, A's, B's) or their one dtype, the one shape both have or None)."""
    q = _split_top(_strip(rhs), "?")
    branches = [_strip(b) for b in _split_colon(q[1])] if len(q) == 2 else []
    if len(branches) != 2 or not all(re.fullmatch(_KERNEL_CALL + r".*\)", b, re.S) for b in branches):
        return None
    held = [_kernel_result(w, b, env) for b in branches]
    if not all(isinstance(h, tuple) and h[:1] == ("tensor-dtype",) and h[1] is not None for h in held):
        return None
    guard = reenter.guard(w, q[0], env)
    if guard is None:
        return None
    shapes = {h[2] if len(h) == 3 else None for h in held}
    dtype = held[0][1] if held[0][1] == held[1][1] else ("if", guard, held[0][1], held[1][1])
    return ("tensor-dtype", dtype, shapes.pop() if len(shapes) == 1 else None)


def _choice_like(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``C ? A : B`` choosing between tensors of the compute path with one API tensor's shape (``self
    is BOOL ? Cast(x, UINT8) : x``): ("like", that tensor); its dtype is not held."""
    q = _split_top(_strip(rhs), "?")
    branches = _split_colon(q[1]) if len(q) == 2 else []
    if len(branches) != 2:
        return None
    likes = set()
    for b in branches:
        b = _strip(b)
        held = env.get(b) if re.fullmatch(r"[A-Za-z_]\w*", b) else _kernel_result(w, b, env)
        likes.add(_shape_like(held))
    return ("like", likes.pop()) if len(likes) == 1 and None not in likes else None


def _lambda_like(rhs: str, env: dict) -> tuple | None:
    """An immediately invoked lambda every return of which gives one tensor of the compute path or a
    Cast of it (the dtype chosen in branches): ("like", the API tensor whose shape it has). A local
    it reassigns must be a view of that tensor (``const_cast``)."""
    m = re.fullmatch(r"\[[^\]]*\]\s*\(\s*\)\s*(?:->\s*[^{]+)?\{(.*)\}\s*\(\s*\)", _strip(rhs), re.S)
    if not m or re.search(r"ACLNN_ERR_PARAM|OP_CHECK|CHECK_RET", m.group(1)):
        return None
    body = m.group(1)
    sources = {r.group(1) or r.group(2) for r in re.finditer(
        r"\breturn\s+(?:(\w+)\s*;|l0op::Cast\(\s*(\w+)\s*,[^;]*\)\s*;)", body)}
    if len(sources) != 1 or len(re.findall(r"\breturn\b", body)) != len(re.findall(
            r"\breturn\s+(?:\w+\s*;|l0op::Cast\(\s*\w+\s*,[^;]*\)\s*;)", body)):
        return None
    v = sources.pop()
    for a in re.finditer(rf"(?<![\w>.])\b{re.escape(v)}\s*=(?!=)\s*(\w+)\s*;", body):
        if not re.search(rf"\b{a.group(1)}\s*=\s*const_cast<[^>]*>\(\s*{re.escape(v)}\s*\)", body):
            return None
    if re.search(rf"(?<![\w>.])\b{re.escape(v)}\s*=(?!=)(?!\s*\w+\s*;)", body):
        return None
    tensor = _shape_like(env.get(v))
    return ("like", tensor) if tensor else None


# the lower-layer route a rule of ``_view_copy_check`` reads (its ``route`` argument; the agreement counts
# the APIs per route): ViewCopy's shape test, not its dtype and format tests (contiguous.cpp:634-667)
VIEW_COPY_ROUTE = "l0op::ViewCopy"


def _view_copy(rhs: str, env: dict) -> tuple | None:
    """``l0op::ViewCopy(r, out, executor)`` with ``out`` an API tensor: ("view-copy", what r holds,
    out). It returns null when the view shapes of r and out differ unless both hold one element
    (ops-math conversion/contiguous/op_host/op_api/contiguous.cpp:656-664)."""
    call = _macro(_strip(rhs))
    if not call or call[0] != "l0op::ViewCopy" or len(call[1]) != 3 or \
            match_close(_strip(rhs), _strip(rhs).index("(")) != len(_strip(rhs)) - 1:
        return None
    out = env.get(_strip(call[1][1]))
    return ("view-copy", env.get(_strip(call[1][0])), out.name) if isinstance(out, T) else None


def _view_copy_check(w: Walk, src: SourceFile, stmt: Stmt, held: Any, code: int) -> bool:
    """``CHECK_RET(v != nullptr, code)`` with v a ViewCopy into an API tensor (``_view_copy``): where the
    walk knows the copied result's view shape, ``shape_is`` of the output with the one-element
    exemption; otherwise no rule (a kernel's result whose shape is not read, as ``_kernel_made``)."""
    if not (isinstance(held, tuple) and held[:1] == ("view-copy",)):
        return False
    result, other = held[1], None
    if isinstance(result, tuple) and result[:1] == ("shape-unless",):   # known on one side of a branch:
        result, other = result[2], result[1]   # the rule for the calls taking that side, none for the rest
    shape = _tensor_shape_expr(result)
    if isinstance(result, tuple) and result[:1] == ("shape-choice",):   # a shape on each side of a branch
        sides = [_tensor_shape_expr(v) for v in result[2:4]]
        shape = None if None in sides else ("?", ("guard", result[1]), *sides)
    if shape is not None:
        w.guards.extend([("not", other)] if other is not None else [])
        try:
            _check(w, src, stmt.offset, "shape_is", _args(param=held[2], shape_expr=shape, scalar_same=True,
                                                          route=VIEW_COPY_ROUTE), code, stmt.text)
        finally:
            del w.guards[len(w.guards) - (other is not None):]
    return True


def _kernel_made(held: Any) -> bool:
    """A local holding what a kernel call (``l0op::K(...)``, not a Cast) returned: a null result is
    that kernel's failure (its infer-shape and checks are read for no API, like the tiling), whatever
    status the op_api names for it (ACLNN_ERR_INNER_NULLPTR mostly, ACLNN_ERR_PARAM_NULLPTR in some)."""
    if isinstance(held, tuple) and held[:1] in (("tensor-dtype",), ("kernel-result",), ("tensor-tuple",),
                                                 ("shape-unless",), ("shape-choice",), ("view-copy",)):
        return True
    if not isinstance(held, Opaque):
        return False
    q = _split_top(held.text, "?")   # a choice between two kernels' results
    choices = _split_colon(q[1]) if len(q) == 2 else [held.text]
    return len(choices) in (1, 2) and all(re.fullmatch(_KERNEL_CALL + r".*\)", c.strip(), re.S) for c in choices)


def _compute_only(text: str, w: Walk | None = None, env: dict | None = None) -> str:
    """``text`` without the inner-status checks of a compute path (``CHECK_RET(x != nullptr,
    ACLNN_ERR_INNER_NULLPTR)``) and the statuses of calls passed on: what is left is what could
    check a parameter."""
    text = re.sub(r"CHECK_RET\s*\([^;]*,\s*ACLNN_ERR_INNER_\w+\s*\)", "", text)
    # a kernel's result checked with a parameter status (``auto r = l0op::Mul(...); CHECK_RET(r !=
    # nullptr, ACLNN_ERR_PARAM_NULLPTR)``): the kernel's own failure, as _kernel_made says; so are
    # an element of one (``std::get<0>(r)``) and what a compute helper of the file returns
    made = set(re.findall(r"\b(\w+)\s*=\s*" + _KERNEL_CALL, text))
    made |= {k for k, v in (env or {}).items() if _kernel_made(v)}
    if w is not None:
        made |= {m.group(1) for m in re.finditer(r"\b(\w+)\s*=\s*([A-Za-z_][\w:]*)\s*\(", text)
                 if _compute_helper(w, m.group(2))}
    for _ in range(2):   # an element of a made tuple, taken after it
        made |= {m.group(1) for m in re.finditer(r"\b(\w+)\s*=\s*std::get<\d+>\(\s*(\w+)\s*\)", text)
                 if m.group(2) in made}
    text = re.sub(r"CHECK_RET\s*\(([^;]*?),\s*ACLNN_ERR_PARAM_NULLPTR\s*\)",
                  lambda m: "" if _nonnull_names(m.group(1)) and set(_nonnull_names(m.group(1))) <= made
                  else m.group(0), text)
    # a call's status passed on (``ret = FillScalar(...); CHECK_RET(ret == ACLNN_SUCCESS, ret)``): the
    # call stays in the text, so a parameter check it makes is still found
    return re.sub(r"CHECK_RET\s*\(\s*(\w+)\s*==\s*ACLNN_SUCCESS\s*,\s*\1\s*\)", "", text)


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.checks_nothing = _checks_nothing
reenter.shape_like = _shape_like
reenter.tensor_shape_expr = _tensor_shape_expr
