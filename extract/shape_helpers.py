"""Whole shape-check helpers recognised by their body, where the checks live in loops and shape
locals the statement walk does not follow. Each reader returns the rules the helper's failures are
(a ``HelperRead``: template, args in the helper's parameter names, in order) or None; anything else
in the body, or any difference from the form described, is None (the walk then reads or leaves the
helper unread). A helper's failures all give the caller's status, so rules standing for several of its
checks at once fail exactly the calls those checks fail.

- ``expand_to_size(self, size, out)`` (ops-math math/expand/op_api/aclnn_expand.cpp:74-117): the size
  array as a shape; a shortcut when self's and out's shapes both equal it; size no shorter than
  self's rank; each of self's dims, aligned to the right, equal to size's or 1 (a -1 in size only
  written into the expected shape first, then overwritten by size's own element); out's shape equal to
  the expected shape, which is then size itself. The shortcut accepts only calls the three checks
  accept too, so it adds no rule.
- ``split_halves`` (GeGlu's shape check) and ``split_half_of`` (GeGluBackward's dims check): an output
  is its input split in two along a wrapped dim (``attr_dim_divisible``, ``split_shape``); a rank-0
  input, whose dim the code reads past its rank, is left unread.
- ``wraps_dim_by_rank(dim, rank)``: dim wrapped by max(rank, 1), for the walk to take the call as the
  API's integer argument's wrapped dim.
- ``one_dim_at_rank0(x, executor)`` and ``leading_ones_to(x, a, executor)`` (aclnnRepeat's
  InitializeTensor and ViewToRepeatsSize): tensors whose view shape is x's, [1] for a rank-0 x; x's
  with leading dims of 1 added up to a's length."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from aclnn_conformance.extract.cpp import Function, match_close

_LOG = re.compile(r"(^|[;{}])\s*OP_LOG\w*\s*\((?:[^;\"]|\"(?:[^\"\\\\]|\\\\.)*\")*\)\s*;")


@dataclass(frozen=True)
class HelperRead:
    """A helper's rules, args naming its parameters (``("attr-of", p)``: the integer argument whose
    wrapped dim parameter p holds); ``wraps`` p -> t: parameter p must hold an integer argument's dim
    of parameter t wrapped by max(rank, 1); ``ranks`` p -> t: parameter p must hold max(rank of t, 1);
    ``unread`` (text, tensor parameter): a construct not read for the calls where that tensor has rank
    0 (a dim read past its rank), standing before rule ``unread_at``."""
    rules: tuple[tuple[str, dict], ...]
    wraps: tuple[tuple[str, str], ...] = ()
    ranks: tuple[tuple[str, str], ...] = ()
    unread: tuple[str, str] | None = None
    unread_at: int = 0   # the index in ``rules`` the unread construct stands at


def normalised(fn: Function) -> str:
    """The body without log statements (a log inside a check macro's arguments becomes ``LOG``), its
    whitespace one space."""
    body = _LOG.sub(r"\1", fn.body)
    while (m := re.search(r"\bOP_LOG\w*\s*\(", body)) is not None:
        close = match_close(body, m.end() - 1)
        if close < 0:
            break
        body = body[:m.start()] + "LOG" + body[close + 1:]
    return re.sub(r"\s+", " ", body).strip()


def expand_to_size(fn: Function) -> HelperRead | None:
    """The rules of an expand's shape helper ``(tensor, int array, tensor)``; None for any other body."""
    if len(fn.params) != 3 or "aclIntArray" not in fn.param_types[1]:
        return None
    x, z, o = (re.escape(p) for p in fn.params)
    w = r"(\w+)"
    pattern = (
        rf"op::Shape {w}; for \((?:int64_t|size_t) {w} = 0; \2 < static_cast<(?:int64_t|size_t)>\({z}->Size\(\)\); \2\+\+\) "
        rf"{{ \1\.AppendDim\(\(\*{z}\)\[\2\]\); }} "
        rf"const auto& {w} = {o}->GetViewShape\(\); const auto& {w} = {x}->GetViewShape\(\); "
        rf"if \(\4 == \1 && \3 == \1\) {{ return true; }} "
        rf"auto {w} = \1\.GetDimNum\(\); auto {w} = \4\.GetDimNum\(\); "
        rf"if \(\5 < \6\) {{ return false; }} "
        rf"auto {w} = \5 - \6; op::Shape {w}; \8\.SetDimNum\(\5\); "
        rf"for \(size_t {w} = 0; \9 < \6; \9\+\+\) {{ "
        rf"(?:if \(\1\.GetDim\(\7 \+ \9\) == -1\) {{ \8\.SetDim\(\7 \+ \9, \4\.GetDim\(\9\)\); }} )?"
        rf"if \(\(\4\.GetDim\(\9\) != \1\.GetDim\(\7 \+ \9\)\) && \(\4\.GetDim\(\9\) != 1\)\) {{ return false; }} "
        rf"\8\.SetDim\(\7 \+ \9, \1\.GetDim\(\7 \+ \9\)\); }} "
        rf"for \(size_t {w} = 0; \10 < \7; \10\+\+\) {{ \8\.SetDim\(\10, \1\.GetDim\(\10\)\); }} "
        rf"if \(\3 != \8\) {{ return false; }} return true;")
    if not re.fullmatch(pattern, normalised(fn)):
        return None
    self_, size, out = fn.params
    return HelperRead(rules=(("attr_shape_broadcast", {"param": self_, "attr": size}),
                             ("shape_is_attr", {"param": out, "attr": size})))


_PAST_RANK = "a dim read past the rank of a rank-0 tensor (its value is not in the vendor's sources)"


def split_halves(fn: Function, function_of: Callable[[str], Function | None],
                 constant_of: Callable[[str], int | None]) -> HelperRead | None:
    """GeGlu's shape check ``(self, dim, out, outGelu)`` (ops-nn activation/ge_glu_v2/op_host/op_api/
    aclnn_geglu.cpp:75-155): the three tensors of at most the dims the max-dim constant names; dim in
    [-n, n-1] with n
    max(rank, 1); then, at d = dim wrapped by n, self's size even and out's and outGelu's half of it,
    both of self's rank (n), every other dim self's: each output is self split in two along d."""
    if len(fn.params) != 4:
        return None
    x, d, a, b = (re.escape(p) for p in fn.params)
    w = r"(\w+)"
    pattern = (
        rf"OP_CHECK_MAX_DIM\({x}, {w}, return false\); OP_CHECK_MAX_DIM\({a}, \1, return false\); "
        rf"OP_CHECK_MAX_DIM\({b}, \1, return false\); "
        rf"int64_t {w} = {x}->GetViewShape\(\)\.GetDimNum\(\); if \(\2 == 0\) {{ \2 = 1; }} "
        rf"if \(\(-\2 > {d}\) \|\| \(\(\2 - 1\) < {d}\)\) {{ return false; }} "
        rf"auto {w} = {d} < 0 \? \2 \+ {d} : {d}; "
        rf"if \(!{w}\({x}, {a}, {b}, \3\)\) {{ return false; }} "
        rf"int64_t {w} = {a}->GetViewShape\(\)\.GetDimNum\(\); int64_t {w} = {b}->GetViewShape\(\)\.GetDimNum\(\); "
        rf"OP_CHECK\(\5 == \6 && \5 == \2, LOG, return false\); "
        rf"return {w}\({x}, {a}, {b}, \2, \3, {d}\);")
    m = re.fullmatch(pattern, normalised(fn))
    if not m:
        return None
    slices, others, max_dims = function_of(m.group(4)), function_of(m.group(7)), constant_of(m.group(1))
    if slices is None or others is None or max_dims is None or \
            not (_half_slices(slices) and _other_dims_equal(others)):
        return None
    self_, dim, out, gelu = fn.params
    ranges = ({"attr": dim, "tensor": self_, "min": (-1, 0), "min_rank0": -1},
              {"attr": dim, "tensor": self_, "max": (1, -1), "max_rank0": 0})
    return HelperRead(
        rules=tuple(("rank_range", {"param": t, "max": max_dims}) for t in (self_, out, gelu))
        + tuple(("attr_in_rank_range", r) for r in ranges)
        + (("attr_dim_divisible", {"attr": dim, "tensor": self_, "by": 2}),)
        + tuple(("split_shape", {"param": t, "of": self_, "attr": dim, "by": 2}) for t in (out, gelu)),
        unread=(_PAST_RANK, self_), unread_at=5)


def _half_slices(fn: Function) -> bool:
    """``(self, out, outGelu, d)``: self's size at d even, out's and outGelu's half of it."""
    if len(fn.params) != 4:
        return False
    x, a, b, d = (re.escape(p) for p in fn.params)
    return bool(re.fullmatch(
        rf"auto (\w+) = {x}->GetViewShape\(\)\.GetDim\({d}\); auto (\w+) = {a}->GetViewShape\(\)\.GetDim\({d}\); "
        rf"auto (\w+) = {b}->GetViewShape\(\)\.GetDim\({d}\); const int64_t (\w+) = 2; "
        rf"OP_CHECK\(\1 % \4 == 0, LOG, return false\); "
        rf"if \(\2 != \1 / \4\) {{ return false; }} if \(\3 != \1 / \4\) {{ return false; }} return true;",
        normalised(fn)))


def _other_dims_equal(fn: Function) -> bool:
    """``(self, out, outGelu, n, d, dim)``: every dim below n but d equal in the three."""
    if len(fn.params) != 6:
        return False
    x, a, b, n, d, _ = (re.escape(p) for p in fn.params)
    return bool(re.fullmatch(
        rf"for \(int64_t (\w+) = 0; \1 < {n}; \1\+\+\) {{ if \(\1 == {d}\) {{ continue; }} "
        rf"OP_CHECK\( ?{x}->GetViewShape\(\)\.GetDim\(\1\) == {a}->GetViewShape\(\)\.GetDim\(\1\) && "
        rf"{a}->GetViewShape\(\)\.GetDim\(\1\) == {b}->GetViewShape\(\)\.GetDim\(\1\), LOG, return false\); }} "
        rf"return true;", normalised(fn)))


def split_half_of(fn: Function, constant_of: Callable[[str], int | None]) -> HelperRead | None:
    """GeGluBackward's ``(gradOutput, self, splitDim, n)`` (ops-nn activation/ge_glu_grad_v2/op_host/
    op_api/aclnn_geglu_backward.cpp:88-118), splitDim self's wrapped dim of an integer argument and n
    max(rank of self, 1): every dim of gradOutput below n equal to self's but at splitDim, where it is
    half of self's (self's size there even): gradOutput is self split in two along that dim."""
    if len(fn.params) != 4:
        return None
    g, x, d, n = (re.escape(p) for p in fn.params)
    pattern = (
        rf"for \(size_t (\w+) = 0; \1 < {d}; \+\+\1\) {{ if \({g}->GetViewShape\(\)\.GetDim\(\1\) != "
        rf"{x}->GetViewShape\(\)\.GetDim\(\1\)\) {{ return false; }} }} "
        rf"if \({g}->GetViewShape\(\)\.GetDim\({d}\) \* (\w+) != {x}->GetViewShape\(\)\.GetDim\({d}\)\) "
        rf"{{ return false; }} "
        rf"for \(size_t (\w+) = {d} \+ 1; \3 < {n}; \+\+\3\) {{ if \({g}->GetViewShape\(\)\.GetDim\(\3\) != "
        rf"{x}->GetViewShape\(\)\.GetDim\(\3\)\) {{ return false; }} }} return true;")
    m = re.fullmatch(pattern, normalised(fn))
    if not m or constant_of(m.group(2)) != 2:
        return None
    grad, self_, split, rank = fn.params
    attr = ("attr-of", split)
    return HelperRead(
        rules=(("attr_dim_divisible", {"attr": attr, "tensor": self_, "by": 2}),
               ("split_shape", {"param": grad, "of": self_, "attr": attr, "by": 2})),
        wraps=((split, self_),), ranks=((rank, self_),), unread=(_PAST_RANK, self_))


def wraps_dim_by_rank(fn: Function) -> tuple[str, str] | None:
    """``(dim, rank)`` for ``int64_t f(int64_t dim, int64_t rank)`` whose body counts a rank of 0 as 1
    and adds it to a negative dim (ops-math math/arg_max_v2/op_api/aclnn_argmax.cpp:146-155 ``DimWrap``):
    the result is dim wrapped by max(rank, 1). None for any other body."""
    if len(fn.params) != 2 or not all(re.search(r"\bint(?:64_t)?\b", t) for t in fn.param_types):
        return None
    d, n = (re.escape(p) for p in fn.params)
    pattern = (rf"if \( ?{n} <= 0 ?\) {{ {n} = 1; }} if \( ?{d} < 0 ?\) {{ {d} (?:\+= {n}|= {d} \+ {n}); }} "
               rf"return {d};")
    return (fn.params[0], fn.params[1]) if re.fullmatch(pattern, normalised(fn)) else None


@dataclass(frozen=True)
class ReducedDimsFill:
    """A helper pushing into its vector parameter ``out`` the view-shape dims 0 .. rank-1 of its
    tensor parameter ``of`` but the one ``dim`` names, that one as 1 when ``keepdim``: ``dim`` as
    given (``wraps`` False: the caller passes it wrapped) or wrapped by the rank in the helper."""
    of: str
    out: str
    dim: str
    keepdim: str
    rank: int
    wraps: bool


def reduced_dims_fill(fn: Function, constant_of: Callable[[str], int | None]) -> ReducedDimsFill | None:
    """The loop of ops-math math/arg_max_v2/op_api/aclnn_argmax.cpp:122-128 (``i <= K``, the dim as
    given) or math/arg_min/op_api/aclnn_argmin.cpp:163-175 (``i < K``, the dim wrapped by the rank
    first), opening the body after its shape local, the vector written nowhere else; None for any
    other body."""
    body = normalised(fn)
    number = lambda text: int(text) if text.isdigit() else constant_of(text)   # noqa: E731
    a = re.search(r"for \(int64_t (\w+) = 0; \1 <= (\w+); \1\+\+\) \{ if \(\1 == (\w+) && (\w+)\) \{ "
                  r"(\w+)\.push_back\(1\); \} else if \(\1 != \3\) \{ \5\.push_back\((\w+)\[\1\]\); \} \}", body)
    b = re.search(r"int64_t (\w+) = (\w+); if \(\1 < 0\) \{ \1 = (\w+)\.GetDimNum\(\) \+ \2; \} "
                  r"for \(size_t (\w+) = 0; \4 < (\w+); \4\+\+\) \{ if \(\4 != \(size_t\)\1\) \{ "
                  r"(\w+)\.push_back\(\3\[\4\]\); \} else if \((\w+)\) \{ \6\.push_back\(1\); \} \}", body)
    if a:
        bound, dim, keepdim, out, shape = number(a.group(2)), a.group(3), a.group(4), a.group(5), a.group(6)
        rank = None if bound is None else bound + 1
    elif b:
        bound, dim, keepdim, out, shape = number(b.group(5)), b.group(2), b.group(7), b.group(6), b.group(3)
        rank = bound
    else:
        return None
    # the body opens with the shape local, the loop (and the dim's wrap) right after it
    held = re.fullmatch(rf"auto {shape} = (\w+)->GetViewShape\(\); ", body[:(a or b).start()])
    params = dict(zip(fn.params, fn.param_types))
    if rank is None or held is None or held.group(1) not in params or len(re.findall(rf"\b{shape} =", body)) != 1 \
            or not {dim, keepdim, out} <= set(params) or len(re.findall(rf"\b{out}\b", body)) != 2 \
            or "bool" not in params[keepdim] or "&" not in params[out] or "int64_t" not in params[dim]:
        return None
    return ReducedDimsFill(held.group(1), out, dim, keepdim, rank, wraps=b is not None)


def one_dim_at_rank0(fn: Function, function: Callable[[str], Function | None]) -> bool:
    """``fn(x, executor)`` returning ``l0op::Contiguous(x)``, broadcast (``l0op::BroadcastTo``, x's
    dtype) to a helper's one-element integer array holding 1 when it has rank 0 (ops-math
    math/tile/op_api/aclnn_repeat.cpp:143-162): a contiguous tensor of x's dtype and view shape, [1]
    at rank 0. False for any other body, of fn or of the helper."""
    if len(fn.params) != 2 or "aclOpExecutor" not in fn.param_types[1]:
        return False
    x, ex = (re.escape(p) for p in fn.params)
    m = re.fullmatch(rf"auto (\w+) = l0op::Contiguous\({x}, {ex}\); if \(\1->GetViewShape\(\)\.GetDimNum\(\) == 0\) "
                     rf"\{{ auto (\w+) = (\w+)\({ex}\); \1 = l0op::BroadcastTo\(\1, \2, {ex}\); \}} return \1;",
                     normalised(fn))
    base = function(m.group(3)) if m else None
    if base is None or len(base.params) != 1:
        return False
    e = re.escape(base.params[0])
    return re.fullmatch(rf"int64_t (\w+)\[1\] = \{{\}}; \1\[0\] = 1; auto (\w+) = {e}->AllocIntArray\(\1, 1\); "
                        rf"return \2;", normalised(base)) is not None


def leading_ones_to(fn: Function) -> bool:
    """``fn(x, a, executor)`` returning ``l0op::UnsqueezeNd`` of x at the dims 0 .. n-1, n = a's length
    minus x's rank (ops-math math/tile/op_api/aclnn_repeat.cpp:164-174): for n >= 1 and a contiguous
    x, x's view with n leading dims of 1 (conversion/unsqueeze/op_host/op_api/unsqueeze.cpp:19-70:
    each dim in range and none twice). False for any other body."""
    if len(fn.params) != 3 or "aclIntArray" not in fn.param_types[1] or "aclOpExecutor" not in fn.param_types[2]:
        return False
    x, a, ex = (re.escape(p) for p in fn.params)
    return re.fullmatch(
        rf"auto (\w+) = \(int64_t\){a}->Size\(\) - \(int64_t\){x}->GetViewShape\(\)\.GetDimNum\(\); "
        rf"std::vector<int64_t> (\w+)\(\1\); for \(int64_t (\w+) = 0; \3 < \1; \3\+\+\) \{{ \2\[\3\] = \3; \}} "
        rf"aclIntArray\* (\w+) = {ex}->AllocIntArray\(\2\.data\(\), \1\); "
        rf"auto (\w+) = l0op::UnsqueezeNd\({x}, \4, {ex}\); return \5;", normalised(fn)) is not None
